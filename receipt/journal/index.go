package journal

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Index finds the last record of a journal whose key names a given thing
// (a run, for Sabline's receipts) without reading the journal again for
// each lookup. It reads each segment's records once, and then only the
// bytes appended to it since, and keeps, for each name its function draws
// from a key, a 64-bit digest and where the last record of that name in
// the segment lies; a lookup then costs a stat of each segment and one
// read of the record found, however large the journal. A segment whose
// records end in zeros laid ahead of more (Options.Exclusive) is read on
// from there once the zeros there are zeros no longer. A segment removed
// is forgotten; one replaced (another file under its name), cut short of
// what was read, or written over in place (its modification time
// changed, its size not, where it had been read to its end) is read
// again.
//
// An Index holds at most about its bound of names (a few tens of bytes
// each): past it, the segments used least recently are forgotten, to be
// read again when a lookup needs them. Its methods are safe for
// concurrent use; one lookup runs at a time.
type Index struct {
	name   func(key string) (string, bool)
	max    int
	digest func(name string) uint64 // a name's 64 bits, seeded at random for each Index

	mu   sync.Mutex
	segs map[string]*indexed // by the segment's path
	// inDir holds the paths of segs by their journal's directory, so that
	// a lookup in one journal looks over that journal's segments alone:
	// one that looked over every segment known, in each journal a lookup
	// reads, cost the square of the journals (5 s a lookup among 3,000).
	inDir   map[string]map[string]struct{}
	entries int    // names held, over every segment
	clock   uint64 // lookups so far, to tell recent use
	read    int64  // bytes of segments read, for tests
	reads   int    // reads of a segment, for tests
	// taken counts the bytes the reads took from the files, zeros and
	// damage read again among them, and scans the whole scans of a
	// journal a lookup fell back on (a record not as indexed): for tests.
	taken int64
	scans int
	// looked counts the segments a lookup looked over for those removed
	// (forgetRemoved), for tests.
	looked int
}

// indexed is what an Index knows of one segment.
type indexed struct {
	file os.FileInfo // the file as last read: another, or the same written over, is read again
	end  int64       // bytes read: whole records, and damage followed by records
	// stopped is what the read found at end, short of the file's end
	// (zeros laid ahead, a record being written), and zeros where the
	// zeros it found to the end began: read on once either changes.
	stopped []byte
	zeros   int64
	// unsettled is set when the read found damage within settleAfter of
	// the file's last write: a record being written in place then can
	// seem damaged, and the index read on from the first stretch of it
	// at the next lookup.
	unsettled bool
	last      map[uint64]located // a name's digest: its last record
	used      uint64             // the clock of the last lookup that read it
}

// settleAfter is how long after a segment's last write the damage a
// read finds in it is taken as it is: within it, a record written in
// place may have been read in part (its write's time is stamped as it
// begins).
const settleAfter = time.Second

// located is where a record lies in its segment.
type located struct{ off, n int64 }

// NewIndex returns an Index of the records whose key name(key) accepts,
// by the name it returns; it holds about max names at most.
func NewIndex(name func(key string) (string, bool), max int) *Index {
	seed := maphash.MakeSeed()
	return &Index{name: name, max: max, segs: map[string]*indexed{},
		inDir:  map[string]map[string]struct{}{},
		digest: func(name string) uint64 { return maphash.String(seed, name) }}
}

// Find returns the key and a copy of the payload of the last record in
// the journal dir whose key names name, passing over each segment last
// written before since and before every segment it reads (the zero since
// passes over none), as ScanSince would find it; ErrNotFound when there
// is none. Entries in dir that are
// not regular files are passed over, as Scan passes them over.
func (x *Index) Find(dir string, since time.Time, name string) (string, []byte, error) {
	dir = filepath.Clean(dir)
	nums, err := segments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil, fmt.Errorf("journal find %q in %s: %w", name, dir, ErrNotFound)
	}
	if err != nil {
		return "", nil, fmt.Errorf("journal find: %w", err)
	}
	digest := x.digest(name)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clock++
	defer x.bound() // whatever was read, however the lookup ends
	x.forgetRemoved(dir, nums)
	var hitPath string
	var hit located
	for _, n := range nums {
		path := filepath.Join(dir, segmentName(n))
		e, err := x.segment(path, since)
		if err != nil {
			return "", nil, err
		}
		since = sinceRead(since, e != nil)
		if e == nil {
			continue
		}
		if l, ok := e.last[digest]; ok {
			hitPath, hit = path, l
		}
	}
	if hitPath == "" {
		return "", nil, fmt.Errorf("journal find %q in %s: %w", name, dir, ErrNotFound)
	}
	key, payload, ok := x.record(hitPath, hit)
	if got, named := x.name(key); ok && named && got == name {
		return key, payload, nil
	}
	// Two names of one digest, or a segment replaced since it was read:
	// the journal is read whole, as Scan reads it.
	x.scans++
	found := false
	if _, err := ScanSince(dir, since, func(k string, p []byte) error {
		if got, named := x.name(k); named && got == name {
			key, payload, found = k, append(payload[:0], p...), true
		}
		return nil
	}); err != nil {
		return "", nil, fmt.Errorf("journal find: %w", err)
	}
	if !found {
		return "", nil, fmt.Errorf("journal find %q in %s: %w", name, dir, ErrNotFound)
	}
	return key, payload, nil
}

