package ship

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
)

// clock is a time that moves only when the test moves it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// startOn is a Shipper of store to b on clock c that ships only when the
// test calls round, once the round it starts with is over.
func startOn(t *testing.T, store *receipt.Store, b bucket.Bucket, c *clock) *Shipper {
	t.Helper()
	sh, err := Start(store, b, Options{Replica: "r1", Every: time.Hour, now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close(context.Background()) })
	<-sh.started
	return sh
}

// TestLag: Lag is the time since the oldest segment not shipped began to
// take records, counted from Start for a segment found there, and with
// every sealed segment shipped, the time since the last round. A journal
// that cannot be sealed ships nothing, and its lag grows from Start.
func TestLag(t *testing.T) {
	tests := []struct {
		name       string
		bucketDown bool // the bucket refuses every object
		sealFails  bool // the journal is closed before Start: no round seals it
		wantLeft   int  // of a round a second after Start
		wantLag    time.Duration
	}{
		{name: "every segment shipped: the time since the last round",
			wantLeft: 0, wantLag: time.Minute},
		{name: "the bucket refuses every object: the time since Start, for the segment found there",
			bucketDown: true, wantLeft: 1, wantLag: time.Second + time.Minute},
		{name: "the journal cannot be sealed: the time since Start",
			sealFails: true, wantLeft: -1, wantLag: time.Second + time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, err := receipt.OpenStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			rec := newRun("acme")
			if err := store.Reserve(rec); err != nil {
				t.Fatal(err)
			}
			finish(store, rec)
			if tc.sealFails {
				if err := store.Journal().Close(); err != nil {
					t.Fatal(err)
				}
			}
			b, c := &refusingBucket{Memory: bucket.NewMemory()}, newClock()
			if tc.bucketDown {
				b.refuses = func(string) bool { return true }
			}
			sh := startOn(t, store, b, c)
			c.advance(time.Second)
			left, err := sh.round(context.Background())
			if wantErr := tc.bucketDown || tc.sealFails; left != tc.wantLeft ||
				(err != nil) != wantErr || (sh.Err() != nil) != wantErr {
				t.Fatalf("round: left %d, %v, Err %v; want left %d, failed %v",
					left, err, sh.Err(), tc.wantLeft, wantErr)
			}
			c.advance(time.Minute)
			if lag := sh.Lag(); lag != tc.wantLag {
				t.Errorf("Lag %v, want %v", lag, tc.wantLag)
			}
		})
	}
}

// refusingBucket is a Memory bucket that refuses to create the objects
// whose keys refuses holds (nil: none).
type refusingBucket struct {
	*bucket.Memory
	refuses func(key string) bool
}

func (b *refusingBucket) Create(ctx context.Context, key string, data []byte) error {
	if b.refuses != nil && b.refuses(key) {
		return fmt.Errorf("create %s: refused", key)
	}
	return b.Memory.Create(ctx, key, data)
}

// TestRoundLeft: a round ships the sealed segments in order and stops at
// the first that cannot go yet (a run in flight) or fails, and says how
// many are left: that one and those after it.
func TestRoundLeft(t *testing.T) {
	tests := []struct {
		name           string
		firstInFlight  bool // the run of the first segment is not finished
		secondInFlight bool // the run of the second segment is not finished
		refuseSecond   bool // the bucket refuses the second segment's object
		wantLeft       int
		wantObjects    int
		wantErr        bool
	}{
		{name: "both ship", wantLeft: 0, wantObjects: 2},
		{name: "the first holds a run in flight", firstInFlight: true,
			wantLeft: 2, wantObjects: 0},
		{name: "the second holds a run in flight", secondInFlight: true,
			wantLeft: 1, wantObjects: 1},
		{name: "the bucket refuses the second", refuseSecond: true,
			wantLeft: 1, wantObjects: 1, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, err := receipt.OpenStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			b := &refusingBucket{Memory: bucket.NewMemory()}
			sh := start(t, store, b, "r1")
			if tc.refuseSecond {
				b.refuses = func(key string) bool { return key == sh.Key(2) }
			}
			for i, inFlight := range []bool{tc.firstInFlight, tc.secondInFlight} {
				rec := newRun("acme")
				if err := store.Reserve(rec); err != nil {
					t.Fatal(err)
				}
				if inFlight {
					t.Cleanup(func() { finish(store, rec) }) // before the Shipper's Close
				} else {
					finish(store, rec)
				}
				if i == 0 {
					if _, err := store.Journal().Seal(); err != nil {
						t.Fatal(err)
					}
				}
			}
			left, err := sh.round(context.Background())
			if left != tc.wantLeft || (err != nil) != tc.wantErr {
				t.Errorf("round: left %d, %v; want left %d, failed %v",
					left, err, tc.wantLeft, tc.wantErr)
			}
			if n := sh.Objects(); n != tc.wantObjects {
				t.Errorf("%d objects written, want %d", n, tc.wantObjects)
			}
		})
	}
}

// TestReaderRefreshEvery: a receipt whose run id is of the earlier form,
// shipped since a Reader last listed the bucket, is not found until
// refreshEvery has passed since that listing, and is found once it has;
// one whose run id names its process is found at once, through its
// locators.
func TestReaderRefreshEvery(t *testing.T) {
	tests := []struct {
		name      string
		legacy    bool          // the run id is of the earlier form
		after     time.Duration // since the listing of the first miss
		wantFound bool
	}{
		{name: "at once", legacy: true, after: 0, wantFound: false},
		{name: "a moment short of refreshEvery", legacy: true, after: refreshEvery - time.Nanosecond,
			wantFound: false},
		{name: "refreshEvery after", legacy: true, after: refreshEvery, wantFound: true},
		{name: "an hour after", legacy: true, after: time.Hour, wantFound: true},
		{name: "a run id naming its process, at once", after: 0, wantFound: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store, b, sh := shipping(t)
			c := newClock()
			r := NewReader(b)
			r.now = c.now
			rec := newRun("acme")
			if tc.legacy {
				rec = newLegacyRun("acme")
			}
			if _, err := r.Find(ctx, "acme", rec.RunID); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a run not shipped yet: %v, want not found", err)
			}
			if err := store.Reserve(rec); err != nil {
				t.Fatal(err)
			}
			finish(store, rec)
			if left, err := sh.round(ctx); err != nil || left != 0 {
				t.Fatalf("round: left %d, %v", left, err)
			}
			c.advance(tc.after)
			_, err := r.Find(ctx, "acme", rec.RunID)
			if found := err == nil; found != tc.wantFound {
				t.Errorf("found %v (%v), want %v", found, err, tc.wantFound)
			}
		})
	}
}
