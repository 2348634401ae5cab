package ship

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/journal"
)

// AnyTenant, as the tenant of Find or All, reads every tenant's receipts:
// the operator's reading, on the command line.
const AnyTenant = "\x00any"

// MaxIndexed bounds the receipts a Reader keeps in its index of the
// objects under LegacyPrefix, whose run ids are of the earlier form (a
// receipt whose run id names its process is found through its locators,
// and never indexed): past it, the receipts of the objects it indexed
// first are forgotten, and Find answers for them as for runs that never
// were. Those objects stop growing in number once every process of the
// fleet makes run ids of the new form.
const MaxIndexed = 1 << 20

// lookupProbe is how much of an object a lookup reads first for its
// index; a larger index is read again whole.
const lookupProbe = 16 << 10

// refreshEvery is the least time between two listings of the bucket that
// a miss asks for.
const refreshEvery = 500 * time.Millisecond

// Reader reads the receipts in a bucket that Shippers wrote.
type Reader struct {
	b   bucket.Bucket
	max int

	now func() time.Time // the clock refreshEvery is measured by

	mu        sync.Mutex
	refresh   sync.Mutex // one listing at a time
	runs      map[string]place
	seen      map[string]int // for each journal under LegacyPrefix (REPLICA/JOURNAL/), its last segment read
	objects   []indexed      // those holding receipts, in the order they were indexed
	count     int            // receipts indexed
	refreshed time.Time
}

// place is where a receipt lies in the bucket.
type place struct {
	obj         string
	off, n      int64
	key, tenant string
}

// indexed is an object whose receipts are in the index.
type indexed struct {
	key  string
	runs []string
}

// NewReader is a Reader of b, each of its calls to b bounded by
// DefaultCallTimeout.
func NewReader(b bucket.Bucket) *Reader {
	return &Reader{b: bucket.WithTimeout(b, DefaultCallTimeout), max: MaxIndexed, now: time.Now,
		runs: map[string]place{}, seen: map[string]int{}}
}

// Find returns the receipt of run id when tenant's clients asked for it
// (AnyTenant: whoever did), as it was shipped; a receipt of another
// tenant is not found, as a run that never was. A run id that names its
// process and time (receipt.RunIDOrigin) is found through its locators:
// one list, the index of each object they name whose times hold the
// id's (one, most often; at most maxCandidates), and one ranged read,
// however many replicas share the bucket and however long they have; a
// receipt is found as soon as it is shipped, and nothing is kept between
// lookups. A run id of the earlier form is looked up in the Reader's
// index of the objects under LegacyPrefix; a receipt shipped since the
// last listing is found by listing them again, at most every
// refreshEvery.
func (r *Reader) Find(ctx context.Context, tenant, id string) (*receipt.Receipt, error) {
	notFound := codes.Errorf(codes.E317, "no receipt %s in the receipts bucket: %w",
		codes.TerminalSafe(id), fs.ErrNotExist)
	if !receipt.ValidRunID(id) {
		return nil, notFound
	}
	if origin, ms, ok := receipt.RunIDOrigin(id); ok {
		return r.findPlaced(ctx, tenant, id, origin, ms, notFound)
	}
	p, ok := r.lookup(id)
	if !ok {
		if err := r.update(ctx, false); err != nil {
			return nil, err
		}
		if p, ok = r.lookup(id); !ok {
			return nil, notFound
		}
	}
	return r.read(ctx, tenant, id, p, notFound)
}

