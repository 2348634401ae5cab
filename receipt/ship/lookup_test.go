package ship

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/receipt"
)

// perSegment is how many receipts each object of a fleetBucket holds.
const perSegment = 2

// fleetBucket is a bucket that holds the objects of a fleet without
// keeping them: replicas replicas, each one process and one journal,
// each shipping one segment a second (DefaultEvery) for segments
// seconds, perSegment receipts in each, with their locators. Each object
// is made when it is read, each listing when it is asked for, so that a
// day of a thousand replicas (86.4 million objects) is held in no
// memory. Replica r's receipts are tenant acme's for even r, beta's for
// odd. It counts the calls asked of it and the bytes they return.
type fleetBucket struct {
	replicas, segments int
	legacy             bool  // run ids of the earlier form, every object under LegacyPrefix
	start              int64 // the time of the first segment's first run id, in ms
	template           receipt.Receipt

	mu           sync.Mutex
	lists, reads int
	bytes        int64 // listed keys' and read bytes
}

func newFleetBucket(replicas, segments int, legacy bool) *fleetBucket {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	return &fleetBucket{replicas: replicas, segments: segments, legacy: legacy, start: start,
		template: *newRun("")}
}

// calls is how many calls were asked of f, and the bytes they returned.
func (f *fleetBucket) calls() (int, int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lists + f.reads, f.bytes
}

func (f *fleetBucket) rest(r int) string { return fmt.Sprintf("r%04d/%016x/", r, r) }

// ms is the time of receipt j of segment n, in ms.
func (f *fleetBucket) ms(n, j int) int64 { return f.start + int64(n-1)*1000 + int64(j)*400 }

// runID is the run id of receipt j of replica r's segment n.
func (f *fleetBucket) runID(r, n, j int) string {
	random := fmt.Sprintf("%016x", uint64(r)<<40|uint64(n)<<8|uint64(j))
	if f.legacy {
		return random
	}
	return fmt.Sprintf("%s%08x%012x", random, r+1, f.ms(n, j))
}

func (f *fleetBucket) tenant(r int) string { return []string{"acme", "beta"}[r%2] }

// object is replica r's segment n: its key, bytes and locators.
func (f *fleetBucket) object(r, n int) (string, []byte, []string, error) {
	var keys []string
	var payloads [][]byte
	for j := range perSegment {
		rec := f.template
		rec.RunID, rec.Tenant = f.runID(r, n, j), f.tenant(r)
		rec.Timings.Started = time.UnixMilli(f.ms(n, j)).UTC()
		payload, err := json.Marshal(&rec)
		if err != nil {
			return "", nil, nil, err
		}
		keys, payloads = append(keys, rec.Key()), append(payloads, payload)
	}
	obj, err := encodeObject(fmt.Sprintf("r%04d", r), n, keys, payloads)
	if err != nil {
		return "", nil, nil, err
	}
	idx, _, err := parseObjectIndex(obj)
	if err != nil {
		return "", nil, nil, err
	}
	key, locators := placeObject(f.rest(r), n, idx)
	return key, obj, locators, nil
}

func (f *fleetBucket) Create(ctx context.Context, key string, data []byte) error {
	return errors.New("a fleetBucket is read only")
}

func (f *fleetBucket) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	f.mu.Lock()
	f.reads++
	f.mu.Unlock()
	notExist := &fs.PathError{Op: "read", Path: key, Err: fs.ErrNotExist}
	if !objectKeyOK(key) {
		return nil, notExist
	}
	parts := strings.Split(key, "/")
	r, err1 := strconv.Atoi(strings.TrimPrefix(parts[1], "r"))
	seg, ok := segmentOfKey(parts[3])
	if err1 != nil || !ok || r < 0 || r >= f.replicas || seg < 1 || seg > f.segments {
		return nil, notExist
	}
	k, obj, _, err := f.object(r, seg)
	if err != nil {
		return nil, err
	}
	if k != key {
		return nil, notExist
	}
	if off < 0 || off > int64(len(obj)) {
		return nil, nil
	}
	end := int64(len(obj))
	if n >= 0 && off+n < end {
		end = off + n
	}
	f.mu.Lock()
	f.bytes += end - off
	f.mu.Unlock()
	return obj[off:end], nil
}

