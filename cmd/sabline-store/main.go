// Command sabline-store is the store agent of sabline serve: it opens the
// bucket a receipts URL names through gocloud.dev/blob (file://, s3://,
// gs://, azblob://; a path without a scheme is file://) and serves it on
// its standard input and output to the process that started it (see
// package bucket), until its input ends. Credentials come from the
// environment, as each cloud's own tools read them. It is a command of
// its own so that the cloud drivers, and the hundreds of packages they
// bring, are initialised in this process alone: never in a sabline
// process, a worker or a command-line run.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/receipt/bucket"
	// The code mapped at start: this process is started often.
	_ "github.com/sabline/sabline/internal/prefault"
)

// usage is what the agent says when it is started wrong.
const usage = "usage: sabline-store URL (started by sabline serve --receipts-url URL; " +
	"it serves the bucket on standard input and output)"

// callTimeout bounds each call the agent makes to the store: the
// deadline of the sabline process's call does not cross the pipe.
const callTimeout = 60 * time.Second

// checkTimeout bounds the check of the store at start.
const checkTimeout = 30 * time.Second

func main() {
	url, err := storeURL(os.Args[1:])
	if err != nil {
		say("%v", err)
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx := context.Background()
	b, err := start(ctx, url, checkTimeout, say)
	if err != nil {
		say("%v", err)
		os.Exit(1)
	}
	defer b.Close()
	if err := bucket.ServeAgent(ctx, os.Stdin, os.Stdout, b); err != nil {
		say("%v", err)
		os.Exit(1)
	}
}

// say writes one line of the agent's to its standard error, which sabline
// serve and sabline receipts pass on to their own (a server's log): its
// text kept to a message's bound (codes.Clip) and escaped as
// codes.TerminalSafe escapes it, since an error can quote what the store
// answered (an S3 error's message, of megabytes, newlines and all), so
// that no store can write to the operator's terminal or start a line of
// the log that reads as the server's.
func say(format string, args ...any) {
	msg := codes.Clip(fmt.Sprintf(format, args...), codes.MaxMessageBytes)
	fmt.Fprintf(os.Stderr, "%s: %s\n", bucket.AgentName, codes.TerminalSafe(msg))
}

// storeURL is the one argument the agent takes: a URL, or an absolute
// path, which sabline serve makes of a path alone. Anything else is
// refused before a store is opened, so that a word given by hand
// (sabline-store version) makes no directory of that name.
func storeURL(args []string) (string, error) {
	if len(args) != 1 || args[0] == "" {
		return "", errors.New("want one argument, the store")
	}
	if !bucket.IsURL(args[0]) && !filepath.IsAbs(args[0]) {
		return "", fmt.Errorf("%q is neither a URL nor an absolute path", args[0])
	}
	return args[0], nil
}

// start opens the bucket of url, every call bounded by callTimeout, and
// checks within check that the store keeps create-only writes (a probe
// key written twice, under bucket.ProbePrefix: see bucket.CreateOnly).
// A store that does not is refused: the replicas that share it would
// overwrite each other's objects without a word. A store that cannot be
// reached is served all the same (a replica starts while its store is
// down, and keeps its receipts in its journal meanwhile); logf says so,
// and the check is made again before the first write.
func start(ctx context.Context, url string, check time.Duration,
	logf func(format string, args ...any)) (bucket.Bucket, error) {
	bb, err := open(ctx, url)
	if err != nil {
		return nil, err
	}
	co := bucket.NewCreateOnly(bucket.WithTimeout(bb, callTimeout))
	cctx, cancel := context.WithTimeout(ctx, check)
	defer cancel()
	switch err := co.Check(cctx); {
	case errors.Is(err, bucket.ErrNotCreateOnly):
		co.Close()
		return nil, fmt.Errorf("%s: %w: refused, since replicas sharing it could overwrite each "+
			"other's receipts; use a store that honours If-None-Match (S3, GCS, Azure, a directory)",
			bucket.Redact(url), err)
	case err != nil:
		logf("%s cannot be checked yet (%v): serving; it is checked again before the first write",
			bucket.Redact(url), err)
	}
	return co, nil
}

// open opens the bucket of url: a path without a scheme is a directory,
// made when missing, as file:// would name it.
func open(ctx context.Context, url string) (*blobBucket, error) {
	if !bucket.IsURL(url) {
		dir, err := filepath.Abs(url)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		url = "file://" + filepath.ToSlash(dir)
		if !strings.HasPrefix(filepath.ToSlash(dir), "/") {
			url = "file:///" + filepath.ToSlash(dir)
		}
	}
	if u, err := neturl.Parse(url); err == nil && u.Scheme == "file" {
		// fileblob says only that it cannot stat the directory.
		dir := u.Path
		if len(dir) >= 3 && dir[0] == '/' && dir[2] == ':' {
			dir = dir[1:] // file:///C:/x
		}
		fi, err := os.Stat(filepath.FromSlash(dir))
		if err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%s: the directory %s does not exist: make it, or give the "+
				"directory's path alone (without file://), which is made when missing",
				bucket.Redact(url), dir)
		}
		// The receipts directory's rule (package receipt): its owner may
		// remove, replace and plant the objects in it.
		if uid, another := guard.OwnedByAnother(fi); another {
			return nil, fmt.Errorf("%s: the directory %s is owned by uid %d, neither you (uid %d) "+
				"nor root: its owner can remove, replace and plant the receipts in it; name a "+
				"directory you or root own, or one that does not exist yet (given as a path, it is "+
				"made, mode 0700)", bucket.Redact(url), dir, uid, os.Geteuid())
		}
	}
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		// The driver's error names the URL whole: the query, which can
		// hold an endpoint's keys, is left out of both.
		return nil, redacted{fmt.Errorf("open %s: %w", url, err), url}
	}
	return &blobBucket{b: b}, nil
}

