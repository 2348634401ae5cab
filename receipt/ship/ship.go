// Package ship copies a server's receipts from its journal to a bucket
// that a fleet of replicas shares, and reads them back from there, so
// that any replica answers for any run. The journal stays the commit
// point: a receipt is kept once its record is appended, and shipped
// afterwards. A Shipper seals the journal's segment at a steady pace
// (journal.Seal) and writes each sealed segment once, with a create-only
// write, as one object under a key that names the replica that first
// shipped the journal (whoever ships it after goes on under the same
// keys), the journal and the segment: replicas never write the same key
// for two segments, and a replica that ships a segment again after a
// crash, or takes the journal of one killed while it wrote an object,
// finds the object there and writes nothing. A segment's object holds each receipt whose last record lies
// in that segment (a receipt reserved in one segment and finished in the
// next is shipped once, finished), after an index record that names
// each receipt's run id, tenant and place in the object; a segment
// holding a receipt whose run is still in flight waits for it. Each
// process keeps its receipts in a journal of its own, locked for its
// life (receipt.Store): the Shipper also ships, whole, every other
// journal of the receipts directory whose lock it can take (its process
// ended, or died: a run it left in flight is shipped unfinished), and
// lists in Status those whose processes still run. Every call to the
// bucket has a deadline (Options.CallTimeout), and a Shipper starts
// while its bucket is down, shipping once it answers.
//
// A run id names the process that made it and the time (receipt.
// RunIDOrigin), and each object is written after its locators: empty
// objects whose keys name the object, the process and the window of
// time its run ids come from (LocatorPrefix). A Reader finds a run's
// receipt with one list of its locators, one read of an index, and one
// ranged read, for its tenant only, however many replicas share the
// bucket and for however long, and keeps nothing between lookups. A run
// id of the earlier form (16 random digits) names no process: its
// receipt lies in an object under LegacyPrefix, which a Reader lists and
// keeps the indexes of in memory (bounded by MaxIndexed), as every
// object was read before.
package ship

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/journal"
)

// Prefix begins the key of every object a Shipper writes whose receipts
// all have run ids that name their process and time (receipt.RunIDOrigin):
// receipts/REPLICA/JOURNAL/NNNNNNNN.journal. Each is found through its
// locators (LocatorPrefix).
const Prefix = "receipts/"

// LegacyPrefix begins the key of every object a Shipper writes that
// holds a receipt whose run id is of the earlier form (16 random digits,
// naming no process): segments/REPLICA/JOURNAL/NNNNNNNN.journal, as every
// object was before run ids named their process. Such a receipt is found
// by listing the objects under it (Reader.Find): a set that no longer
// grows once every process of the fleet makes run ids of the new form.
const LegacyPrefix = "segments/"

// indexKey is the key of an object's first record, its index.
const indexKey = "index"

// idFile, in the journal's directory, names the journal for the keys of
// its objects: a journal made again (a disk replaced) under the same
// replica id ships under new keys, never onto its predecessor's.
const idFile = "ship.id"

// DefaultEvery is how often a Shipper seals and ships by default.
const DefaultEvery = time.Second

// DefaultCallTimeout bounds each call a Shipper or Reader makes to the
// bucket by default.
const DefaultCallTimeout = 30 * time.Second

// Options are a Shipper's settings.
type Options struct {
	// Replica names this replica in the fleet: 1 to 63 lower-case
	// letters, digits and '-', unique among the replicas that share the
	// bucket (ValidReplica).
	Replica string
	// Every is how often the journal is sealed and what was sealed
	// shipped (DefaultEvery when 0).
	Every time.Duration
	// Logf, when set, is told of each failure to ship.
	Logf func(format string, args ...any)
	// CallTimeout bounds each call to the bucket (DefaultCallTimeout
	// when 0): a store that hangs fails the call, and the round, instead
	// of holding the Shipper.
	CallTimeout time.Duration
	// now is the clock the lag is measured by: time.Now, or a test's.
	now func() time.Time
}

