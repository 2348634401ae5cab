package journal

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"
)

// MaxReportedDamage bounds the damaged stretches a Report lists; it
// counts them all.
const MaxReportedDamage = 64

// ErrNotFound is the error Find returns when no record has the key.
var ErrNotFound = errors.New("journal: no record with this key")

// Damage is a stretch of a segment that holds no record: a record torn by
// a crash or a power cut, bytes overwritten, or bytes that were never a
// record. Scan passes over it and reads the records after it.
type Damage struct {
	// Path is the segment's path.
	Path string
	// Offset and Length place the stretch in the segment.
	Offset, Length int64
	// Why says what was wrong at Offset.
	Why string
	// Tail is set when the stretch runs to the end of the segment: in
	// the newest segment, a record cut by a power cut, or one being
	// written while Scan read.
	Tail bool
}

// String describes the stretch in one line: its segment, where it is,
// and what was wrong there.
func (d Damage) String() string {
	where := "damaged"
	if d.Tail {
		where = "damaged tail"
	}
	return fmt.Sprintf("%s: %s, %d bytes at offset %d: %s", d.Path, where, d.Length, d.Offset, d.Why)
}

// Report says what Scan read.
type Report struct {
	// Segments and Records count the segments read and the records
	// passed to the callback.
	Segments, Records int
	// Damaged counts the damaged stretches; Damage lists the first
	// MaxReportedDamage of them.
	Damaged int
	Damage  []Damage
}

func (r *Report) add(d Damage) {
	r.Damaged++
	if len(r.Damage) < MaxReportedDamage {
		r.Damage = append(r.Damage, d)
	}
}

// Scan reads every record of the journal in dir, segment by segment in
// the order of their numbers, each in the order it was written, and calls
// fn with each record's key and payload. The payload is valid only until
// fn returns. Every record is checked (its header, its lengths against
// MaxKeyBytes and MaxPayloadBytes, its CRC-32C); bytes that are not a
// record are passed over and listed in the Report, and the records after
// them are read. Files that are not segments (eight digits then
// ".journal", a regular file) are ignored. Memory is bounded by one
// record. A missing directory holds no records. An error from fn stops
// the scan and is returned.
func Scan(dir string, fn func(key string, payload []byte) error) (Report, error) {
	return ScanSince(dir, time.Time{}, fn)
}

// ScanSince is Scan that passes over every segment last written before
// since (its modification time, read once it is open) and before every
// segment it reads: a record appended at or after since is in none of
// them. A segment after one it reads is read whatever its time: segments
// are written in the order of their numbers, and a wall clock stepped
// back stamps a later write with an earlier time (sinceRead). The zero
// since reads them all. Report.Segments counts the segments read.
func ScanSince(dir string, since time.Time,
	fn func(key string, payload []byte) error) (Report, error) {
	var rep Report
	nums, err := segments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("journal scan: %w", err)
	}
	s := newScanner(&rep)
	for _, n := range nums {
		read, err := s.file(filepath.Join(dir, segmentName(n)), since, fn)
		if err != nil {
			return rep, err
		}
		since = sinceRead(since, read)
	}
	return rep, nil
}

// sinceRead is the since that passes over the segments after one, given
// the since that passed over those before it, and whether that one was
// read: once a segment is read, none after it is passed over, whatever
// its modification time. A segment's records were appended after those
// of every segment numbered before it, but a wall clock stepped back
// between the two stamps it with an earlier time: a run's finished
// record would be passed over, and its reserved one found.
func sinceRead(since time.Time, read bool) time.Time {
	if read {
		return time.Time{}
	}
	return since
}

// file reads the segment at path, unless it was last written before
// since: one removed since the listing, or not a regular file, holds no
// records. It reports whether it read it.
func (s *scanner) file(path string, since time.Time,
	fn func(string, []byte) error) (bool, error) {
	f, fi, err := openToRead(path, "journal scan")
	if f == nil {
		return false, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
		return false, nil
	}
	s.rep.Segments++
	return true, s.segment(f, fi.Size(), path, fn)
}

