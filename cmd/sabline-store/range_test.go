package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/sabline/sabline/receipt/bucket"
)

// TestReadNoMoreThanAsked: a read of the first bytes of an object from
// an S3 store that ignores the range (it answers 200 and the whole
// object, as a store may) returned the whole object, up to
// bucket.MaxObjectBytes: a lookup's probe of an index, some KiB, carried
// an object of up to 96 MiB through the agent and its pipe into the
// server. No more than the range asked is read now. The controls: the
// same reads from a store that honours the range, and reads to the
// object's end (n < 0, and n past it), whole. A read of no bytes from a
// store that ignores the range waited for ever (the body untaken); it
// returns none now, and still misses an object not there.
func TestReadNoMoreThanAsked(t *testing.T) {
	const key = "receipts/r1/0123456789abcdef/00000001.journal"
	data := bytes.Repeat([]byte("0123456789abcdef"), 256<<10) // 4 MiB
	for _, tt := range []struct {
		name        string
		ignoreRange bool
	}{{"a store that honours the range", false}, {"a store that ignores the range", true}} {
		t.Run(tt.name, func(t *testing.T) {
			backend := s3mem.New()
			if err := backend.CreateBucket("receipts"); err != nil {
				t.Fatal(err)
			}
			store := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
			var ranged atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter,
				r *http.Request) {
				if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
					ranged.Add(1)
					if tt.ignoreRange {
						r.Header.Del("Range")
					}
				}
				store.ServeHTTP(w, r)
			}))
			// The double's complaint of a body the reader stopped reading.
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.Start()
			defer srv.Close()
			ctx := context.Background()
			b, err := open(ctx, s3URL(t, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if err := b.Create(ctx, key, data); err != nil {
				t.Fatal(err)
			}
			for _, rd := range []struct {
				n    int64
				want []byte
			}{{16, data[:16]}, {0, nil}, {64 << 10, data[:64<<10]}, {-1, data},
				{int64(len(data)) + 10, data}} {
				got, err := b.Read(ctx, key, 0, rd.n)
				if err != nil || !bytes.Equal(got, rd.want) {
					t.Errorf("a read of %d bytes from the start: %d bytes (%v); want %d, the "+
						"object's first", rd.n, len(got), err, len(rd.want))
				}
			}
			// An offset below zero is refused for no bytes as for some.
			for _, n := range []int64{0, 1} {
				if _, err := b.Read(ctx, key, -1, n); err == nil {
					t.Errorf("a read of %d bytes at offset -1: no error, want one", n)
				}
			}
			// No bytes of an object not there is still a miss.
			if _, err := b.Read(ctx, key+".missing", 0, 0); !errors.Is(err, bucket.ErrNotExist) {
				t.Errorf("a read of no bytes of a missing object: %v; want %v", err, bucket.ErrNotExist)
			}
			if ranged.Load() == 0 {
				t.Errorf("no read asked the store for a range")
			}
		})
	}
}
