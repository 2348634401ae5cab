package bucket

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// WithTimeout is b with every call bounded by d: a call whose context has
// no deadline as early gets one, so that a store that hangs fails the
// call with context.DeadlineExceeded instead of holding its caller.
// Close is not bounded.
func WithTimeout(b Bucket, d time.Duration) Bucket {
	if t, ok := b.(*timed); ok && t.d <= d {
		return t
	}
	return &timed{b: b, d: d}
}

type timed struct {
	b Bucket
	d time.Duration
}

func (t *timed) Create(ctx context.Context, key string, data []byte) error {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	return wrapDeadline(ctx, t.b.Create(ctx, key, data), "create", key, t.d)
}

func (t *timed) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	data, err := t.b.Read(ctx, key, off, n)
	return data, wrapDeadline(ctx, err, "read", key, t.d)
}

func (t *timed) List(ctx context.Context, prefix string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	keys, err := t.b.List(ctx, prefix)
	return keys, wrapDeadline(ctx, err, "list", prefix, t.d)
}

func (t *timed) Close() error { return t.b.Close() }

// wrapDeadline names the call and its bound when err is the deadline's.
func wrapDeadline(ctx context.Context, err error, op, key string, d time.Duration) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("bucket: %s %s: no answer within %s: %w", op, key, d, err)
	}
	return err
}

// ErrNotCreateOnly is the error of a CreateOnly bucket over a store that
// wrote an object over another under the same key: it does not keep the
// promise Create makes (a conditional write: If-None-Match: * on S3 and
// Azure, a DoesNotExist precondition on GCS), and writers that share it
// would overwrite each other's objects without a word.
var ErrNotCreateOnly = errors.New("bucket: the store does not keep create-only writes " +
	"(If-None-Match): a second write of a key replaced the first")

// ProbePrefix begins the key of every object CreateOnly writes to check
// the store: probe/ID, one per check, a few bytes each.
const ProbePrefix = "probe/"

// CreateOnly is a Bucket over a store that is checked to keep Create's
// promise before anything is created in it: Check writes a probe key
// twice, and the second write must be refused. A store that does not
// keep it is refused for good: Check and every Create return an error
// wrapping ErrNotCreateOnly. A store that cannot be reached yet (down,
// or past the call's deadline) is checked again at the next Create,
// which waits for the check.
type CreateOnly struct {
	b Bucket

	mu      sync.Mutex // held while checking
	checked bool
	refused error
}

// NewCreateOnly is b, checked before its first Create.
func NewCreateOnly(b Bucket) *CreateOnly { return &CreateOnly{b: b} }

// Check writes the probe key ProbePrefix+ID (ID random) twice and reads
// it back: nil when the second write was refused and the first kept; an
// error wrapping ErrNotCreateOnly when the store took the second; the
// store's error when it could not be asked (then the check is not
// settled, and is made again by the next Check or Create).
func (c *CreateOnly) Check(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.checked {
		return c.refused
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return fmt.Errorf("bucket: probe key: %w", err)
	}
	key := ProbePrefix + hex.EncodeToString(id[:])
	first, second := []byte("first\n"), []byte("second\n")
	if err := c.b.Create(ctx, key, first); err != nil {
		return fmt.Errorf("bucket: check create-only writes: write %s: %w", key, err)
	}
	err := c.b.Create(ctx, key, second)
	switch {
	case err == nil:
		c.checked = true
		c.refused = fmt.Errorf("%w (probe key %s)", ErrNotCreateOnly, key)
		return c.refused
	case !errors.Is(err, ErrExist):
		return fmt.Errorf("bucket: check create-only writes: write %s again: %w", key, err)
	}
	got, err := c.b.Read(ctx, key, 0, int64(len(second))+1)
	if err != nil {
		return fmt.Errorf("bucket: check create-only writes: read %s: %w", key, err)
	}
	if !bytes.Equal(got, first) {
		c.checked = true
		c.refused = fmt.Errorf("%w (probe key %s: the store refused the second write, "+
			"and holds %q, not the first)", ErrNotCreateOnly, key, got)
		return c.refused
	}
	c.checked = true
	return nil
}

// Create checks the store when it has not been (Check), then creates.
func (c *CreateOnly) Create(ctx context.Context, key string, data []byte) error {
	if err := c.Check(ctx); err != nil {
		return err
	}
	return c.b.Create(ctx, key, data)
}

// Read implements Bucket.
func (c *CreateOnly) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	return c.b.Read(ctx, key, off, n)
}

// List implements Bucket.
func (c *CreateOnly) List(ctx context.Context, prefix string) ([]string, error) {
	return c.b.List(ctx, prefix)
}

// Close implements Bucket.
func (c *CreateOnly) Close() error { return c.b.Close() }