// openToRead opens the segment at path to read it, and stats it; a nil
// file and a nil error when it does not exist (removed since a listing).
// An error names op.
func openToRead(path, op string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	return f, fi, nil
}

// Find returns a copy of the payload of the last record in dir with key
// (a record may be appended again under its key, as when a receipt is
// finished after it was reserved), or ErrNotFound.
func Find(dir, key string) ([]byte, error) {
	var found []byte
	ok := false
	_, err := Scan(dir, func(k string, payload []byte) error {
		if k == key {
			found = append(found[:0], payload...)
			ok = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal find %q: %w", key, err)
	}
	if !ok {
		return nil, fmt.Errorf("journal find %q in %s: %w", key, dir, ErrNotFound)
	}
	return found, nil
}

const windowSize = 64 << 10

// scanner reads segments through a window of windowSize bytes and one
// record buffer.
type scanner struct {
	rep    *Report
	r      io.ReaderAt
	f      *os.File // r, when it is a file: its holes are passed over unread (dataFrom)
	size   int64
	win    []byte
	winOff int64 // the offset of win[0] in the segment
	winLen int   // valid bytes in win
	rec    []byte
	budget int64 // bytes left to read in this segment
	read   int64 // bytes read, over every segment: Index's count of its reads
	// recOff and recLen are where the record being handed to fn lies.
	recOff, recLen int64
	// stopped is what segmentFrom read at the offset it returned, when
	// that is short of the segment's end: at most a record header's
	// worth, zeros where it found zeros; and zerosFrom, where the zeros
	// it found there to the end began (the end when it found none).
	// Index.changed compares the segment with both.
	stopped   []byte
	zerosFrom int64
}

// errShrunk is the error of a read that found the segment shorter than
// the size it was measured at: cut since (a journal cuts the zeros it
// laid ahead, Options.Exclusive), it ends where the read ended.
var errShrunk = errors.New("the segment is shorter than it was")

func newScanner(rep *Report) *scanner {
	return &scanner{rep: rep, win: make([]byte, windowSize)}
}

// at returns the n bytes (n <= windowSize) at off, which the caller has
// checked lie in the segment; they are valid until the next call.
func (s *scanner) at(off int64, n int) ([]byte, error) {
	if off < s.winOff || off+int64(n) > s.winOff+int64(s.winLen) {
		s.winOff = off
		want := min(int64(len(s.win)), s.size-off)
		m, err := s.r.ReadAt(s.win[:want], off)
		s.budget -= int64(m)
		s.read += int64(m)
		s.winLen = m
		if m < int(want) {
			if err != nil && err != io.EOF {
				s.winLen = 0
				return nil, err
			}
			s.size = off + int64(m)
			if m < n {
				return nil, errShrunk
			}
		}
	}
	i := int(off - s.winOff)
	return s.win[i : i+n], nil
}

// body returns the n bytes at off, through the window when they fit in it.
// A record past the window takes from the window what it holds of it
// already, and reads the rest: each byte is read once.
func (s *scanner) body(off int64, n int) ([]byte, error) {
	if n <= windowSize {
		return s.at(off, n)
	}
	if cap(s.rec) < n {
		s.rec = make([]byte, n)
	}
	b := s.rec[:n]
	held := 0
	if off >= s.winOff && off < s.winOff+int64(s.winLen) {
		held = copy(b, s.win[off-s.winOff:s.winLen])
	}
	m, err := s.r.ReadAt(b[held:], off+int64(held))
	s.budget -= int64(m)
	s.read += int64(m)
	if m += held; m < n {
		if err == nil || err == io.EOF {
			s.size, err = off+int64(m), errShrunk
		}
		return nil, err
	}
	return b, nil
}

// hole returns where the data of the segment at or after off begins,
// when off is in a hole of a sparse file, which reads as zeros: the zeros
// there are passed over unread, so that a segment of a huge size and
// little data (planted, or grown by a fault) is read in the time its data
// takes. Anything else gives off.
func (s *scanner) hole(off int64) int64 {
	if s.f == nil {
		return off
	}
	if at, ok := dataFrom(s.f, off, s.size); ok && at > off {
		return at
	}
	return off
}

// next returns the offset of the next record magic at or after off (at
// most the segment's size), or the segment's size when there is none.
func (s *scanner) next(off int64) (int64, error) {
	for off < s.size {
		if off = s.hole(off); off >= s.size {
			break
		}
		n := min(int64(windowSize), s.size-off)
		b, err := s.at(off, int(n))
		if errors.Is(err, errShrunk) {
			continue // it ends sooner now
		}
		if err != nil {
			return 0, err
		}
		if i := bytes.Index(b, magic[:]); i >= 0 {
			return off + int64(i), nil
		}
		if off+n >= s.size {
			break
		}
		off += n - int64(len(magic)-1) // a magic across the window's end
	}
	return s.size, nil
}

// dataEnd returns the offset past the last byte at or after off that is
// not zero (off itself when there is none): where the zeros that run to
// the segment's end begin.
func (s *scanner) dataEnd(off int64) (int64, error) {
	end := off
	for off < s.size {
		if off = s.hole(off); off >= s.size {
			break
		}
		n := min(int64(windowSize), s.size-off)
		b, err := s.at(off, int(n))
		if errors.Is(err, errShrunk) {
			continue
		}
		if err != nil {
			return 0, err
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != 0 {
				end = off + int64(i) + 1
				break
			}
		}
		off += n
	}
	return end, nil
}

// segment reads one segment of size bytes from r.
func (s *scanner) segment(r io.ReaderAt, size int64, path string,
	fn func(string, []byte) error) error {
	_, err := s.segmentFrom(r, 0, size, path, fn)
	return err
}

// segmentFrom reads the segment of size bytes in r from the offset from,
// where a record begins or a damaged stretch was found, and returns the
// offset up to which it read whole records and damage that does not
// reach the end: bytes from there may be a record being written, to be
// read again once the segment has grown or, written in place, once they
// are not what s.stopped holds. A segment found shorter than size ends
// where it ends.
//
// A stretch that is not a record is read a second time, afresh from its
// first byte, before what follows it is read: in a journal written in
// place (Options.Exclusive) the zeros this scan read there can be records
// now, written before the records it would go on to read after them.
func (s *scanner) segmentFrom(r io.ReaderAt, from, size int64, path string,
	fn func(string, []byte) error) (end int64, err error) {
	s.r, s.size, s.winOff, s.winLen, s.stopped = r, size, 0, 0, nil
	s.f, _ = r.(*os.File)
	// Damage can make the scanner read bytes more than once (a forged
	// header claiming a long payload, again and again): the work on one
	// segment is bounded, and the rest of a segment damaged beyond it is
	// reported as one stretch.
	s.budget = 16*(size-from) + 2*MaxPayloadBytes
	off, bad, why, seen := from, int64(-1), "", []byte(nil)
	// The stretch read a second time before reading on, and before
	// reporting it as the tail: once each.
	again, againTail := int64(-1), int64(-1)
	reread := func(marker *int64) bool {
		if bad == *marker || s.budget < 0 {
			return false
		}
		off, *marker, bad, s.winLen = bad, bad, -1, 0
		return true
	}
	for {
		for off < s.size {
			if s.budget < 0 {
				if bad < 0 {
					bad, why, seen = off, "damage too dense to search further", nil
				}
				break
			}
			w := s.record(off, fn)
			if w.err != nil {
				return off, w.err
			}
			if w.why == "" {
				if bad >= 0 {
					s.rep.add(Damage{Path: path, Offset: bad, Length: off - bad, Why: why})
					bad = -1
				}
				off += w.n
				continue
			}
			if bad < 0 {
				bad, why, seen = off, w.why, s.first(off)
			}
			if off, err = s.next(off + 1); err != nil {
				return off, fmt.Errorf("journal scan %s: %w", path, err)
			}
			if off < s.size && reread(&again) {
				continue // before a record after the stretch is read
			}
		}
		if bad < 0 {
			return s.size, nil
		}
		// Zeros to the end are laid ahead of records not yet written
		// (Options.Exclusive), not damage.
		data, err := s.dataEnd(bad)
		if err != nil {
			return bad, fmt.Errorf("journal scan %s: %w", path, err)
		}
		if data > bad && reread(&againTail) {
			continue
		}
		if data > bad {
			s.rep.add(Damage{Path: path, Offset: bad, Length: s.size - bad, Why: why, Tail: true})
		}
		s.stopped, s.zerosFrom = seen, data
		return bad, nil
	}
}

// first is a copy of the first bytes at off, at most a record header's
// worth, as the scan read them: what Index.changed compares the segment's
// bytes there with. A read that fails gives nil, which nothing equals.
func (s *scanner) first(off int64) []byte {
	b, err := s.at(off, int(min(headerSize, s.size-off)))
	if err != nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// read is what record found at an offset.
type read struct {
	n   int64  // the record's length, when it is one
	why string // why it is not one
	err error  // a read error, or fn's
}

// record reads the record at off and calls fn with it.
func (s *scanner) record(off int64, fn func(string, []byte) error) read {
	if s.size-off < headerSize {
		return read{why: "incomplete record header"}
	}
	hb, err := s.at(off, headerSize)
	if errors.Is(err, errShrunk) {
		return read{why: "incomplete record header"}
	}
	if err != nil {
		return read{err: fmt.Errorf("journal scan: read at offset %d: %w", off, err)}
	}
	h, why := parseHeader(hb)
	if why != "" {
		return read{why: why}
	}
	n := int64(headerSize + h.keyLen + h.payloadLen)
	if off+n > s.size {
		return read{why: fmt.Sprintf("record of %d bytes runs past the end of the segment", n)}
	}
	b, err := s.body(off+headerSize, h.keyLen+h.payloadLen)
	if errors.Is(err, errShrunk) {
		return read{why: fmt.Sprintf("record of %d bytes runs past the end of the segment", n)}
	}
	if err != nil {
		return read{err: fmt.Errorf("journal scan: read at offset %d: %w", off, err)}
	}
	if crc32.Checksum(b, castagnoli()) != h.crc {
		return read{why: "record checksum mismatch"}
	}
	key := b[:h.keyLen]
	if !validKey(key) {
		return read{why: "key is not printable ASCII"}
	}
	s.rep.Records++
	s.recOff, s.recLen = off, n
	if err := fn(string(key), b[h.keyLen:]); err != nil {
		return read{err: err}
	}
	return read{n: n}
}

// ScanBytes reads the records of one segment held in data (a segment
// copied elsewhere: the bytes are untrusted) with Scan's checks and
// report, and calls fn with each record's key, its payload (valid until
// fn returns), and the offset and length of the whole record in data.
func ScanBytes(data []byte,
	fn func(key string, payload []byte, off, n int64) error) (Report, error) {
	var rep Report
	rep.Segments = 1
	s := newScanner(&rep)
	err := s.segment(bytes.NewReader(data), int64(len(data)), "segment", s.located(fn))
	return rep, err
}

// ScanSegment is ScanBytes of the segment file num in the journal dir,
// read through a window as Scan reads it. A missing segment holds no
// records.
func ScanSegment(dir string, num int,
	fn func(key string, payload []byte, off, n int64) error) (Report, error) {
	var rep Report
	s := newScanner(&rep)
	_, err := s.file(filepath.Join(dir, segmentName(num)), time.Time{}, s.located(fn))
	return rep, err
}

// located is fn called with the offset and length of the record read.
func (s *scanner) located(fn func(string, []byte, int64, int64) error) func(string, []byte) error {
	return func(key string, payload []byte) error { return fn(key, payload, s.recOff, s.recLen) }
}

// Segments lists the numbers of the segments in the journal dir, in
// order; a missing directory has none.
func Segments(dir string) ([]int, error) {
	nums, err := segments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return nums, err
}

// scanBytes scans one segment held in data.
func scanBytes(data []byte, fn func(string, []byte) error) (Report, error) {
	var rep Report
	rep.Segments = 1
	err := newScanner(&rep).segment(bytes.NewReader(data), int64(len(data)), "segment", fn)
	return rep, err
}