// ValidReplica reports whether id can name a replica: 1 to 63 lower-case
// letters, digits and '-', beginning with a letter or digit (a DNS
// label, as a pod's name is).
func ValidReplica(id string) bool {
	if id == "" || len(id) > 63 || id[0] == '-' {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Shipper ships the sealed segments of one store's journal to a bucket.
// Its owner starts it (Start) and ends it (Close).
type Shipper struct {
	store *receipt.Store
	dir   string // the journal's directory
	b     bucket.Bucket
	o     Options
	id    string // the journal's id (journalID)

	mu         sync.Mutex
	rest       string            // the journal's keys after Prefix or LegacyPrefix (keysOf)
	listed     bool              // shipped was read from the bucket
	shipped    int               // every segment up to this one is in the bucket
	since      map[int]time.Time // for each segment not shipped: when it began to take records
	err        error             // the last round's failure, nil once a round ships
	objects    int               // objects written by this Shipper
	locators   int               // locators written by this Shipper (or found there)
	collisions int               // objects found under a key with other receipts
	lastOK     time.Time         // when a round last ended with everything sealed shipped
	others     map[string]*other // the journals of other processes, by directory
	live       []LiveJournal     // those whose owners were alive at the last round
	// ownLock is the ship lock of the store's own journal (shipLockFile),
	// held from when this Shipper took it until Close: another Shipper on
	// the receipts directory (a replica beside this one) finds the journal
	// shipped elsewhere and leaves it, as it leaves a live process's
	// journal another replica ships. Until it is taken, the one that holds
	// it ships this journal (as a live process's), marking how far in it
	// (doneFile), and this Shipper ships none of it.
	ownLock *journal.Lock

	stop     chan struct{}
	stopOnce sync.Once
	started  chan struct{} // closed when the round Start begins with is over
	done     chan struct{}
}

// Start starts shipping the store's journal: at once (in a round of its
// own, which Start does not wait for) what an earlier life of this
// replica left unshipped, then every o.Every.
func Start(store *receipt.Store, b bucket.Bucket, o Options) (*Shipper, error) {
	if !ValidReplica(o.Replica) {
		return nil, fmt.Errorf("ship: replica id %q: want 1 to 63 lower-case letters, digits and '-'",
			o.Replica)
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	dir := store.Journal().Dir()
	id, err := journalID(dir)
	if err != nil {
		return nil, err
	}
	s := &Shipper{
		store:   store,
		dir:     dir,
		b:       bucket.WithTimeout(b, o.CallTimeout),
		o:       o,
		id:      id,
		rest:    o.Replica + "/" + id + "/",
		since:   map[int]time.Time{},
		others:  map[string]*other{},
		stop:    make(chan struct{}),
		started: make(chan struct{}),
		done:    make(chan struct{}),
	}
	// The journal is this Shipper's to ship from now on: taken here, so
	// that no other Shipper on the directory takes it meanwhile (else at a
	// round, once the one that holds it lets it go).
	if _, err := s.holdOwn(); err != nil {
		return nil, err
	}
	// What is in the journal now began before this start: its age counts
	// from here.
	now := o.now()
	nums, err := journal.Segments(dir)
	if err != nil {
		return nil, fmt.Errorf("ship: %w", err)
	}
	for _, n := range nums {
		s.since[n] = now
	}
	// The store is first asked by the first round, in the loop: a store
	// that is down, or hangs, does not hold the start. The replica serves
	// from its journal meanwhile, and each round tries the store again
	// (Status says what lags, and why: not reached, until a list answers).
	go s.loop()
	return s, nil
}

// list reads from the bucket which segments of the journal this replica
// shipped before, once.
func (s *Shipper) list(ctx context.Context) error {
	s.mu.Lock()
	listed := s.listed
	s.mu.Unlock()
	if listed {
		return nil
	}
	rest, err := keysOf(s.dir, s.id, s.o.Replica)
	if err != nil {
		return err
	}
	n, err := shippedIn(ctx, s.b, rest)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.rest = rest
	s.listed, s.shipped = true, max(s.shipped, n)
	for m := range s.since {
		if m <= s.shipped {
			delete(s.since, m)
		}
	}
	s.mu.Unlock()
	return nil
}

// shippedIn is the largest segment number of a journal in the bucket,
// under Prefix+rest or LegacyPrefix+rest.
func shippedIn(ctx context.Context, b bucket.Bucket, rest string) (int, error) {
	shipped := 0
	for _, prefix := range []string{Prefix + rest, LegacyPrefix + rest} {
		keys, err := b.List(ctx, prefix)
		if err != nil {
			return 0, fmt.Errorf("ship: list %s in the bucket: %w", prefix, err)
		}
		for _, k := range keys {
			if n, ok := segmentOfKey(strings.TrimPrefix(k, prefix)); ok {
				shipped = max(shipped, n)
			}
		}
	}
	return shipped, nil
}

// journalID reads the id of the journal in dir, making it the first time.
func journalID(dir string) (string, error) {
	p := filepath.Join(dir, idFile)
	data, err := journal.ReadRegular(p, maxIDBytes)
	switch {
	case err == nil || errors.Is(err, journal.ErrFileTooLarge):
		id := strings.TrimSpace(string(data))
		if len(id) == 16 && receipt.ValidRunID(id) {
			return id, nil
		}
		return "", fmt.Errorf("ship: %s does not hold a journal id (16 hexadecimal digits): remove it "+
			"to make a new one", p)
	case !errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("ship: %w", err)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("ship: %w", err)
	}
	id := hex.EncodeToString(b[:])
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("ship: %w", err)
	}
	_, err = f.WriteString(id + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("ship: %w", err)
	}
	return id, nil
}

// maxIDBytes bounds what journalID reads of an idFile.
const maxIDBytes = 64

// segmentOfKey is the segment number of an object's key after the
// Shipper's prefix: eight decimal digits, as objectKey writes them, and
// .journal; any other name (a sign, a space, a ninth digit) is no
// segment's, so that no two keys name one segment. A number below 1
// names no segment, and changes nothing where it is read: Start keeps
// the largest, and starts from 0.
func segmentOfKey(rest string) (int, bool) {
	num, ok := strings.CutSuffix(rest, ".journal")
	if !ok || len(num) != 8 || strings.Trim(num, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}

func (s *Shipper) loop() {
	defer close(s.done)
	t := time.NewTicker(s.o.Every)
	defer t.Stop()
	_, _ = s.round(context.Background())
	close(s.started)
	for {
		select {
		case <-t.C:
		case <-s.stop:
			return
		}
		_, _ = s.round(context.Background())
	}
}

// Close stops the pace, then seals and ships what is left, giving up
// when ctx is done, and returns why something was left unshipped.
func (s *Shipper) Close(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
	defer s.letGo()
	for {
		left, err := s.round(ctx)
		if err != nil || left == 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ship: %d segments left unshipped: %w", left, ctx.Err())
		case <-time.After(20 * time.Millisecond): // a run in flight, finishing
		}
	}
}

// letGo lets go of the locks of other processes' journals this Shipper
// holds: another Shipper on the directory goes on from their marks.
func (s *Shipper) letGo() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ownLock != nil {
		_ = s.ownLock.Unlock()
		s.ownLock = nil
	}
	for _, o := range s.others {
		for _, l := range []*journal.Lock{o.lock, o.shipLock} {
			_ = l.Unlock()
		}
		o.lock, o.shipLock = nil, nil
	}
}

// round seals the journal and ships each sealed segment not yet shipped,
// in order, stopping at the first that cannot go yet (a run in flight)
// or fails. left is how many sealed segments are not shipped, or -1
// when the journal cannot be sealed or listed.
func (s *Shipper) round(ctx context.Context) (left int, err error) {
	left, err = s.roundOwn(ctx)
	if oerr := s.roundOthers(ctx); err == nil && oerr != nil {
		left, err = -1, oerr
	}
	if err == nil && left == 0 {
		s.mu.Lock()
		s.err, s.lastOK = nil, s.o.now()
		s.mu.Unlock()
	}
	return left, err
}

// roundOwn seals this process's journal and ships its sealed segments.
func (s *Shipper) roundOwn(ctx context.Context) (left int, err error) {
	now := s.o.now()
	sealed, err := s.store.Journal().Seal()
	if err != nil {
		return -1, s.failed(fmt.Errorf("ship: %w", err))
	}
	s.mu.Lock()
	// The segment appends go to now is new, or was empty: nothing in it
	// is older than this round.
	s.since[sealed+1] = now
	s.mu.Unlock()
	if held, err := s.holdOwn(); err != nil {
		return -1, s.failed(err)
	} else if !held {
		return 0, nil // another Shipper on the directory ships this journal, and marks it
	}
	if err := s.list(ctx); err != nil {
		return -1, s.failed(err)
	}
	nums, err := journal.Segments(s.dir)
	if err != nil {
		return -1, s.failed(fmt.Errorf("ship: %w", err))
	}
	var todo []int
	s.mu.Lock()
	rest := s.rest
	for _, n := range nums {
		if n > s.shipped && n <= sealed {
			todo = append(todo, n)
		}
	}
	s.mu.Unlock()
	for i, n := range todo {
		obj, ready, err := s.build(s.dir, n, nums, s.store.InFlight)
		if err != nil {
			return len(todo) - i, s.failed(err)
		}
		if !ready {
			return len(todo) - i, nil
		}
		if err := s.ship(ctx, rest, n, obj); err != nil {
			return len(todo) - i, s.failed(err)
		}
		s.mu.Lock()
		s.shipped = n
		delete(s.since, n)
		s.objects++
		s.mu.Unlock()
		s.store.Shipped(n) // the store may now let it go (receipt.Store.Prune)
		// Marked in the journal, as another process's is: a Shipper that
		// takes it once this process has ended, under another replica id
		// (a replica started again with a new name), goes on from here
		// rather than ship it again.
		if err := writeDone(s.dir, n); err != nil {
			s.o.Logf("%v", err)
		}
	}
	return 0, nil
}

// holdOwn takes the ship lock of the store's own journal when this
// Shipper does not hold it yet, and reports whether it holds it. Where
// another Shipper holds it (it took the journal as a live process's
// before this one started), that one ships the journal and marks how far
// (doneFile): what it marked is counted shipped here, and held is false.
func (s *Shipper) holdOwn() (held bool, err error) {
	s.mu.Lock()
	held = s.ownLock != nil
	s.mu.Unlock()
	if held {
		return true, nil
	}
	l, err := journal.TryLockName(s.dir, shipLockFile)
	switch {
	case err == nil:
		s.mu.Lock()
		s.ownLock = l
		s.mu.Unlock()
	case !errors.Is(err, journal.ErrLocked):
		return false, fmt.Errorf("ship: %w", err)
	}
	if n, ok := readDone(s.dir); ok {
		s.mu.Lock()
		s.shipped = max(s.shipped, n)
		for m := range s.since {
			if m <= s.shipped {
				delete(s.since, m)
			}
		}
		s.mu.Unlock()
		s.store.Shipped(n)
	}
	return err == nil, nil
}

func (s *Shipper) failed(err error) error {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	s.o.Logf("%v", err)
	return err
}

// put writes segment n's object once; an object already under its key is
// this replica's own from an earlier attempt when it holds the same
// receipts to its end (then nothing is written: heldEnd), and a fault
// otherwise. A write the store answered is read back (heldAfterWrite)
// before the segment counts as shipped: the journal lets a shipped
// segment go.
func (s *Shipper) put(ctx context.Context, key string, obj []byte) error {
	err := s.b.Create(ctx, key, obj)
	if err == nil {
		return heldAfterWrite(ctx, s.b, key, obj)
	}
	if !errors.Is(err, bucket.ErrExist) {
		return fmt.Errorf("ship: write %s: %w", key, err)
	}
	theirs, err := readIndex(ctx, s.b, key)
	if err != nil {
		return fmt.Errorf("ship: %s is in the bucket already, and its index cannot be read: %w", key, err)
	}
	ours, _, err := parseObjectIndex(obj)
	if err != nil {
		return err
	}
	if !sameReceipts(ours, theirs) {
		s.mu.Lock()
		s.collisions++
		s.mu.Unlock()
		return fmt.Errorf("ship: %s is in the bucket already with other receipts (a key collision, "+
			"left as it was): does another replica run with the id %s?", key, s.o.Replica)
	}
	// An earlier attempt's object that the store kept in part (its index
	// alone, say) holds the receipts in name only.
	return heldEnd(ctx, s.b, key, obj)
}

// heldAfterWrite reads back the index record of the object obj, which
// the store answered a write of under key, and its end (heldEnd): nil
// when it holds them as written. A store that answers a write without
// keeping it (a store, or a gateway before it, that answers 200 and drops
// the object, or keeps its start alone) would otherwise have the segment
// counted shipped, and let go from the journal by a store that keeps
// receipts until shipped (sabline serve's default with --receipts-url),
// its receipts then in neither place; left unshipped, the segment is
// written again at the next round.
func heldAfterWrite(ctx context.Context, b bucket.Bucket, key string, obj []byte) error {
	_, base, err := parseObjectIndex(obj)
	if err != nil {
		return err
	}
	if err := heldPart(ctx, b, key, obj, 0, base); err != nil {
		return err
	}
	return heldEnd(ctx, b, key, obj)
}

// heldTail is how many of an object's last bytes heldEnd reads back.
const heldTail = 64

// heldEnd reads back the last bytes of the object obj under key: a store
// that kept the object's start alone holds other bytes there, or none.
func heldEnd(ctx context.Context, b bucket.Bucket, key string, obj []byte) error {
	tail := min(int64(len(obj)), heldTail)
	return heldPart(ctx, b, key, obj, int64(len(obj))-tail, tail)
}

// heldPart reads back the n bytes at off of the object obj under key: nil
// when the store holds them as obj has them.
func heldPart(ctx context.Context, b bucket.Bucket, key string, obj []byte, off, n int64) error {
	want := obj[off : off+n]
	got, err := b.Read(ctx, key, off, n)
	switch {
	case errors.Is(err, bucket.ErrNotExist):
		return fmt.Errorf("ship: the store answered the write of %s, and does not hold it: left "+
			"unshipped, to be written again: %w", key, err)
	case err != nil:
		return fmt.Errorf("ship: read back %s, which the store answered written: %w", key, err)
	case !bytes.Equal(got, want):
		return fmt.Errorf("ship: the store answered the write of %s, and holds other bytes there "+
			"(%d at offset %d where %d were written): left unshipped", key, len(got), off, len(want))
	}
	return nil
}

// Key is the key of segment n's object when every run id in it names its
// process (under LegacyPrefix otherwise: objectKey).
func (s *Shipper) Key(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return objectKey(Prefix, s.rest, n)
}

// placeObject is the key of segment n's object, whose index is idx, of
// the journal rest names, and the keys of its locators.
func placeObject(rest string, n int, idx indexJSON) (key string, locators []string) {
	prefix := Prefix
	for _, e := range idx.Receipts {
		if id, ok := receipt.RunIDOfKey(e.Key); !ok || !placed(id) {
			prefix = LegacyPrefix
			break
		}
	}
	key = objectKey(prefix, rest, n)
	return key, locatorKeys(key, idx)
}

// objectKey is the key of segment n of the journal rest names, under
// prefix.
func objectKey(prefix, rest string, n int) string {
	return fmt.Sprintf("%s%s%08d.journal", prefix, rest, n)
}

// ship writes the locators of segment n's object, then the object: under
// Prefix when every run id in it names its process, under LegacyPrefix
// when one does not. The locators go first: a Shipper that stops between
// the two ships the segment again at its next start (it is not in the
// bucket), and finds its locators there; a locator whose object is not
// there yet is passed over by a Reader.
func (s *Shipper) ship(ctx context.Context, rest string, n int, obj []byte) error {
	idx, _, err := parseObjectIndex(obj)
	if err != nil {
		return err
	}
	key, locators := placeObject(rest, n, idx)
	for _, l := range locators {
		if err := s.b.Create(ctx, l, nil); err != nil && !errors.Is(err, bucket.ErrExist) {
			return fmt.Errorf("ship: write %s: %w", l, err)
		}
		s.mu.Lock()
		s.locators++
		s.mu.Unlock()
	}
	return s.put(ctx, key, obj)
}

// Lag is how long the oldest receipt not yet in the bucket has waited at
// most: the time since the oldest segment not shipped began to take
// records (since the Shipper started, for a segment it found there), or
// since the Shipper found the journal of a process that ended, not yet
// shipped whole. The journals of live processes beside it are not
// counted: Status lists them.
// With every sealed segment shipped, it is the time since the last
// round, less than Options.Every.
func (s *Shipper) Lag() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var oldest time.Time
	for n, t := range s.since {
		if n > s.shipped && (oldest.IsZero() || t.Before(oldest)) {
			oldest = t
		}
	}
	for _, o := range s.others {
		if !o.done && !o.since.IsZero() && (oldest.IsZero() || o.since.Before(oldest)) {
			oldest = o.since
		}
	}
	if oldest.IsZero() {
		return 0
	}
	return s.o.now().Sub(oldest)
}

