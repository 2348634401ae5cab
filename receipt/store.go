package receipt

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/bufpool"
	"github.com/sabline/sabline/receipt/journal"
)

// journalDir is the directory, in a receipts directory, of the journal
// that pools and library runs keep their receipts in: every receipt a
// record (see the journal package), read by Scan beside the receipt files
// the command line writes.
const journalDir = "journal"

// Store keeps receipts at pool speed in the journal of a receipts
// directory. Reserve appends a skeleton that says the run started and was
// not finished (E327); Finish appends the finished receipt under the same
// key, and the last record of a key is the receipt. Each is one write: a
// record whose call returned survives a crash of the process at once, and
// a power cut once the journal's group commit has synced it: before
// Finish returns, within the commit interval, or when the kernel writes
// it back, as the receipt's Durability says (Sync waits for every record).
type Store struct {
	dir  string // the receipts directory
	at   string // journalPath(dir, ""): what each of its receipts' paths starts with
	j    *journal.Journal
	lock *journal.Lock // held for the process's life: the journal is this process's alone

	mu       sync.Mutex
	inFlight map[string]struct{} // the keys of receipts reserved here and not yet finished
	retain   *Retention          // which receipts the journal keeps (Retain); nil: all
	shipping bool                // a Shipper ships the journal: only what it shipped goes
	shipped  int                 // every segment up to this one is in the fleet's store
	sealedAt time.Time           // when Prune last sealed for the retention
	pruning  sync.Once           // starts pruneOften at the first Retain
	// sealed holds, for each segment Prune found sealed, when it first
	// did, on the monotonic clock: the segment's age, which its
	// modification time, the wall clock's, does not tell (Prune).
	sealed map[int]time.Time
	now    func() time.Time // the clock sealed is read from: time.Now, but in tests
}

var (
	storesMu sync.Mutex
	stores   = map[string]*Store{}
)