// maxListed bounds a listing of every object: today's way over a day of a
// thousand replicas is counted, not listed.
const maxListed = 1 << 20

func (f *fleetBucket) List(ctx context.Context, prefix string) ([]string, error) {
	f.mu.Lock()
	f.lists++
	f.mu.Unlock()
	var keys []string
	add := func(k string) {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	if rest, ok := strings.CutPrefix(prefix, LocatorPrefix); ok {
		// The objects whose run ids lie in the window: the process's
		// replica, and the segments of those seconds.
		origin, window, _ := strings.Cut(rest, "/")
		o, err1 := strconv.ParseUint(origin, 16, 32)
		w, err2 := strconv.ParseInt(strings.TrimSuffix(window, "/"), 16, 64)
		r := int(o) - 1
		if err1 == nil && err2 == nil && r >= 0 && r < f.replicas && !f.legacy {
			lo := int((w<<windowShift-f.start)/1000) - 1
			hi := int(((w+1)<<windowShift-f.start)/1000) + 1
			for n := max(lo, 1); n <= min(hi, f.segments); n++ {
				_, _, locators, err := f.object(r, n)
				if err != nil {
					return nil, err
				}
				for _, l := range locators {
					add(l)
				}
			}
		}
	} else {
		if f.replicas*f.segments > maxListed {
			return nil, fmt.Errorf("a listing of %d objects", f.replicas*f.segments)
		}
		for r := range f.replicas {
			for n := 1; n <= f.segments; n++ {
				p := Prefix
				if f.legacy {
					p = LegacyPrefix
				}
				add(objectKey(p, f.rest(r), n))
			}
		}
	}
	f.mu.Lock()
	for _, k := range keys {
		f.bytes += int64(len(k))
	}
	f.mu.Unlock()
	return keys, nil
}

func (f *fleetBucket) Close() error { return nil }

// lookup finds the run id of receipt j of replica r's segment n as
// tenant, in a Reader made for it (the Reader of a replica that has not
// looked up before), and returns the calls and bytes it took.
func lookup(t testing.TB, f *fleetBucket, tenant string, r, n, j int) (calls int, bytes int64,
	err error) {
	id := f.runID(r, n, j)
	c0, b0 := f.calls()
	rec, err := NewReader(f).Find(context.Background(), tenant, id)
	c1, b1 := f.calls()
	if err == nil && (rec.RunID != id || rec.Tenant != f.tenant(r)) {
		t.Fatalf("Find(%s) = the receipt of %s, %s's", id, rec.RunID, rec.Tenant)
	}
	return c1 - c0, b1 - b0, err
}

// TestLookupBounded: a run id that names its process is found in three
// calls to the bucket (one list of its locators, one index, one record),
// whether ten replicas or a thousand share it, for a minute or a day,
// for any replica and second; today's way (run ids of the earlier form)
// takes a call for every object in the bucket. A tenant finds its own
// runs, whichever replica ran them, and not another tenant's.
func TestLookupBounded(t *testing.T) {
	const wantCalls = 3
	day := int(24 * time.Hour / DefaultEvery)
	for _, tc := range []struct {
		name               string
		replicas, segments int
	}{
		{name: "10 replicas, a minute", replicas: 10, segments: 60},
		{name: "1000 replicas, a minute", replicas: 1000, segments: 60},
		{name: "10 replicas, a day", replicas: 10, segments: day},
		{name: "1000 replicas, a day", replicas: 1000, segments: day},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleetBucket(tc.replicas, tc.segments, false)
			for _, at := range [][3]int{{0, 1, 0}, {tc.replicas / 2, tc.segments / 2, 1},
				{tc.replicas - 1, tc.segments, 1}, {tc.replicas - 2, tc.segments - 1, 0}} {
				r, n, j := at[0], at[1], at[2]
				calls, bytes, err := lookup(t, f, f.tenant(r), r, n, j)
				if err != nil || calls != wantCalls {
					t.Errorf("replica %d segment %d receipt %d as %s: %v in %d calls, want found in %d",
						r, n, j, f.tenant(r), err, calls, wantCalls)
				}
				if bytes > 64<<10 {
					t.Errorf("replica %d segment %d: %d bytes read, want at most 64 KiB", r, n, bytes)
				}
				other := f.tenant(r + 1)
				if _, _, err := lookup(t, f, other, r, n, j); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("replica %d's run (%s's) as %s: %v, want not found", r, f.tenant(r), other, err)
				}
				if _, _, err := lookup(t, f, AnyTenant, r, n, j); err != nil {
					t.Errorf("replica %d's run as the operator: %v", r, err)
				}
			}
			// An id of the form whose process shipped nothing: one list.
			id := strings.Repeat("0", 16) + "ffffffff" + fmt.Sprintf("%012x", f.start)
			c0, _ := f.calls()
			if _, err := NewReader(f).Find(context.Background(), "acme", id); !errors.Is(err,
				fs.ErrNotExist) {
				t.Errorf("a run of no process: %v, want not found", err)
			}
			if c1, _ := f.calls(); c1-c0 != 1 {
				t.Errorf("a run of no process: %d calls, want 1", c1-c0)
			}
		})
	}
	for _, tc := range []struct {
		name               string
		replicas, segments int
	}{
		{name: "today's way, 10 replicas, a minute", replicas: 10, segments: 60},
		{name: "today's way, 100 replicas, a minute", replicas: 100, segments: 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleetBucket(tc.replicas, tc.segments, true)
			want := 2 + tc.replicas*tc.segments // a list, every index, the record
			calls, _, err := lookup(t, f, "acme", 0, tc.segments/2, 0)
			if err != nil || calls != want {
				t.Errorf("%v in %d calls, want found in %d", err, calls, want)
			}
		})
	}
}

