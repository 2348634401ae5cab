package receipt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt/journal"
)

// Retention says which receipts a store's journal keeps; one of its
// forms (ParseRetention) at a time. Only whole segments go, oldest
// first, never the segment appended to, nor one holding the record of a
// run still in flight; with shipping on (Store.Retain), never one not
// yet shipped.
type Retention struct {
	// All keeps every receipt: nothing is removed.
	All bool
	// MaxAge lets a segment go once it was last written longer ago than
	// this: every receipt in it is at least that old.
	MaxAge time.Duration
	// MaxBytes lets the oldest segments go while the journal's segments
	// hold more than this.
	MaxBytes int64
	// With none of the three set, a segment goes once it is shipped: the
	// fleet's store keeps its receipts (RetainShipped).
}

// The words ParseRetention reads beside an age or a size.
const (
	RetainAll     = "all"
	RetainShipped = "shipped"
)

// RetentionForm says what ParseRetention accepts, for a message that
// refuses a value.
const RetentionForm = "all, shipped, an age (7d, 36h) or a size (512MiB, 2GiB)"

// ParseRetention reads a retention: RetainAll, RetainShipped, an age in
// days (7d) or as a Go duration (36h, 90m), or a size in MiB or GiB
// (512MiB, 2GiB). An age or a size of zero or less is refused: keeping
// nothing is RetainShipped, which needs a store to ship to.
func ParseRetention(s string) (Retention, error) {
	refuse := func(why string) (Retention, error) {
		return Retention{}, fmt.Errorf("%q: %s: want %s", codes.Clip(s, 64), why, RetentionForm)
	}
	switch s {
	case RetainAll:
		return Retention{All: true}, nil
	case RetainShipped:
		return Retention{}, nil
	}
	for unit, size := range map[string]int64{"MiB": 1 << 20, "GiB": 1 << 30} {
		if num, ok := strings.CutSuffix(s, unit); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n <= 0 || n > maxRetainedBytes/size {
				return refuse(fmt.Sprintf("not a size of 1 to %d %s (1 TiB)", maxRetainedBytes/size,
					unit))
			}
			return Retention{MaxBytes: n * size}, nil
		}
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > maxAgeDays {
			return refuse(fmt.Sprintf("not a number of days from 1 to %d", maxAgeDays))
		}
		return Retention{MaxAge: time.Duration(n) * 24 * time.Hour}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return refuse("not an age, a size or a word it takes")
	}
	switch {
	case d <= 0:
		return refuse("an age of zero or less")
	case d > maxAgeDays*24*time.Hour:
		// One bound for both forms: String writes a whole number of
		// days in days, and an age past it would not read back.
		return refuse(fmt.Sprintf("an age of more than %d days", maxAgeDays))
	}
	return Retention{MaxAge: d}, nil
}

// maxRetainedBytes bounds a size ParseRetention reads: 1 TiB.
const maxRetainedBytes = 1 << 40

// maxAgeDays bounds an age ParseRetention reads, in either form: a
// hundred years.
const maxAgeDays = 100 * 365

// String is the retention as ParseRetention reads it.
func (r Retention) String() string {
	switch {
	case r.All:
		return RetainAll
	case r.MaxAge > 0 && r.MaxAge%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", r.MaxAge/(24*time.Hour))
	case r.MaxAge > 0:
		return r.MaxAge.String()
	case r.MaxBytes > 0 && r.MaxBytes%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", r.MaxBytes>>30)
	case r.MaxBytes > 0:
		return fmt.Sprintf("%dMiB", r.MaxBytes>>20)
	}
	return RetainShipped
}

// shippedOnly reports whether r keeps nothing past shipping.
func (r Retention) shippedOnly() bool { return !r.All && r.MaxAge <= 0 && r.MaxBytes <= 0 }

// retentionFile, in a journal's directory, says what the store removed
// from it (removedNote), for a lookup that no longer finds a receipt.
const retentionFile = "removed.json"

// maxRetentionFileBytes bounds the retentionFile a reader reads.
const maxRetentionFileBytes = 4 << 10