// findPlaced finds the receipt of run id, made by origin at ms, through
// its locators.
func (r *Reader) findPlaced(ctx context.Context, tenant, id, origin string, ms int64,
	notFound error) (*receipt.Receipt, error) {
	prefix := locatorsOf(origin, ms)
	keys, err := r.b.List(ctx, prefix)
	if err != nil {
		return nil, codes.Errorf(codes.E317, "list the receipts bucket's locators of %s: %w", id, err)
	}
	var cands []locator
	for _, k := range keys {
		if l, ok := parseLocator(strings.TrimPrefix(k, prefix)); ok && l.first <= ms && ms <= l.last {
			cands = append(cands, l)
		}
	}
	// The narrowest first: an object of runs made within a second of each
	// other before one that holds a long run made a minute before.
	sort.SliceStable(cands, func(i, j int) bool {
		return cands[i].last-cands[i].first < cands[j].last-cands[j].first
	})
	// An object that is not one a Shipper wrote (anyone may write to the
	// bucket), or names the run and holds another's receipt or another
	// tenant's, is passed over: the receipt may lie in the next. When none
	// holds it, the first object not one a Shipper wrote is what the lookup
	// says.
	var passed error
	for i, l := range cands {
		if i == maxCandidates {
			return nil, codes.Errorf(codes.E317, "find receipt %s: %d objects of the receipts bucket "+
				"may hold it, past the %d a lookup reads: %w", id, len(cands), maxCandidates,
				fs.ErrNotExist)
		}
		idx, base, err := readIndexProbe(ctx, r.b, l.object, lookupProbe)
		switch {
		case errors.Is(err, bucket.ErrNotExist):
			continue // its locators written, the object not yet: not shipped
		case errors.Is(err, errNotAnObject):
			passed = firstErr(passed, err)
			continue
		case err != nil:
			return nil, codes.Errorf(codes.E317, "read the receipts bucket: %w", err)
		}
		for _, e := range idx.Receipts {
			if got, ok := receipt.RunIDOfKey(e.Key); ok && got == id && e.Off >= 0 && e.Len > 0 {
				p := place{obj: l.object, off: base + e.Off, n: e.Len, key: e.Key, tenant: e.Tenant}
				rec, err := r.read(ctx, tenant, id, p, notFound)
				switch {
				case errors.Is(err, errNotAnObject):
					passed = firstErr(passed, err)
				case err != notFound:
					return rec, err
				}
				break // the next object
			}
		}
	}
	if passed != nil {
		return nil, codes.Errorf(codes.E317, "read the receipts bucket: %w", passed)
	}
	return nil, notFound
}

// firstErr is first, or err when there is none.
func firstErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// read reads the receipt of run id at p, when tenant may read it.
func (r *Reader) read(ctx context.Context, tenant, id string, p place,
	notFound error) (*receipt.Receipt, error) {
	if tenant != AnyTenant && p.tenant != tenant {
		return nil, notFound
	}
	data, err := r.b.Read(ctx, p.obj, p.off, p.n)
	if err != nil {
		return nil, codes.Errorf(codes.E317, "read receipt %s from %s: %w", id, p.obj, err)
	}
	var rec *receipt.Receipt
	_, err = journal.ScanBytes(data, func(key string, payload []byte, off, n int64) error {
		if off != 0 || n != p.n || key != p.key {
			return fmt.Errorf("%s holds %q at %d where its index says %q", p.obj, key, p.off+off, p.key)
		}
		var perr error
		rec, perr = receipt.Parse(p.obj+"#"+key, payload)
		return perr
	})
	if err == nil && rec == nil {
		err = fmt.Errorf("%s holds no whole record at %d where its index places %s", p.obj, p.off, p.key)
	}
	if err != nil {
		return nil, codes.Errorf(codes.E317, "read receipt %s: %w", id, notAnObject{err})
	}
	if rec.RunID != id || (tenant != AnyTenant && rec.Tenant != tenant) {
		return nil, notFound
	}
	return rec, nil
}

// Refresh lists the objects under LegacyPrefix now and indexes those
// shipped since the last listing.
func (r *Reader) Refresh(ctx context.Context) error { return r.update(ctx, true) }

func (r *Reader) lookup(id string) (place, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.runs[id]
	return p, ok
}