// redacted is an error whose text names a store's URL without its query
// (bucket.Redact), wherever in it the URL was named whole.
type redacted struct {
	err error
	url string
}

func (r redacted) Error() string {
	return strings.ReplaceAll(r.err.Error(), r.url, bucket.Redact(r.url))
}

func (r redacted) Unwrap() error { return r.err }

// blobBucket is a bucket.Bucket over a gocloud.dev/blob bucket.
type blobBucket struct{ b *blob.Bucket }

// Create writes with IfNotExist: each driver makes it a conditional
// write of its service (S3 If-None-Match: *, a GCS DoesNotExist
// condition, an Azure If-None-Match: *); fileblob checks and renames
// under a lock of its own process.
func (bb *blobBucket) Create(ctx context.Context, key string, data []byte) error {
	err := bb.b.WriteAll(ctx, key, data,
		&blob.WriterOptions{IfNotExist: true, ContentType: "application/octet-stream"})
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return &fs.PathError{Op: "create", Path: key, Err: bucket.ErrExist}
	}
	return err
}

// Read reads n bytes of key at off (to its end when n < 0). A read of no
// bytes asks only whether the object is there: a ranged read of none is a
// body the reader never takes, which a store that answers the whole object
// for it keeps sending, and the read waited for ever.
func (bb *blobBucket) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	var r *blob.Reader
	var err error
	if n == 0 && off >= 0 { // a negative offset is refused, whatever n
		_, err = bb.b.Attributes(ctx, key)
	} else {
		r, err = bb.b.NewRangeReader(ctx, key, off, n, nil)
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, &fs.PathError{Op: "read", Path: key, Err: bucket.ErrNotExist}
	}
	if err != nil {
		return nil, err
	}
	if r == nil {
		return []byte{}, nil
	}
	defer r.Close()
	// A byte past the bound is read, so that an object larger than a reply
	// can carry is refused, naming the bound (bucket.ServeAgent), not cut
	// short without a word. No more than n is read of a range: a store that
	// ignores the range and answers the whole object (or any body, of any
	// length) is read no further than what was asked.
	limit := int64(bucket.MaxObjectBytes) + 1
	if n >= 0 && n < limit {
		limit = n
	}
	return io.ReadAll(io.LimitReader(r, limit))
}

func (bb *blobBucket) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	it := bb.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return nil, err
		}
		if !obj.IsDir {
			keys = append(keys, obj.Key)
		}
	}
}

func (bb *blobBucket) Close() error { return bb.b.Close() }
