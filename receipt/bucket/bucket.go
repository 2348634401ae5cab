// Package bucket is the object store that a fleet of sabline serve
// replicas ship their receipts to, as the rest of Sabline sees it: a
// Bucket creates an object once (never over another), reads a range of
// one, and lists keys by prefix. The object stores themselves (file://,
// s3://, gs://, azblob://, through gocloud.dev/blob) are reached by the
// store agent, the command sabline-store, which serves a Bucket on its
// standard input and output (ServeAgent) to the process that started it
// (StartAgent): the cloud drivers are linked into that command alone, so
// that no sabline process, and no worker, initialises them at start.
// The protocol is framed and bounded on both sides.
package bucket

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

// ErrExist is the error of Create when an object has the key already.
var ErrExist = fs.ErrExist

// ErrNotExist is the error of Read when no object has the key.
var ErrNotExist = fs.ErrNotExist

// MaxObjectBytes bounds an object a Bucket creates or reads in one call.
const MaxObjectBytes = 96 << 20

// Bucket is an object store.
type Bucket interface {
	// Create writes data under key when no object has that key, in one
	// write that is seen whole or not at all; when one has, it changes
	// nothing and returns an error that wraps ErrExist.
	Create(ctx context.Context, key string, data []byte) error
	// Read returns n bytes of the object key from offset off (n < 0: to
	// its end), fewer when it ends first; an error that wraps ErrNotExist
	// when there is no such object.
	Read(ctx context.Context, key string, off, n int64) ([]byte, error)
	// List returns the keys that begin with prefix, in lexical order.
	List(ctx context.Context, prefix string) ([]string, error)
	// Close releases the bucket.
	Close() error
}

// Memory is a Bucket held in memory, for tests and for a server that
// keeps its receipts to itself.
type Memory struct {
	mu      sync.Mutex
	objects map[string][]byte
	// Fail, when set, is returned by every call instead of doing it: a
	// store that is down.
	Fail error
}

// NewMemory is an empty Memory bucket.
func NewMemory() *Memory { return &Memory{objects: map[string][]byte{}} }

// Create implements Bucket.
func (m *Memory) Create(ctx context.Context, key string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return m.Fail
	}
	if _, ok := m.objects[key]; ok {
		return &fs.PathError{Op: "create", Path: key, Err: ErrExist}
	}
	m.objects[key] = append([]byte(nil), data...)
	return nil
}

// Read implements Bucket.
func (m *Memory) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return nil, m.Fail
	}
	data, ok := m.objects[key]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: key, Err: ErrNotExist}
	}
	return slice(data, off, n), nil
}

// slice is the n bytes of data at off (n < 0: to the end), fewer when
// data ends first.
func slice(data []byte, off, n int64) []byte {
	if off < 0 || off > int64(len(data)) {
		return nil
	}
	end := int64(len(data))
	if n >= 0 && n < end-off { // not off+n < end: off+n can wrap past the largest int64
		end = off + n
	}
	return append([]byte(nil), data[off:end]...)
}

// List implements Bucket.
func (m *Memory) List(ctx context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return nil, m.Fail
	}
	var keys []string
	for k := range m.objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// Close implements Bucket.
func (m *Memory) Close() error { return nil }

// errClosed is the error of a call on a closed agent.
var errClosed = errors.New("bucket: the store agent is closed")

// IsURL reports whether store, as --receipts-url names it, is a URL (it
// has a scheme), not a directory's path alone.
func IsURL(store string) bool { return strings.Contains(store, "://") }

// Redact is a store's URL as a log or a message names it: without its
// query, which can carry the store's settings (an endpoint's keys, a
// token).
func Redact(url string) string {
	u, _, _ := strings.Cut(url, "?")
	return u
}