// update lists the objects under LegacyPrefix and indexes those not
// indexed yet; unless forced, not again within refreshEvery of the last
// listing.
func (r *Reader) update(ctx context.Context, force bool) error {
	r.refresh.Lock()
	defer r.refresh.Unlock()
	r.mu.Lock()
	recent := r.now().Sub(r.refreshed) < refreshEvery
	r.mu.Unlock()
	if recent && !force {
		return nil
	}
	keys, err := r.b.List(ctx, LegacyPrefix)
	if err != nil {
		return codes.Errorf(codes.E317, "list the receipts bucket: %w", err)
	}
	// A journal's segments are shipped in order, and listed in order: what
	// was read of each is the number of its last segment read, one number
	// a journal, whatever the number of its objects.
	for _, key := range keys {
		if !objectKeyOK(key) {
			continue // not an object a Shipper writes
		}
		rest := strings.TrimPrefix(key, LegacyPrefix)
		cut := strings.LastIndexByte(rest, '/') + 1
		journal := rest[:cut]
		n, _ := segmentOfKey(rest[cut:])
		r.mu.Lock()
		seen := n <= r.seen[journal]
		r.mu.Unlock()
		if seen {
			continue
		}
		idx, base, err := readIndexBase(ctx, r.b, key)
		switch {
		case errors.Is(err, errNotAnObject):
			// Not one a Shipper wrote: passed over, and not read again.
		case err != nil:
			return codes.Errorf(codes.E317, "read the receipts bucket: %w", err)
		default:
			r.add(key, idx, base)
		}
		r.mu.Lock()
		r.seen[journal] = n
		r.mu.Unlock()
	}
	r.mu.Lock()
	r.refreshed = r.now()
	r.mu.Unlock()
	return nil
}

// add puts the receipts of object key whose run ids are of the earlier
// form in the index, forgetting the oldest objects' past r.max.
func (r *Reader) add(key string, idx indexJSON, base int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	obj := indexed{key: key}
	for _, e := range idx.Receipts {
		id, ok := receipt.RunIDOfKey(e.Key)
		if !ok || placed(id) || e.Off < 0 || e.Len <= 0 {
			continue
		}
		r.runs[id] = place{obj: key, off: base + e.Off, n: e.Len, key: e.Key, tenant: e.Tenant}
		obj.runs = append(obj.runs, id)
	}
	if len(obj.runs) == 0 {
		return
	}
	r.objects = append(r.objects, obj)
	r.count += len(obj.runs)
	for r.count > r.max && len(r.objects) > 1 {
		old := r.objects[0]
		r.objects = r.objects[1:]
		for _, id := range old.runs {
			if r.runs[id].obj == old.key {
				delete(r.runs, id)
			}
		}
		r.count -= len(old.runs)
	}
}

// All reads every receipt in the bucket of tenant (AnyTenant: of every
// tenant), whole objects at a time, oldest first by start: what sabline
// receipts list shows. Objects that cannot be read are named in skipped,
// and so are records that are not a receipt, or are another run's
// receipt than the run their key names.
func (r *Reader) All(ctx context.Context,
	tenant string) (runs []receipt.StoredReceipt, skipped []receipt.SkippedFile, err error) {
	var keys []string
	for _, prefix := range []string{LegacyPrefix, Prefix} {
		more, err := r.b.List(ctx, prefix)
		if err != nil {
			return nil, nil, codes.Errorf(codes.E317, "list the receipts bucket: %w", err)
		}
		keys = append(keys, more...)
	}
	for _, key := range keys {
		data, err := r.b.Read(ctx, key, 0, -1)
		if err != nil {
			skipped = append(skipped, receipt.SkippedFile{Path: key, Why: err.Error()})
			continue
		}
		rep, _ := journal.ScanBytes(data, func(k string, payload []byte, off, _ int64) error {
			if k == indexKey && off == 0 {
				return nil
			}
			name := key + "#" + k
			rec, err := receipt.Parse(name, payload)
			if err != nil {
				skipped = append(skipped, receipt.SkippedFile{Path: name, Why: err.Error()})
				return nil
			}
			if id, ok := receipt.RunIDOfKey(k); ok && id != rec.RunID {
				// Another run's receipt under this run's name (planted in a
				// journal shipped, or written over): neither run's receipt.
				skipped = append(skipped, receipt.SkippedFile{Path: name, Why: fmt.Sprintf(
					"not a receipt: its name is run %s's, its content run %s's", id,
					codes.TerminalSafe(codes.Clip(rec.RunID, 64)))})
				return nil
			}
			if tenant == AnyTenant || rec.Tenant == tenant {
				runs = append(runs, receipt.StoredReceipt{Path: name, Receipt: rec})
			}
			return nil
		})
		for _, d := range rep.Damage {
			skipped = append(skipped, receipt.SkippedFile{Path: key, Why: d.String()})
		}
	}
	sort.SliceStable(runs,
		func(i, j int) bool { return runs[i].Timings.Started.Before(runs[j].Timings.Started) })
	return runs, skipped, nil
}
