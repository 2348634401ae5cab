package ship

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/journal"
)

// other is the journal of another process in the store's receipts
// directory: a pool process beside this one (sabline mcp, a
// sabline.Pool host), one that died, or the journal directory itself,
// where a Sabline from before kept receipts. Each process appends to a
// journal of its own and holds its lock while it lives.
//
// While its owner lives, the Shipper holds the journal's ship lock (no
// other Shipper on the directory ships it meanwhile), asks the owner to
// seal its segment (receipt.SealRequestFile), and ships each segment the
// owner has moved past, which it never appends to again: a segment
// waits while a receipt whose last record it holds is a skeleton (its
// run in flight; its finish goes to a later segment, and ships there).
// Once the Shipper takes the owner's lock, the owner has ended, every
// record is final, and the rest is shipped whole: a run the owner left
// in flight goes out unfinished.
type other struct {
	dir      string
	lock     *journal.Lock // the owner's, once it ended: held while shipping the rest
	shipLock *journal.Lock // held while the owner lives and this Shipper ships it
	rest     string        // its keys after Prefix or LegacyPrefix (keysOf)
	listed   bool
	shipped  int       // every segment up to this one is in the bucket
	since    time.Time // when this Shipper found it without a live owner
	done     bool      // shipped whole; its locks let go
}

// shipLockFile, in a journal's directory, is held by the Shipper that
// ships it while its owner lives.
const shipLockFile = "ship.lock"

// LiveJournal is the journal of another live process in the receipts
// directory: its receipts are shipped segment by segment as the owner
// seals them (it is asked to), and a receipt of a run in flight waits
// for its finish.
type LiveJournal struct {
	// Dir is the journal's directory.
	Dir string
	// Owner is what its owner wrote in its lock ("pid 1234"), or "".
	Owner string
	// Segments is how many of its segments are not shipped yet.
	Segments int
	// Elsewhere is set when another Shipper on the directory ships it.
	Elsewhere bool
}

// roundOthers ships the journals of other processes, and notes those
// that live processes own.
func (s *Shipper) roundOthers(ctx context.Context) error {
	dirs, err := receipt.JournalDirs(s.store.Dir())
	if err != nil {
		return s.failed(fmt.Errorf("ship: list the journals: %w", err))
	}
	var live []LiveJournal
	var first error
	for _, dir := range dirs {
		if filepath.Clean(dir) == filepath.Clean(s.dir) {
			continue
		}
		s.mu.Lock()
		o := s.others[dir]
		s.mu.Unlock()
		if o != nil && o.done {
			continue
		}
		nums, err := journal.Segments(dir)
		if err != nil {
			first = cmp(first, s.failed(fmt.Errorf("ship: %w", err)))
			continue
		}
		if o == nil && len(nums) == 0 {
			continue // nothing to ship, and no lock made where no journal is
		}
		if n, ok := readDone(dir); ok && len(nums) > 0 && nums[len(nums)-1] <= n && o == nil {
			// Shipped whole before (by this replica or another on the
			// directory); an owner still alive has appended nothing since.
			if _, err := os.Lstat(filepath.Join(dir, journal.LockFile)); err == nil {
				if l, err := journal.TryLock(dir); err == nil {
					l.Unlock()
					s.mu.Lock()
					s.others[dir] = &other{dir: dir, done: true}
					s.mu.Unlock()
					continue
				}
			}
		}
		if o == nil {
			o = &other{dir: dir}
			s.mu.Lock()
			s.others[dir] = o
			s.mu.Unlock()
		}
		final := o.lock != nil
		if !final {
			lock, err := journal.TryLock(dir)
			switch {
			case err == nil:
				o.lock, final = lock, true
				s.mu.Lock()
				o.since = s.o.now()
				s.mu.Unlock()
			case errors.Is(err, journal.ErrLocked):
			default:
				first = cmp(first, s.failed(fmt.Errorf("ship: %w", err)))
				continue
			}
		}
		if !final {
			lj := LiveJournal{Dir: dir, Owner: journal.Owner(dir)}
			if o.shipLock == nil {
				l, err := journal.TryLockName(dir, shipLockFile)
				if err != nil {
					lj.Elsewhere = true
					live = append(live, lj)
					continue
				}
				o.shipLock = l
			}
			err := s.shipOther(ctx, o, nums, false)
			for _, n := range nums {
				if n > o.shipped {
					lj.Segments++
				}
			}
			live = append(live, lj)
			if err != nil {
				first = cmp(first, s.failed(err))
			}
			continue
		}
		if err := s.shipOther(ctx, o, nums, true); err != nil {
			first = cmp(first, s.failed(err))
		}
	}
	s.mu.Lock()
	s.live = live
	s.mu.Unlock()
	return first
}