// removedNote is what a journal's retentionFile says.
type removedNote struct {
	// Segments counts the segments removed so far.
	Segments int `json:"segments"`
	// Through is the newest start of a run whose record was removed:
	// receipts of runs started up to then may no longer be kept.
	Through time.Time `json:"through"`
	// Why says why the last was removed.
	Why string `json:"why"`
}

// pruneEvery is how often a store applies its retention (Prune), from the
// first Retain on.
const pruneEvery = 30 * time.Second

// Retain sets which receipts the store's journal keeps (r), and whether
// a Shipper ships them (shipping: then a segment goes only once Shipped
// says it is in the fleet's store). The store applies it every 30
// seconds (Prune) for the life of the process. Keeping nothing past
// shipping (RetainShipped) without shipping is E301. Keeping them only
// until shipped is marked in the journal's directory (UntilShippedFile),
// for whoever ships it once this process has ended.
func (s *Store) Retain(r Retention, shipping bool) error {
	if r.shippedOnly() && !shipping {
		return codes.Errorf(codes.E301, "keeping the receipts until they are shipped (%s) needs a "+
			"store to ship them to: give another retention, or %s", RetainShipped, RetainAll)
	}
	mark := filepath.Join(s.j.Dir(), UntilShippedFile)
	var err error
	if r.shippedOnly() {
		err = journal.WriteRegular(mark, nil) // never through a link planted there
	} else if err = os.Remove(mark); errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if err != nil {
		return codes.Errorf(codes.E317, "mark the receipts journal's retention: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retain, s.shipping, s.sealedAt = &r, shipping, time.Now()
	s.pruning.Do(func() { go s.pruneOften() })
	return nil
}

// pruneOften applies the store's retention every pruneEvery, for the
// life of the process (the store's); a failure is tried again at the
// next pass.
func (s *Store) pruneOften() {
	for range time.Tick(pruneEvery) {
		_, _ = s.Prune()
	}
}

// UntilShippedFile, in a process's journal directory, says the process
// kept its receipts on the disk only until they were shipped
// (RetainShipped): once it has ended and its journal is shipped whole,
// the journal may go (RemoveEndedJournal). A journal without it is kept,
// whatever the store shipping it keeps of its own.
const UntilShippedFile = "keep.until-shipped"

// RemoveEndedJournal removes jdir, the journal of a process that ended,
// from the store's receipts directory, once a Shipper shipped every
// segment of it and holds its owner's lock, so that no process appends to
// it, when its owner kept its receipts only until shipped
// (UntilShippedFile); removed says whether it did. Only a process's own
// journal (journal/proc-ID) is removed, never the journal directory
// itself, which holds the others, nor this process's.
func (s *Store) RemoveEndedJournal(jdir string) (removed bool, err error) {
	root := filepath.Join(s.dir, journalDir)
	if filepath.Clean(jdir) == root {
		return false, nil // where receipts were kept before each process had a journal
	}
	id, ok := strings.CutPrefix(filepath.Base(jdir), ownJournalPrefix)
	if filepath.Dir(filepath.Clean(jdir)) != root || !ok || len(id) != 16 || !ValidRunID(id) {
		return false, fmt.Errorf("remove the journal %s: not a process's journal in %s", jdir, root)
	}
	if filepath.Clean(jdir) == filepath.Clean(s.j.Dir()) {
		return false, fmt.Errorf("remove the journal %s: it is this process's own", jdir)
	}
	if fi, err := os.Lstat(filepath.Join(jdir, UntilShippedFile)); err != nil || !fi.Mode().IsRegular() {
		return false, nil // its owner kept its receipts past shipping
	}
	if err := os.RemoveAll(jdir); err != nil {
		return false, fmt.Errorf("remove the journal %s: %w", jdir, err)
	}
	return true, nil
}

// Shipped says every segment of the store's journal up to n is in the
// fleet's store: the Shipper calls it once it wrote them there.
func (s *Store) Shipped(n int) {
	s.mu.Lock()
	s.shipped = max(s.shipped, n)
	s.mu.Unlock()
}

// Prune removes the segments of the store's journal that its retention
// (Retain) lets go, oldest first, and returns how many. It stops at the
// first segment it keeps: the segment appended to, one not shipped yet
// (shipping on), one a run in flight has its skeleton in, one the
// retention keeps. Before removing any, it notes in the journal's
// directory what was removed (removed.json), so that a lookup of a
// receipt it held says it is no longer kept (E337), not that it never
// was. With no retention set, or RetainAll, nothing goes. An age is
// counted on the monotonic clock from when a Prune first found the
// segment sealed (every segment of the journal is this process's, and
// Prune runs every pruneEvery), not from its modification time: that is
// the wall clock's, which a step forward (NTP at a boot that began at
// 1970, an operator's date) makes years old at once, and a step back
// makes younger than it is. Without shipping it seals the segment
// appended to once it holds an eighth of the retention (its age or its
// size), so that the segments removed are not much older or larger than
// what is kept.
func (s *Store) Prune() (int, error) {
	s.mu.Lock()
	r, shipping, shipped := s.retain, s.shipping, s.shipped
	s.mu.Unlock()
	if r == nil || r.All {
		return 0, nil
	}
	dir := s.j.Dir()
	if !shipping {
		if err := s.sealFor(*r); err != nil {
			return 0, err
		}
	}
	infos, err := journal.SegmentInfos(dir)
	if err != nil {
		return 0, codes.Errorf(codes.E317, "prune the receipts journal: %w", err)
	}
	st := s.j.Stats() // the segment appended to, and what its records hold, at once
	current := st.SegmentNum
	var total int64
	s.mu.Lock()
	now := s.now()
	for _, in := range infos {
		if in.Num == current {
			in.Size = st.Held // not the zeros laid past its records
		}
		if _, seen := s.sealed[in.Num]; !seen && in.Num < current {
			s.sealed[in.Num] = now
		}
		total += in.Size
	}
	s.mu.Unlock()
	why := "past the retention kept (" + r.String() + ")"
	if shipping {
		why = "shipped to the fleet's store, and " + why
		if r.shippedOnly() {
			why = "shipped to the fleet's store"
		}
	}
	removed := 0
	for _, in := range infos {
		if in.Num >= current || shipping && in.Num > shipped {
			break
		}
		out := r.shippedOnly()
		switch {
		case r.MaxAge > 0:
			s.mu.Lock()
			out = now.Sub(s.sealed[in.Num]) > r.MaxAge
			s.mu.Unlock()
		case r.MaxBytes > 0:
			out = total > r.MaxBytes
		}
		if !out {
			break
		}
		newest, inFlight, keys, err := s.segmentRuns(dir, in.Num)
		if err != nil {
			return removed, err
		}
		if inFlight {
			break
		}
		if err := noteRemoved(dir, newest, why); err != nil {
			return removed, codes.Errorf(codes.E317, "prune the receipts journal: %w", err)
		}
		if err := journal.Remove(dir, in.Num); err != nil {
			return removed, codes.Errorf(codes.E317, "prune the receipts journal: %w", err)
		}
		s.removeCrashReports(keys)
		s.mu.Lock()
		delete(s.sealed, in.Num)
		s.mu.Unlock()
		total -= in.Size
		removed++
	}
	return removed, nil
}

// sealFor seals the segment appended to when it holds an eighth of r:
// written for longer than an eighth of its age, or past an eighth of its
// size.
func (s *Store) sealFor(r Retention) error {
	s.mu.Lock()
	since := s.sealedAt
	s.mu.Unlock()
	due := r.MaxAge > 0 && time.Since(since) > r.MaxAge/8
	if r.MaxBytes > 0 {
		due = due || s.j.Stats().Held > r.MaxBytes/8
	}
	if !due {
		return nil
	}
	if _, err := s.j.Seal(); err != nil {
		return codes.Errorf(codes.E317, "prune the receipts journal: %w", err)
	}
	s.mu.Lock()
	s.sealedAt = time.Now()
	s.mu.Unlock()
	return nil
}

// segmentRuns reads segment num of the journal in dir: the newest start
// among its receipts' keys, whether one of them is in flight here, and
// the keys, each once.
func (s *Store) segmentRuns(dir string, num int) (newest time.Time, inFlight bool, keys []string,
	err error) {
	seen := map[string]bool{}
	_, err = journal.ScanSegment(dir, num, func(key string, _ []byte, _, _ int64) error {
		if s.InFlight(key) {
			inFlight = true
		}
		if t, ok := startOfKey(key); ok && t.After(newest) {
			newest = t
		}
		if !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return time.Time{}, false, nil, codes.Errorf(codes.E317, "prune the receipts journal: %w", err)
	}
	return newest, inFlight, keys, nil
}

// removeCrashReports removes the crash reports kept beside the receipts
// keys name (KeepCrashReport), once the segment that held those receipts
// is gone: a report is part of its receipt, and goes with it. Before, the
// retention removed the segments and left the reports, a file of up to
// 64 KiB for each run that crashed or ran out of memory, kept for ever
// in the receipts directory whatever --keep-receipts said. Only a key of
// a receipt's form names a file here; a report already gone, or one that
// cannot be removed, is passed over.
func (s *Store) removeCrashReports(keys []string) {
	for _, key := range keys {
		if _, ok := startOfKey(key); !ok || filepath.Base(key) != key {
			continue
		}
		if _, ok := RunIDOfKey(key); !ok {
			continue
		}
		_ = os.Remove(filepath.Join(s.dir, crashReportName(key)))
	}
}

// keyTimeLayout is how a receipt's key (fileName) begins: its start.
const keyTimeLayout = "20060102T150405.000000000Z"

// startOfKey is the start of the run a receipt's key names.
func startOfKey(key string) (time.Time, bool) {
	if len(key) < len(keyTimeLayout) {
		return time.Time{}, false
	}
	t, err := time.Parse(keyTimeLayout, key[:len(keyTimeLayout)])
	return t, err == nil
}

// noteRemoved adds a segment, whose newest run started at newest, to the
// retentionFile of the journal in dir.
func noteRemoved(dir string, newest time.Time, why string) error {
	note, _ := readRemoved(dir)
	note.Segments++
	if newest.After(note.Through) {
		note.Through = newest
	}
	note.Why = why
	data, err := json.Marshal(note)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, retentionFile), append(data, '\n'))
}

// readRemoved reads the retentionFile of the journal in dir: false when
// there is none, or it is not one (larger than its bound, not its JSON).
func readRemoved(dir string) (removedNote, bool) {
	var note removedNote
	data, err := journal.ReadRegular(filepath.Join(dir, retentionFile), maxRetentionFileBytes) // never a pipe's wait
	if err != nil || json.Unmarshal(data, &note) != nil || note.Segments <= 0 {
		return removedNote{}, false
	}
	return note, true
}

// noLongerKept is the E337 of a lookup of id in the receipts directory
// dir that found no receipt, when a journal there has had segments
// removed; nil when none has. It wraps fs.ErrNotExist, as the lookup's
// other not-found answers do.
func noLongerKept(dir, id string) error {
	jdirs, err := JournalDirs(dir)
	if err != nil {
		return nil
	}
	var all removedNote
	for _, jdir := range jdirs {
		if note, ok := readRemoved(jdir); ok {
			all.Segments += note.Segments
			if note.Through.After(all.Through) {
				all.Through, all.Why = note.Through, note.Why
			}
		}
	}
	if all.Segments == 0 {
		return nil
	}
	// The directory is not named: a server answers a client with this.
	return codes.Errorf(codes.E337, "no receipt %s among those kept here: receipts of runs started "+
		"up to %s are no longer kept here (%d journal segments removed, the newest %s): %w",
		codes.TerminalSafe(id), all.Through.Format(time.RFC3339), all.Segments,
		codes.TerminalSafe(codes.Clip(all.Why, 200)), fs.ErrNotExist)
}