// segment is the index of the segment at path brought up to its size,
// or nil when it is gone, not a regular file, or last written before
// since. A segment of the size it had when it was read is not read again
// unless the index stopped short of its end and the bytes there are not
// zeros: a record written in place since, or one being written.
func (x *Index) segment(path string, since time.Time) (*indexed, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal find: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
		return nil, nil
	}
	e := x.segs[path]
	if e != nil && !readOn(e, fi) {
		x.drop(path)
		e = nil
	}
	if e == nil {
		e = &indexed{file: fi, last: map[uint64]located{}}
		x.segs[path] = e
		dir := filepath.Dir(path)
		if x.inDir[dir] == nil {
			x.inDir[dir] = map[string]struct{}{}
		}
		x.inDir[dir][path] = struct{}{}
	} else if fi.Size() == e.file.Size() && fi.ModTime().Equal(e.file.ModTime()) && !changed(path, e) {
		// As it was when last read: a modification time read back may
		// not have moved for a record written in place (the clock files
		// are stamped with is coarse), the bytes where the read stopped
		// have.
		e.used = x.clock
		return e, nil
	}
	e.used = x.clock
	return e, x.extend(path, e)
}

// extend reads the records appended to e's segment since it was last
// read.
func (x *Index) extend(path string, e *indexed) error {
	f, fi, err := openToRead(path, "journal find")
	if f == nil {
		return err
	}
	defer f.Close()
	if !readOn(e, fi) {
		return nil // replaced since its Lstat: the next lookup reads it again
	}
	var rep Report
	s := newScanner(&rep)
	start := time.Now()
	end, err := s.segmentFrom(f, e.end, fi.Size(), path, s.located(
		func(key string, _ []byte, off, n int64) error {
			if name, ok := x.name(key); ok {
				d := x.digest(name)
				if _, had := e.last[d]; !had {
					x.entries++
				}
				e.last[d] = located{off, n}
			}
			return nil
		}))
	x.read += end - e.end
	x.reads++
	x.taken += s.read
	if err != nil {
		return err
	}
	e.file, e.end, e.stopped, e.zeros = fi, end, s.stopped, s.zerosFrom
	e.unsettled = rep.Damaged > 0 && start.Sub(fi.ModTime()) < settleAfter
	if e.unsettled {
		e.end = min(end, rep.Damage[0].Offset)
	}
	return nil
}

// readOn reports whether the segment e indexes can be read on from
// e.end, now that its file is now: the same file, holding what was read,
// and written since, if at all, only past it. Where the index had read
// the file to its end, that is a file grown, or one of the same size and
// time; where it had stopped short (zeros laid ahead, or a record being
// written), anything past e.end. A segment replaced, cut short of what
// was read, or written over in place (its time changed, its size not,
// where it had been read to its end) is read again from its start.
func readOn(e *indexed, now os.FileInfo) bool {
	was := e.file
	switch {
	case !os.SameFile(was, now) || now.Size() < e.end:
		return false
	case e.end < was.Size():
		return true
	}
	return now.Size() > was.Size() || now.Size() == was.Size() && now.ModTime().Equal(was.ModTime())
}

// changed reports whether the segment at path is not as the last read
// found it, where it stopped short of the file's end: the bytes there
// are not what it read (a record written in place since), or the zeros
// it found after them are not all zeros now (a record it read in part
// while it was written, finished since). A segment that cannot be read
// says yes, and is read.
func changed(path string, e *indexed) bool {
	if e.end >= e.file.Size() {
		return false
	}
	if e.unsettled || e.stopped == nil {
		return true
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return true
	}
	defer f.Close()
	b := make([]byte, headerSize)
	n, err := f.ReadAt(b[:len(e.stopped)], e.end)
	if (err != nil && !errors.Is(err, io.EOF)) || !bytes.Equal(b[:n], e.stopped) {
		return true
	}
	if e.zeros >= e.file.Size() || e.zeros == e.end {
		return false // no zeros after what it found, or those just compared
	}
	n, err = f.ReadAt(b, e.zeros)
	return (err != nil && !errors.Is(err, io.EOF)) || slices.ContainsFunc(b[:n], func(c byte) bool { return c != 0 })
}

// record reads the one whole record at l in the segment at path, with
// Scan's checks: false when it is not there (the segment replaced).
func (x *Index) record(path string, l located) (key string, payload []byte, ok bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return "", nil, false
	}
	defer f.Close()
	data := make([]byte, l.n)
	if _, err := f.ReadAt(data, l.off); err != nil && !errors.Is(err, io.EOF) {
		return "", nil, false
	}
	var rep Report
	_, err = newScanner(&rep).segmentFrom(bytes.NewReader(data), 0, l.n, path,
		func(k string, p []byte) error {
			if ok {
				return errors.New("two records") // l holds one record, whole
			}
			key, payload, ok = k, append([]byte(nil), p...), true
			return nil
		})
	return key, payload, ok && err == nil && rep.Damaged == 0
}

// forgetRemoved forgets the segments of dir that are no longer listed.
func (x *Index) forgetRemoved(dir string, nums []int) {
	for path := range x.inDir[dir] {
		x.looked++
		n, ok := segmentNumber(filepath.Base(path))
		if _, listed := slices.BinarySearch(nums, n); !ok || !listed {
			x.drop(path)
		}
	}
}

// drop forgets the segment at path.
func (x *Index) drop(path string) {
	if e, ok := x.segs[path]; ok {
		x.entries -= len(e.last)
		delete(x.segs, path)
		dir := filepath.Dir(path)
		if delete(x.inDir[dir], path); len(x.inDir[dir]) == 0 {
			delete(x.inDir, dir)
		}
	}
}

// bound forgets the segments used least recently while the index holds
// more than its bound of names.
func (x *Index) bound() {
	if x.entries <= x.max {
		return
	}
	paths := make([]string, 0, len(x.segs))
	for p := range x.segs {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int { return cmp.Compare(x.segs[a].used, x.segs[b].used) })
	for _, p := range paths {
		if x.entries <= x.max {
			return
		}
		x.drop(p)
	}
}