// cmp is a when it is set, else b.
func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// skeleton reports whether a receipt's record is the skeleton a Store
// reserves (its outcome unfinished): its run is in flight while the
// process that appended it lives.
func skeleton(payload []byte) bool {
	var r struct {
		Outcome struct {
			Status string `json:"status"`
		} `json:"outcome"`
	}
	return json.Unmarshal(payload, &r) == nil && r.Outcome.Status == receipt.StatusUnfinished
}

// shipOther ships the segments of o. With final set this Shipper holds
// its owner's lock: no process appends to it, and every segment is
// shipped as it is. Without, the owner lives: it is asked to seal its
// segment, and the segments before its newest are shipped, each once no
// receipt whose last record it holds is a skeleton.
func (s *Shipper) shipOther(ctx context.Context, o *other, nums []int, final bool) error {
	if o.rest == "" {
		id, err := journalID(o.dir)
		if err != nil {
			return err
		}
		if o.rest, err = keysOf(o.dir, id, s.o.Replica); err != nil {
			return err
		}
	}
	if n, ok := readDone(o.dir); ok {
		o.shipped = max(o.shipped, n)
	}
	if len(nums) > 0 && nums[len(nums)-1] <= o.shipped {
		o.listed = true // shipped before: by this replica or another on the directory
	}
	if !o.listed {
		n, err := shippedIn(ctx, s.b, o.rest)
		if err != nil {
			return err
		}
		o.listed, o.shipped = true, max(o.shipped, n)
	}
	none := func(string) bool { return false }
	var waits func([]byte) bool
	todo := nums
	if !final && len(nums) > 0 {
		newest := nums[len(nums)-1]
		if fi, err := os.Stat(filepath.Join(o.dir, fmt.Sprintf("%08d.journal", newest))); err == nil &&
			fi.Size() > 0 {
			// The owner seals as the request is made (Linux), or at its
			// next look, within half a second; the segment ships at a
			// round after.
			_ = journal.WriteRegular(filepath.Join(o.dir, receipt.SealRequestFile), nil)
		}
		todo, waits = nums[:len(nums)-1], skeleton
	}
	for _, n := range todo {
		if n <= o.shipped {
			continue
		}
		obj, ready, err := s.buildWaiting(o.dir, n, nums, none, waits)
		if err != nil {
			return err
		}
		if !ready {
			break // a run in flight: the later segments wait, in order
		}
		if err := s.ship(ctx, o.rest, n, obj); err != nil {
			return err
		}
		s.mu.Lock()
		o.shipped = n
		s.objects++
		s.mu.Unlock()
		if err := writeDone(o.dir, n); err != nil {
			// Without the mark, the next Shipper to take the journal lists
			// the bucket for it and, under this replica's id, finds it there.
			s.o.Logf("%v", err)
		}
	}
	if !final {
		return nil
	}
	if len(nums) > 0 && o.shipped < nums[len(nums)-1] {
		return nil // not all shipped: the next round goes on
	}
	s.mu.Lock()
	o.done = true
	s.mu.Unlock()
	// Shipped whole, and no process appends to it: it goes if its owner
	// kept its receipts only until shipped, as its segments went while it
	// lived.
	if _, err := s.store.RemoveEndedJournal(o.dir); err != nil {
		s.o.Logf("%v", err)
	}
	for _, l := range []*journal.Lock{o.lock, o.shipLock} {
		if err := l.Unlock(); err != nil {
			s.o.Logf("%v", err)
		}
	}
	o.lock, o.shipLock = nil, nil
	return nil
}

// doneFile, in a journal that a Shipper ships (its own store's, or
// another process's), marks how far it was shipped: it holds the number
// of the last segment shipped, so that every Shipper on the receipts
// directory (each under its own replica id) goes on from there rather
// than ship it again.
const doneFile = "ship.done"

// maxDoneBytes bounds what readDone reads of a doneFile.
const maxDoneBytes = 32

// readDone reads the doneFile of the journal in dir.
func readDone(dir string) (int, bool) {
	data, err := journal.ReadRegular(filepath.Join(dir, doneFile), maxDoneBytes) // never a pipe's wait
	if err != nil {
		return 0, false
	}
	return parseDone(data)
}