// OpenStore returns the store of the receipts directory dir, made if it
// does not exist, and made known to the register of this machine
// (guard.Join): every run on it then guards the directory, its journal
// and a token file in it, whichever Sabline runs it; a directory the
// register cannot be told of is E331, and no store; one that a user who
// is neither this one nor root owns, or whose journal directory such a
// user owns, is E317, and no store. One store per
// directory is shared by the whole process and stays open for its life,
// appending to a journal of this process's own (journal/proc-ID, locked
// until the process ends: see JournalDirs); Sync makes what it holds
// durable.
func OpenStore(dir string) (*Store, error) {
	if dir == "" {
		return nil, codes.Errorf(codes.E317, "no receipts directory given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, codes.Errorf(codes.E317, "receipts directory %s: %w", dir, err)
	}
	storesMu.Lock()
	defer storesMu.Unlock()
	if s := stores[abs]; s != nil {
		return s, nil
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, roomless(codes.Errorf(codes.E317, "receipts directory %s: %w", dir, err), err)
	}
	if err := checkDirOwner(abs); err != nil {
		return nil, err
	}
	// Every run on this machine, in any Sabline, guards the store (its
	// journal, a server's token file in it) once it is registered.
	if err := guard.JoinAs("the receipts directory "+abs, abs); err != nil {
		return nil, err
	}
	jdir, lock, err := ownJournal(abs)
	if err != nil {
		e := roomless(codes.Errorf(codes.E317, "receipts journal in %s: %w", dir, err), err)
		if errors.Is(err, errAnotherOwner) {
			e.Do = anotherOwnerDo
		}
		return nil, e
	}
	// The lock is this process's: no other appends there.
	j, err := journal.Open(jdir, journal.Options{Exclusive: true})
	if err != nil {
		lock.Unlock()
		return nil, roomless(codes.Errorf(codes.E317, "receipts journal in %s: %w", dir, err), err)
	}
	s := &Store{dir: abs, at: journalPath(abs, ""), j: j, lock: lock,
		inFlight: map[string]struct{}{}, sealed: map[int]time.Time{}, now: time.Now}
	go s.sealOnRequest()
	stores[abs] = s
	return s, nil
}

// Reserve appends rec's skeleton, saying the run started and its receipt
// was not finished. A failure is E317, and then nothing may run.
func (s *Store) Reserve(rec *Receipt) error {
	key := rec.fileName()
	skeleton := rec.skeleton("the process that ran it")
	s.mu.Lock()
	s.inFlight[key] = struct{}{}
	s.mu.Unlock()
	if err := s.append(&skeleton, key, false); err != nil {
		s.settle(key)
		e := roomless(codes.Errorf(codes.E317, "reserve receipt: %w: nothing ran", err), err)
		if errors.Is(err, journal.ErrRemoved) {
			e.Do = removedDo
		}
		rec.storeErr = e
		return rec.storeErr
	}
	rec.path = s.recordPath(key)
	return nil
}

// Finish appends rec, finished, and returns when it is kept as its
// RunParameters.Durability says (Flush when it says none, which Finish
// then records): on the device, or on its way there. When it cannot, the
// skeleton stays (if it was reserved) and Stored returns E327.
func (s *Store) Finish(rec *Receipt) {
	key := rec.fileName()
	defer s.settle(key)
	rec.RunParameters.Durability = rec.RunParameters.Durability.orFlush()
	rec.RunParameters.DurabilityWindowMS = 0
	if rec.RunParameters.Durability == Background {
		rec.RunParameters.DurabilityWindowMS = s.j.CommitInterval().Milliseconds()
	}
	rec.stored = nil
	err := s.append(rec, key, true)
	if errors.Is(err, journal.ErrTooLarge) {
		// What the worker said (a pooled run's result line, which a
		// program that makes raw system calls can write) can make a
		// receipt past what the journal keeps: it is cut to fit, as one
		// finished in its reserved space on a full file system is, not
		// left the skeleton (a result of 2 MiB made one of 13 MB).
		*rec = *rec.fitted()
		err = s.append(rec, key, true)
	}
	if err != nil {
		e := codes.Errorf(codes.E327, "finish receipt: %w", err)
		if errors.Is(err, journal.ErrRemoved) {
			e.Do = removedRunDo
		}
		rec.storeErr = e
		return
	}
	rec.path = s.recordPath(key)
}

// removedDo and removedRunDo are what to do when the journal a store
// appends to was removed (journal.ErrRemoved): before a run, which is
// refused, and after one that ran.
const (
	removedDo = "The receipts directory, or this process's journal in it, was removed " +
		"while this process kept its receipts there: a receipt appended now would be read by " +
		"no one, so no run starts. Restart the process (the server, or the program that runs " +
		"the pool), which makes its journal again, and keep the receipts directory in place " +
		"while Sabline runs."
	removedRunDo = "The program did run, but its receipt is kept nowhere: the receipts " +
		"directory, or this process's journal in it, was removed while it ran. Check the " +
		"program's effects by hand, and restart the process (the server, or the program that " +
		"runs the pool), which makes its journal again."
)

// settle marks the receipt of key (Receipt.Key) as no longer in flight
// here.
func (s *Store) settle(key string) {
	s.mu.Lock()
	delete(s.inFlight, key)
	s.mu.Unlock()
}

// InFlight reports whether the receipt with key (Receipt.Key) was
// reserved by this process and is not finished yet: its run may still
// append the finished receipt.
func (s *Store) InFlight(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.inFlight[key]
	return ok
}

// Sync returns once every receipt appended so far is on disk.
func (s *Store) Sync() error { return s.j.Sync() }

// Journal is the journal the store appends to: this process's own.
func (s *Store) Journal() *journal.Journal { return s.j }

// Dir is the receipts directory of the store.
func (s *Store) Dir() string { return s.dir }

// ownJournalPrefix begins the name of the directory, in a receipts
// directory's journal directory, of each process's own journal.
const ownJournalPrefix = "proc-"

// ownJournal makes the journal directory of this process in the receipts
// directory dir, journal/proc-ID (ID 16 random hexadecimal digits), and
// takes its lock, held until the process ends: no other process appends
// to it, so a segment it has moved past is final, and the receipts of a
// process that died are in a journal whose lock a shipper can take.
func ownJournal(dir string) (string, *journal.Lock, error) {
	root := filepath.Join(dir, journalDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", nil, err
	}
	// Readers read the journal directory only as a directory of its own
	// (JournalDirs): one that is a link, followed here, would keep the
	// receipts where none of them reads, outside the guarded directory.
	if fi, err := os.Lstat(root); err != nil {
		return "", nil, err
	} else if !fi.IsDir() {
		return "", nil, fmt.Errorf("%s is not a directory (mode %s): receipts kept through it "+
			"would be read by no one", root, fi.Mode().Type())
	} else if err := anotherOwner(fi); err != nil {
		// Its owner could remove or replace what is kept there, and
		// readers pass it over (JournalDirs).
		return "", nil, fmt.Errorf("%s: %w", root, err)
	}
	for range 8 {
		jdir := filepath.Join(root, ownJournalPrefix+newRunID())
		if err := os.Mkdir(jdir, 0o700); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			return "", nil, err
		}
		lock, err := journal.TryLock(jdir)
		if err != nil {
			return "", nil, err
		}
		return jdir, lock, nil
	}
	return "", nil, errors.New("no journal directory name is free")
}

