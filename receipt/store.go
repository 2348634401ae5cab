package receipt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
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
// a power cut once the journal's group commit has synced it (within its
// commit interval, a few milliseconds; Sync waits for it).
type Store struct {
	dir string // the receipts directory
	j   *journal.Journal

	mu       sync.Mutex
	inFlight map[string]struct{} // the keys of receipts reserved here and not yet finished
}

var (
	storesMu sync.Mutex
	stores   = map[string]*Store{}
)

// OpenStore returns the store of the receipts directory dir, made if it
// does not exist, and made known to the register of this machine
// (guard.Join): every run on it then guards the directory, its journal
// and a token file in it, whichever Sabline runs it; a directory the
// register cannot be told of is E331, and no store. One store per
// directory is shared by the whole process and stays open for its life;
// Sync makes what it holds durable.
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
		return nil, codes.Errorf(codes.E317, "receipts directory %s: %w", dir, err)
	}
	// Every run on this machine, in any Sabline, guards the store (its
	// journal, a server's token file in it) once it is registered.
	if err := guard.JoinAs("the receipts directory "+abs, abs); err != nil {
		return nil, err
	}
	j, err := journal.Open(filepath.Join(abs, journalDir), journal.Options{})
	if err != nil {
		return nil, codes.Errorf(codes.E317, "receipts journal in %s: %w", dir, err)
	}
	s := &Store{dir: abs, j: j, inFlight: map[string]struct{}{}}
	stores[abs] = s
	return s, nil
}

// Reserve appends rec's skeleton, saying the run started and its receipt
// was not finished. A failure is E317, and then nothing may run.
func (s *Store) Reserve(rec *Receipt) error {
	skeleton := *rec
	skeleton.Outcome = unfinished(rec, "the process that ran it")
	s.mu.Lock()
	s.inFlight[rec.fileName()] = struct{}{}
	s.mu.Unlock()
	if err := s.append(&skeleton); err != nil {
		s.settle(rec)
		rec.storeErr = codes.Errorf(codes.E317, "reserve receipt: %w: nothing ran", err)
		return rec.storeErr
	}
	rec.path = s.recordPath(rec)
	return nil
}

// Finish appends rec, finished. When it cannot, the skeleton stays (if it
// was reserved) and Stored returns E327.
func (s *Store) Finish(rec *Receipt) {
	defer s.settle(rec)
	if err := s.append(rec); err != nil {
		rec.storeErr = codes.Errorf(codes.E327, "finish receipt: %w", err)
		return
	}
	rec.path = s.recordPath(rec)
}

// settle marks rec's key as no longer in flight here.
func (s *Store) settle(rec *Receipt) {
	s.mu.Lock()
	delete(s.inFlight, rec.fileName())
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

// Journal is the journal the store appends to.
func (s *Store) Journal() *journal.Journal { return s.j }

func (s *Store) append(rec *Receipt) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode receipt: %w", err)
	}
	return s.j.Append(rec.fileName(), data)
}

// recordPath names a receipt in the journal as Scan names it.
func (s *Store) recordPath(rec *Receipt) string {
	return journalPath(s.dir, rec.fileName())
}

func journalPath(dir, key string) string {
	return filepath.Join(dir, journalDir) + "#" + key
}

// scanJournal reads the receipts in dir's journal: for each key the last
// record, checked as Load checks a file. A record that is not a
// receipt, and each damaged stretch of the journal, is skipped and named.
func scanJournal(dir string) (runs []StoredReceipt, skipped []SkippedFile, err error) {
	jdir := filepath.Join(dir, journalDir)
	if fi, err := os.Lstat(jdir); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return nil, nil, nil
	}
	last := map[string][]byte{}
	var order []string
	rep, err := journal.Scan(jdir, func(key string, payload []byte) error {
		if _, seen := last[key]; !seen {
			order = append(order, key)
		}
		last[key] = append([]byte(nil), payload...) // payload is the scan's buffer, reused
		return nil
	})
	if err != nil {
		e := codes.Errorf(codes.E317, "read the receipts journal: %w", err)
		e.Do = listHint
		return nil, nil, e
	}
	for _, key := range order {
		p := journalPath(dir, key)
		r, err := parseReceipt(p, last[key])
		if err != nil {
			skipped = append(skipped, SkippedFile{Path: p, Why: err.(*codes.Error).Msg})
			continue
		}
		runs = append(runs, StoredReceipt{Path: p, Receipt: r})
	}
	for _, d := range rep.Damage {
		why := fmt.Sprintf("%d damaged bytes of the journal at offset %d: %s", d.Length, d.Offset, d.Why)
		skipped = append(skipped, SkippedFile{Path: d.Path, Why: why})
	}
	return runs, skipped, nil
}