// Err is why the last round shipped nothing, or nil.
func (s *Shipper) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Objects is how many objects this Shipper has written.
func (s *Shipper) Objects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.objects
}

// indexJSON is an object's index record.
type indexJSON struct {
	Replica  string       `json:"replica"`
	Segment  int          `json:"segment"`
	Receipts []indexEntry `json:"receipts"`
}

// indexEntry places one receipt in an object: its record lies Len bytes
// from Off, counted from the end of the index record.
type indexEntry struct {
	Key    string `json:"key"`
	Tenant string `json:"tenant,omitempty"`
	Off    int64  `json:"off"`
	Len    int64  `json:"len"`
}

// build makes segment n's object from the journal: ready is false when a
// receipt in it is still in flight here.
func (s *Shipper) build(dir string, n int, nums []int,
	inFlight func(string) bool) (obj []byte, ready bool, err error) {
	return s.buildWaiting(dir, n, nums, inFlight, nil)
}

// buildWaiting is build, and not ready either when waits holds for the
// last record of a receipt in segment n (nil: none waits).
func (s *Shipper) buildWaiting(dir string, n int, nums []int, inFlight func(string) bool,
	waits func(payload []byte) bool) (obj []byte, ready bool, err error) {
	var order []string
	last := map[string][]byte{}
	rep, err := journal.ScanSegment(dir, n, func(key string, payload []byte, _, _ int64) error {
		if _, seen := last[key]; !seen {
			order = append(order, key)
		}
		last[key] = append([]byte(nil), payload...)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("ship: read segment %d: %w", n, err)
	}
	for _, d := range rep.Damage {
		s.o.Logf("ship: %s segment %d: %s", dir, n, d)
	}
	// In flight is asked before the later segments are read: a receipt
	// finished after this question has its record there by then.
	for _, key := range order {
		if inFlight(key) {
			return nil, false, nil
		}
	}
	for _, m := range nums {
		if m <= n {
			continue
		}
		if _, err := journal.ScanSegment(dir, m, func(key string, _ []byte, _, _ int64) error {
			delete(last, key)
			return nil
		}); err != nil {
			return nil, false, fmt.Errorf("ship: read segment %d: %w", m, err)
		}
	}
	if waits != nil {
		for _, payload := range last {
			if waits(payload) {
				return nil, false, nil
			}
		}
	}
	var keys []string
	var payloads [][]byte
	for _, key := range order {
		if payload, ok := last[key]; ok { // else shipped with a later segment, finished there
			keys, payloads = append(keys, key), append(payloads, payload)
		}
	}
	obj, err = encodeObject(s.o.Replica, n, keys, payloads)
	if err != nil {
		return nil, false, err
	}
	return obj, true, nil
}

// encodeObject is the object of segment n of replica's: an index record
// naming each receipt's key, tenant and place, then each receipt's record.
func encodeObject(replica string, n int, keys []string, payloads [][]byte) ([]byte, error) {
	idx := indexJSON{Replica: replica, Segment: n, Receipts: []indexEntry{}}
	var body []byte
	var err error
	for i, key := range keys {
		payload := payloads[i]
		off := int64(len(body))
		if body, err = journal.AppendRecord(body, key, payload); err != nil {
			return nil, fmt.Errorf("ship: segment %d: %w", n, err)
		}
		var t struct {
			Tenant string `json:"tenant"`
		}
		_ = json.Unmarshal(payload, &t)
		idx.Receipts = append(idx.Receipts,
			indexEntry{Key: key, Tenant: t.Tenant, Off: off, Len: int64(len(body)) - off})
	}
	head, err := json.Marshal(idx)
	if err != nil {
		return nil, fmt.Errorf("ship: segment %d: %w", n, err)
	}
	obj, err := journal.AppendRecord(nil, indexKey, head)
	if err != nil {
		return nil, fmt.Errorf("ship: segment %d's index: %w", n, err)
	}
	return append(obj, body...), nil
}

// sameReceipts reports whether two indexes name the same receipts.
func sameReceipts(a, b indexJSON) bool {
	return slices.EqualFunc(a.Receipts, b.Receipts, func(x, y indexEntry) bool { return x == y })
}

// parseObjectIndex reads the index record at the start of data: the
// index, and the length of its record (where the receipts begin).
func parseObjectIndex(data []byte) (indexJSON, int64, error) {
	var idx indexJSON
	var base int64 // the index record's length; 0 until it is read (no record is empty)
	stop := errors.New("stop")
	_, err := journal.ScanBytes(data, func(key string, payload []byte, off, n int64) error {
		if off != 0 || key != indexKey {
			return fmt.Errorf("ship: an object begins with %q at offset %d, not its index", key, off)
		}
		if err := json.Unmarshal(payload, &idx); err != nil {
			return fmt.Errorf("ship: an object's index: %w", err)
		}
		base = n
		return stop
	})
	if err != nil && err != stop {
		return idx, 0, err
	}
	if base == 0 {
		return idx, 0, errors.New("ship: an object has no index record at its start")
	}
	return idx, base, nil
}

// indexProbe is how much of an object is read first for its index; a
// larger index is read again whole.
const indexProbe = 256 << 10

// readIndex reads the index of the object key.
func readIndex(ctx context.Context, b bucket.Bucket, key string) (indexJSON, error) {
	idx, _, err := readIndexBase(ctx, b, key)
	return idx, err
}

func readIndexBase(ctx context.Context, b bucket.Bucket, key string) (indexJSON, int64, error) {
	return readIndexProbe(ctx, b, key, indexProbe)
}

// readIndexProbe reads the index of the object key, and the length of its
// record: probe bytes first, and the whole record again when it is longer.
func readIndexProbe(ctx context.Context, b bucket.Bucket, key string,
	probe int64) (indexJSON, int64, error) {
	data, err := b.Read(ctx, key, 0, probe)
	if err != nil {
		return indexJSON{}, 0, err
	}
	if n := recordLen(data); n > int64(len(data)) && n <= bucket.MaxObjectBytes {
		if data, err = b.Read(ctx, key, 0, n); err != nil {
			return indexJSON{}, 0, err
		}
	}
	idx, base, err := parseObjectIndex(data)
	if err != nil {
		return idx, 0, fmt.Errorf("%s: %w", key, notAnObject{err})
	}
	return idx, base, nil
}

// errNotAnObject is wrapped by the error of an object read from the
// bucket that is not one a Shipper wrote (no index at its start, or no
// record where its index says): the store answered, and the object is
// someone else's, or damaged.
var errNotAnObject = errors.New("not an object of receipts")

// notAnObject is err, wrapping errNotAnObject too.
type notAnObject struct{ err error }

func (e notAnObject) Error() string   { return e.err.Error() }
func (e notAnObject) Unwrap() []error { return []error{e.err, errNotAnObject} }

// recordLen is the length a record header at the start of data claims
// (its key and payload lengths; ScanBytes checks the rest), or 0.
func recordLen(data []byte) int64 {
	if len(data) < 20 || !bytes.HasPrefix(data, []byte{0xFF, 'S', 'b', 'J'}) {
		return 0
	}
	k := int64(data[6]) | int64(data[7])<<8
	p := int64(data[8]) | int64(data[9])<<8 | int64(data[10])<<16 | int64(data[11])<<24
	return 20 + k + p
}