// parseDone reads a doneFile's bytes: 1 to 8 decimal digits, then an
// optional newline, nothing else, at most maxDoneBytes.
func parseDone(data []byte) (int, bool) {
	if len(data) > maxDoneBytes {
		return 0, false
	}
	text := strings.TrimSuffix(string(data), "\n")
	if len(text) == 0 || len(text) > 8 {
		return 0, false
	}
	n := 0
	for _, c := range text {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// writeDone marks the journal in dir shipped up to segment n.
func writeDone(dir string, n int) error {
	if err := writeMark(dir, doneFile, strconv.Itoa(n)); err != nil {
		return fmt.Errorf("ship: mark %s shipped: %w", dir, err)
	}
	return nil
}

// byFile, in a journal that a Shipper ships, names the replica whose
// keys its objects go under: the first Shipper to ship it writes its own
// replica id there, and every Shipper that takes the journal after it,
// under whatever id, ships under the same keys (keysOf). So each segment
// has one key, and its create-only write one object: the Shipper's
// process can be killed while its store agent writes an object, which
// the agent finishes, before the segment is marked shipped (doneFile);
// the Shipper that takes the journal then, whichever write lands first,
// finds the object there (the same receipts) instead of writing them
// again under keys of its own.
const byFile = "ship.by"

// readBy reads the byFile of the journal in dir: a replica id, or ""
// where there is none or it names none. A file that is there and cannot
// be read is an error, never taken for no mark: marked again, the
// journal's next segments would go under keys of another replica's.
func readBy(dir string) (string, error) {
	data, err := journal.ReadRegular(filepath.Join(dir, byFile), maxIDBytes) // never a pipe's wait
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("ship: read %s's %s: %w", dir, byFile, err)
	}
	if id := strings.TrimSuffix(string(data), "\n"); ValidReplica(id) {
		return id, nil
	}
	return "", nil
}

// keysOf is what the keys of the journal in dir, whose id is id, hold
// after Prefix or LegacyPrefix: REPLICA/ID/, REPLICA the one its byFile
// names, which is replica when it names none (and is marked so).
func keysOf(dir, id, replica string) (string, error) {
	by, err := readBy(dir)
	if err != nil {
		return "", err
	}
	if by == "" {
		if err := writeMark(dir, byFile, replica); err != nil {
			return "", fmt.Errorf("ship: mark %s shipped by %s: %w", dir, replica, err)
		}
		by = replica
	}
	return by + "/" + id + "/", nil
}

// writeMark writes text and a newline to the file name in dir: under a
// temporary name, then renamed over it.
func writeMark(dir, name, text string) error {
	tmp := filepath.Join(dir, name+".tmp")
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := journal.WriteRegular(tmp, []byte(text+"\n")); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// Status is what a Shipper has left to ship and why: what a readiness
// probe reads.
type Status struct {
	// Lag is Lag: how long the oldest receipt this Shipper can ship has
	// waited, at most (this process's own, and those of dead processes'
	// journals it took).
	Lag time.Duration
	// Err is why the last round shipped nothing (Err), nil once a round
	// ships: the store down, a call past its deadline, a key collision.
	Err error
	// Listed is false until the bucket answered the Shipper's first
	// list: the store has not been reached since the Shipper started.
	Listed bool
	// LastShipped is when a round last ended with every sealed segment
	// shipped; zero before one has.
	LastShipped time.Time
	// Objects is how many objects this Shipper wrote.
	Objects int
	// Locators is how many locators this Shipper wrote (or found written
	// by an earlier life): about one for each object.
	Locators int
	// Collisions counts the objects found in the bucket under a key this
	// Shipper wrote to, holding other receipts: left as they were, and
	// reported (Err, Options.Logf).
	Collisions int
	// Pending is the number of journals of processes that ended, taken
	// and not yet shipped whole.
	Pending int
	// Live lists the journals of other live processes on the same
	// receipts directory, at the last round: their receipts are shipped
	// as their owners seal their segments (asked to by the Shipper),
	// the rest once they end.
	Live []LiveJournal
}

// Status returns what the Shipper has left to ship, and why.
func (s *Shipper) Status() Status {
	lag := s.Lag()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Lag: lag, Err: s.err, Listed: s.listed, LastShipped: s.lastOK,
		Objects: s.objects, Locators: s.locators, Collisions: s.collisions, Live: append([]LiveJournal(nil), s.live...)}
	for _, o := range s.others {
		if !o.done && o.lock != nil {
			st.Pending++
		}
	}
	return st
}

// String says what lags, in one line: "" when nothing does.
func (st Status) String() string {
	msg := ""
	add := func(format string, args ...any) {
		if msg != "" {
			msg += "; "
		}
		msg += fmt.Sprintf(format, args...)
	}
	if !st.Listed {
		add("the receipts store has not been reached since the start")
	}
	if st.Err != nil {
		add("the last round shipped nothing: %v", st.Err)
	}
	if st.Pending > 0 {
		add("%d journals of processes that ended wait to be shipped", st.Pending)
	}
	if st.Collisions > 0 {
		add("%d key collisions in the store", st.Collisions)
	}
	if len(st.Live) > 0 {
		segs, elsewhere := 0, 0
		for _, l := range st.Live {
			segs += l.Segments
			if l.Elsewhere {
				elsewhere++
			}
		}
		add("%d other live processes keep receipts in the same directory (%d segments of theirs "+
			"not shipped yet, %d journals shipped by another replica)", len(st.Live), segs, elsewhere)
	}
	return msg
}