// BenchmarkLookup: the calls to the bucket and the bytes they return for
// one lookup of a run id by a replica, with locators (placed) and today's
// way (legacy: a replica that has not listed the bucket lists every
// object and reads every index), over a fleet of replicas each shipping
// every second (DefaultEvery). Today's way over a day of a thousand
// replicas is 86.4 million objects: it is measured over a minute, and
// grows with the objects.
func BenchmarkLookup(b *testing.B) {
	day := int(24 * time.Hour / DefaultEvery)
	for _, bc := range []struct {
		name               string
		replicas, segments int
		legacy             bool
	}{
		{name: "placed/replicas=10/day", replicas: 10, segments: day},
		{name: "placed/replicas=1000/day", replicas: 1000, segments: day},
		{name: "placed/replicas=1000/minute", replicas: 1000, segments: 60},
		{name: "legacy/replicas=10/minute", replicas: 10, segments: 60, legacy: true},
		{name: "legacy/replicas=1000/minute", replicas: 1000, segments: 60, legacy: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := newFleetBucket(bc.replicas, bc.segments, bc.legacy)
			b.ReportAllocs()
			var calls int
			var bytes int64
			for i := 0; b.Loop(); i++ {
				r, n := (i*7919)%bc.replicas, 1+(i*104729)%bc.segments
				c, by, err := lookup(b, f, f.tenant(r), r, n, i%perSegment)
				if err != nil {
					b.Fatal(err)
				}
				calls, bytes = calls+c, bytes+by
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/lookup")
			b.ReportMetric(float64(bytes)/float64(b.N), "bytes/lookup")
		})
	}
}