// SealRequestFile, made in a process's journal directory by a shipper in
// another process, asks the owner to seal its journal's segment
// (journal.Seal), so that what it holds is final and can be shipped
// while the owner runs. The owner removes it once it has sealed.
const SealRequestFile = "seal.request"

// sealEvery is how often a store looks for a SealRequestFile where the
// kernel cannot tell it of one (lookout).
const sealEvery = 500 * time.Millisecond

// sealOnRequest seals the store's journal whenever a SealRequestFile is
// in its directory, for the life of the process (the store's): it looks
// once, then each time lookout says an entry was made there.
func (s *Store) sealOnRequest() {
	req := filepath.Join(s.j.Dir(), SealRequestFile)
	look := lookout(s.j.Dir())
	for {
		if _, err := os.Lstat(req); err == nil {
			if _, err := s.j.Seal(); errors.Is(err, journal.ErrClosed) {
				return
			}
			_ = os.Remove(req)
		}
		<-look
	}
}

// tick sends on c every sealEvery, for ever.
func tick(c chan<- struct{}) {
	for range time.Tick(sealEvery) {
		notify(c)
	}
}

// notify sends on c unless a send waits there already.
func notify(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// JournalDirs lists the journals of the receipts directory dir: the
// journal directory itself (where receipts were kept before each process
// had a journal of its own), then each process's journal in it. A
// missing directory has none; symbolic links and files are passed over,
// and so is a journal directory a user who is neither this one nor root
// owns (its receipts are that user's to write).
func JournalDirs(dir string) ([]string, error) {
	dirs, _, err := journalDirs(dir)
	return dirs, err
}

// journalDirs is JournalDirs, and the journal directories it passed over
// because a user who is neither this one nor root owns them (anotherOwner:
// the journal directory itself, and then none beneath it, or a process's),
// each with why.
func journalDirs(dir string) (dirs []string, passed []SkippedFile, err error) {
	root := filepath.Join(dir, journalDir)
	fi, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	if err := anotherOwner(fi); err != nil {
		return nil, []SkippedFile{{Path: root, Why: err.Error()}}, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, err
	}
	dirs = []string{root}
	for _, e := range entries {
		id, ok := strings.CutPrefix(e.Name(), ownJournalPrefix)
		if !ok || !e.IsDir() || len(id) != 16 || !ValidRunID(id) {
			continue
		}
		p := filepath.Join(root, e.Name())
		fi, err := e.Info()
		if err != nil {
			continue // gone since it was listed
		}
		if err := anotherOwner(fi); err != nil {
			passed = append(passed, SkippedFile{Path: p, Why: err.Error()})
			continue
		}
		dirs = append(dirs, p)
	}
	return dirs, passed, nil
}

// encodedRoom is the room a receipt is encoded into, most runs' whole: a
// hello's is some 1.5 KB; a larger one grows it.
const encodedRoom = 2 << 10

// encodeBufs are the buffers a store encodes receipts into, each given
// back once the journal has copied what it holds: a skeleton's bytes are
// kept nowhere else, and a finished receipt's are copied, to their
// length, as its StoredJSON. One grown past 64 KiB is let go.
var encodeBufs = bufpool.Pool{Max: 64 << 10, Room: encodedRoom}

// append appends rec to the journal under key, its Key, as its
// durability asks, and keeps what it appended of a finished receipt as
// rec's StoredJSON. A skeleton
// (finished false) is never waited for, since no result waits on it;
// with Flush it asks for no commit of its own either: the finished
// receipt's flush takes it along, so that a run pays one flush however
// long it runs.
func (s *Store) append(rec *Receipt, key string, finished bool) error {
	bp := encodeBufs.Get()
	data, err := rec.AppendJSON(*bp)
	defer func() {
		*bp = data
		encodeBufs.Put(bp)
	}()
	if err != nil {
		return err
	}
	switch d := rec.RunParameters.Durability.orFlush(); {
	case d == None, d == Flush && !finished:
		err = s.j.AppendUnsynced(key, data)
	case d == Flush:
		err = s.j.AppendSync(key, data)
	default:
		err = s.j.Append(key, data)
	}
	// A journal whose directory was removed takes every record and keeps
	// none where a reader looks: the run is refused (or, finished, says
	// its receipt was not kept) rather than run with no receipt. Asked
	// after the append, so that a removal between the two is seen too.
	if err == nil {
		err = s.j.Linked()
	}
	if err == nil && finished {
		rec.stored = bytes.Clone(data)
	}
	return err
}

// recordPath names the receipt of key (Receipt.Key) in the journal as
// Scan names it.
func (s *Store) recordPath(key string) string {
	return s.at + key
}

// journalPath names the receipt of key in the journal of the receipts
// directory dir.
func journalPath(dir, key string) string {
	return filepath.Join(dir, journalDir) + "#" + key
}

// scanJournal reads the receipts in dir's journal: for each key the last
// record that is a receipt, checked as Load checks a file. A record that
// is not a receipt, or is another run's than its key names (planted, or
// written over: the last record before it under that key is read in its
// place), and each damaged stretch of the journal, is skipped and named.
func scanJournal(dir string) (runs []StoredReceipt, skipped []SkippedFile, err error) {
	dirs, skipped, err := journalDirs(dir)
	if err != nil {
		e := codes.Errorf(codes.E317, "read the receipts journal: %w", err)
		e.Do = listHint
		return nil, nil, e
	}
	last, order, damage, err := lastRecords(dirs, nil)
	if err != nil {
		return nil, nil, err
	}
	var other map[string]bool // keys whose last record is another run's receipt
	for _, key := range order {
		p := journalPath(dir, key)
		r, err := parseKeyed(p, key, last[key])
		if err != nil {
			why := strings.TrimPrefix(err.(*codes.Error).Msg, p+" is not a receipt: ")
			skipped = append(skipped, SkippedFile{Path: p, Why: why})
			if errors.Is(err, errOtherRun) {
				if other == nil {
					other = map[string]bool{}
				}
				other[key] = true
			}
			continue
		}
		runs = append(runs, StoredReceipt{Path: p, Receipt: r})
	}
	if other != nil {
		// Rare: those keys are read again for the last record of each
		// that is the receipt of the run its key names.
		own, _, _, err := lastRecords(dirs, func(key string, payload []byte) bool {
			if !other[key] {
				return false
			}
			_, err := parseKeyed(key, key, payload)
			return err == nil
		})
		if err != nil {
			return nil, nil, err
		}
		for _, key := range order {
			if data, ok := own[key]; ok {
				p := journalPath(dir, key)
				r, _ := parseKeyed(p, key, data)
				runs = append(runs, StoredReceipt{Path: p, Receipt: r})
			}
		}
	}
	for _, d := range damage {
		why := fmt.Sprintf("%d damaged bytes of the journal at offset %d: %s", d.Length, d.Offset, d.Why)
		skipped = append(skipped, SkippedFile{Path: d.Path, Why: why})
	}
	return runs, skipped, nil
}

// lastRecords reads the journals dirs, and returns a copy of the payload
// of each key's last record that keep accepts (nil: every record), the
// keys in the order their first records were read, and the damaged
// stretches.
func lastRecords(dirs []string, keep func(key string, payload []byte) bool) (
	last map[string][]byte, order []string, damage []journal.Damage, err error) {
	last = map[string][]byte{}
	for _, jdir := range dirs {
		r, err := journal.Scan(jdir, func(key string, payload []byte) error {
			if keep != nil && !keep(key, payload) {
				return nil
			}
			if _, seen := last[key]; !seen {
				order = append(order, key)
			}
			last[key] = append([]byte(nil), payload...) // payload is the scan's buffer, reused
			return nil
		})
		if err != nil {
			e := codes.Errorf(codes.E317, "read the receipts journal: %w", err)
			e.Do = listHint
			return nil, nil, nil, e
		}
		damage = append(damage, r.Damage...)
	}
	return last, order, damage, nil
}
