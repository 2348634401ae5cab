package journal

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sabline/sabline/internal/bufpool"
)

// Default values of Options.
const (
	DefaultSegmentBytes = 64 << 20
	// DefaultCommitInterval bounds how long a record appended with Append
	// waits for its commit. Each commit is an fdatasync, which on a
	// virtual machine's disk costs the process processor time of its
	// own: a door keeping its receipts in the background ran 10 to 18 %
	// fewer runs a second than with no flush when it flushed every 2 ms,
	// and 0 to 7 % fewer every 10 ms (bench/README.md, "The background
	// flush's interval").
	DefaultCommitInterval = 10 * time.Millisecond
	DefaultCommitRecords  = 512
)

// maxSegment is the largest segment number: names have eight digits.
const maxSegment = 99999999

// segmentExt ends the name of every segment.
const segmentExt = ".journal"

// ErrClosed is the error of an Append, AppendSync or Sync on a closed
// Journal, and of a second Close.
var ErrClosed = errors.New("journal: closed")

// ErrRemoved is the error of Journal.Linked once the segment the journal
// appends to is no longer in its directory.
var ErrRemoved = errors.New("journal: its segment was removed from its directory: " +
	"records appended to it are read by no one")

// Options tune a Journal; the zero value of a field is its default.
type Options struct {
	// SegmentBytes is the size past which the journal goes on in a new
	// segment (DefaultSegmentBytes). A segment ends with the record that
	// crosses it, so a segment can exceed it by one record.
	SegmentBytes int64
	// CommitInterval is the longest a record appended with Append waits
	// for its fdatasync (DefaultCommitInterval), and so, with the time
	// the fdatasync takes, the window of records a power cut can lose.
	CommitInterval time.Duration
	// CommitRecords starts a commit at once when this many records wait
	// for one (DefaultCommitRecords).
	CommitRecords int
	// Exclusive says that no other process appends to the journal's
	// directory while this Journal is open: its owner holds the lock
	// (TryLock), as each Sabline store holds its own journal's. Open then
	// begins a segment of its own, and the journal writes each record in
	// place, at the end of its records, over zeros it laid ahead of them
	// once records waited for their sync (README.md, "Laying ahead"):
	// once the zeros are on the device, a commit has the records' bytes
	// to write and no change of the file's size. Without it, appends go
	// to the end of the file (O_APPEND), where other processes' land too.
	Exclusive bool
}

// layFrom and layMost bound the zeros an Exclusive journal lays ahead of
// its records: none while a segment holds less than layFrom bytes (a
// process that keeps a receipt or two writes what it would without
// them), then as many bytes as the segment holds, at most layMost at a
// time, so that a busy journal grows its file once per layMost. The
// committer lays them, without j.mu, once a record whose caller waits
// for its sync (AppendSync) finds the room left less than half of what
// it would lay: records go on in place meanwhile. Records synced in the
// background, many to a commit, ask for none: the zeros would double
// what reaches the device for a commit that is not waited for.
const (
	layFrom = 8 << 10
	layMost = 1 << 20
)

// zeros is what an Exclusive journal lays ahead, made on first use.
var zeros = sync.OnceValue(func() []byte { return make([]byte, layMost) })

// Journal appends records to the segments of one directory. Its methods
// are safe for concurrent use, and several processes may append to one
// directory at once (on Unix). Open one with Open.
type Journal struct {
	dir string
	opt Options

	mu      sync.Mutex
	cond    sync.Cond // on mu: synced advanced, err set, or the journal closed
	seg     *segment  // the segment appends go to
	retired []*segment
	written uint64 // records written so far; a record's ticket is its number
	synced  uint64 // every record with a ticket up to synced is synced
	pending int    // records written since the committer last looked
	err     error  // a failed sync: the journal takes no more records
	closed  bool
	// committing is true while a commit is under way, in the committer
	// or in a caller waiting for its record: one at a time.
	committing bool

	kick    chan struct{} // a record waits for a commit within the interval
	urgent  chan struct{} // a record waits for a commit now
	lay     chan struct{} // the zeros ahead of the records are running out (laying)
	done    chan struct{} // closed by Close
	stopped chan struct{} // closed by the committer when it returns

	appends, syncs atomic.Uint64

	// dirf is the journal's directory, open where the system lets a
	// directory be removed while open (openDir; nil elsewhere, or where
	// it could not be opened), and dirMod its modification time when
	// Linked last found the segment named: Linked reads the segment
	// itself only once the directory's entries have changed since.
	dirf   *os.File
	dirMod time.Time
}

// segment is one open segment file.
type segment struct {
	f   *os.File
	num int
	// size is where the next record goes: the file's size after this
	// process's last write to it, or, in an Exclusive journal, the end of
	// its records.
	size int64
	// laid is the file's size in an Exclusive journal: the bytes from
	// size to laid are zeros it wrote ahead of its records.
	laid int64
	// laying is set while the committer writes zeros past laid, without
	// j.mu (Journal.layAhead): a record that would pass laid, a rotation
	// and a cut wait for it (Journal.settle).
	laying bool
	// retryAt is the size from which a failed rotation is tried again.
	retryAt int64
}

// Open opens the journal in dir, creating the directory (mode 0700) and
// its first segment when they do not exist, and starts its committer.
// Appends go to the newest segment, which other processes may be
// appending to as well.
func Open(dir string, opt Options) (*Journal, error) {
	if opt.SegmentBytes <= 0 {
		opt.SegmentBytes = DefaultSegmentBytes
	}
	if opt.CommitInterval <= 0 {
		opt.CommitInterval = DefaultCommitInterval
	}
	if opt.CommitRecords <= 0 {
		opt.CommitRecords = DefaultCommitRecords
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal open: %w", err)
	}
	j := &Journal{
		dir:     dir,
		opt:     opt,
		kick:    make(chan struct{}, 1),
		lay:     make(chan struct{}, 1),
		urgent:  make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	j.cond.L = &j.mu
	j.dirf = openDir(dir)
	seg, err := j.openNewest(0)
	if err != nil {
		// No new segment can be made after a full one (the last number
		// taken, say): appends go on in the full one.
		if nums, lerr := segments(dir); lerr == nil && len(nums) > 0 {
			seg, _ = openSegment(dir, nums[len(nums)-1], false, opt.Exclusive)
		}
		if seg == nil {
			if j.dirf != nil {
				j.dirf.Close()
			}
			return nil, fmt.Errorf("journal open %s: %w", dir, err)
		}
		seg.retryAt = seg.size + opt.SegmentBytes/64 + 1
	}
	j.seg = seg
	go j.committer()
	return j, nil
}

// Dir returns the journal's directory.
func (j *Journal) Dir() string { return j.dir }

// Append writes one record of key and payload with one write(2) to the
// current segment and returns without waiting for it to reach the device:
// from its return the record survives the process's crash (it is in the
// kernel's page cache), and within Options.CommitInterval plus one
// fdatasync it survives a power cut. A key is 1 to MaxKeyBytes bytes of
// printable ASCII; a payload is at most MaxPayloadBytes. When Append
// returns an error the record is absent (or a damaged fragment a reader
// passes over), never half-read.
func (j *Journal) Append(key string, payload []byte) error {
	_, err := j.append(key, payload, soon)
	return err
}

// AppendUnsynced is Append that asks for no commit: the record survives
// the process's crash from its return, and reaches the device when the
// kernel writes it back, or with the next commit another record, Sync
// or Close asks for, whichever comes first.
func (j *Journal) AppendUnsynced(key string, payload []byte) error {
	_, err := j.append(key, payload, unsynced)
	return err
}

// AppendSync is Append that returns when the record is on the device
// (fdatasync), so that it survives a power cut. Concurrent AppendSync
// callers share one fdatasync (group commit): with none under way, the
// caller makes it itself, so that a caller alone waits for one fdatasync
// and nothing before it.
func (j *Journal) AppendSync(key string, payload []byte) error {
	t, err := j.append(key, payload, now)
	if err != nil {
		return err
	}
	return j.wait(t)
}

// Sync returns when every record appended before it was called is on
// the device.
func (j *Journal) Sync() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return fmt.Errorf("journal sync: %w", ErrClosed)
	}
	t := j.written
	j.mu.Unlock()
	return j.wait(t)
}

// syncFile is datasync; tests replace it to make a sync fail.
var syncFile = datasync

// records are the buffers a record is encoded in before its write; one
// past 256 KiB is let go.
var records = bufpool.Pool{Max: 256 << 10}

// commitBy is when an appended record asks the committer to sync it.
type commitBy int

const (
	soon     commitBy = iota // within CommitInterval, by the committer
	now                      // at once, by its caller, who waits for it (wait)
	unsynced                 // never: the kernel's writeback, or another's commit
)

// append writes the record and returns its ticket.
func (j *Journal) append(key string, payload []byte, by commitBy) (uint64, error) {
	if err := checkRecord(key, payload); err != nil {
		return 0, fmt.Errorf("journal append: %w", err)
	}
	bp := records.Get()
	buf := encodeRecord(*bp, key, payload)
	defer func() {
		*bp = buf
		records.Put(bp)
	}()

	j.mu.Lock()
	defer j.mu.Unlock()
	if j.opt.Exclusive && (j.seg.size+int64(len(buf)) > j.seg.laid || j.seg.size >= j.opt.SegmentBytes) {
		j.settle()
	}
	if j.closed {
		return 0, fmt.Errorf("journal append: %w", ErrClosed)
	}
	if j.err != nil {
		return 0, fmt.Errorf("journal append: %w", j.err)
	}
	if j.seg.size >= j.opt.SegmentBytes && j.seg.size >= j.seg.retryAt {
		// Rotate before the write, so that no segment is left empty. A
		// failure to rotate leaves appends going to the full segment, and
		// the journal tries again when it has grown by 1/64 of a segment.
		if err := j.rotate(); err == nil {
			signal(j.kick)
		} else {
			j.seg.retryAt = j.seg.size + j.opt.SegmentBytes/64 + 1
		}
	}
	seg := j.seg
	at := int64(-1) // the end of the file, where other processes' records land too
	if j.opt.Exclusive {
		at = seg.size // in place
	}
	n, err := writeOnce(seg.f, buf, at)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	if err != nil && j.cutBySizeLimit(seg, at, n, len(buf), err) {
		// The process's file size limit (a caller's ulimit -f), far
		// below a segment's bound: the record goes whole into a new
		// segment, where it fits, rather than every record after it
		// failing for the life of the journal. In an Exclusive journal
		// the fragment is given back with the zeros past the records.
		if j.opt.Exclusive {
			seg.laid = max(seg.laid, at+int64(n))
			n = 0
		}
		if rerr := j.rotate(); rerr == nil {
			signal(j.kick)
			seg = j.seg
			if j.opt.Exclusive {
				at = seg.size
			}
			n, err = writeOnce(seg.f, buf, at)
			if err == nil && n != len(buf) {
				err = io.ErrShortWrite
			}
		}
	}
	if errors.Is(err, io.ErrShortWrite) {
		if end, limit, ok := sizeLimited(seg, at, n); ok && end >= limit {
			// Cut at the file size limit, not for want of room on the
			// file system: said as a write past the limit is (EFBIG).
			err = errFileTooLarge
		}
	}
	if j.opt.Exclusive {
		// The next record goes after what this one wrote, whole or cut
		// short, as it would at the end of the file.
		seg.size += int64(n)
		seg.laid = max(seg.laid, seg.size)
	}
	if err != nil {
		if n > 0 {
			// A fragment is in the file: a reader passes over it, and the
			// records after it are read.
			return 0, fmt.Errorf("journal append to %s: %d of %d bytes written, the record is absent: %w",
				seg.name(j.dir), n, len(buf), err)
		}
		return 0, fmt.Errorf("journal append to %s: %w", seg.name(j.dir), err)
	}
	j.appends.Add(1)
	j.written++
	t := j.written
	switch step := j.opt.SegmentBytes/64 + 1; {
	case j.opt.Exclusive:
		if by == now && !seg.laying && seg.laid-seg.size < j.layLength(seg)/2 {
			seg.laying = true
			signal(j.lay)
		}
	case (seg.size+int64(n))/step != seg.size/step || seg.size+int64(n) >= j.opt.SegmentBytes:
		// Other processes append to the segment too: at every step of
		// this process's own bytes the size is read back (with O_APPEND,
		// the file offset after the write is the end of the file), not at
		// every write.
		if off, err := seg.f.Seek(0, io.SeekCurrent); err == nil && off > seg.size {
			seg.size = off
		} else {
			seg.size += int64(n)
		}
	default:
		seg.size += int64(n)
	}
	if by != soon {
		return t, nil
	}
	j.pending++
	if j.pending == 1 {
		signal(j.kick)
	}
	if j.pending >= j.opt.CommitRecords {
		signal(j.urgent)
	}
	return t, nil
}

// cutBySizeLimit reports whether a write of a record of size bytes to
// seg at (below zero: at the end of the file) that wrote n bytes and
// failed with err was refused or cut short by the process's file size
// limit (RLIMIT_FSIZE), and whether the record could fit in a new
// segment. The caller holds j.mu.
func (j *Journal) cutBySizeLimit(seg *segment, at int64, n, size int, err error) bool {
	end, limit, ok := sizeLimited(seg, at, n)
	// A record cut at the limit wrote up to it; one written from it or
	// past it wrote nothing (EFBIG). A segment that held nothing before
	// would be no better for a new one, nor would any for a record longer
	// than the limit.
	return ok && (end >= limit || errors.Is(err, errFileTooLarge)) && end-int64(n) > 0 &&
		int64(size) <= limit
}

// sizeLimited is where a write of n bytes to seg at (below zero: at the
// end of the file) ended, and the process's file size limit
// (RLIMIT_FSIZE); false where there is no limit or the end cannot be read.
func sizeLimited(seg *segment, at int64, n int) (end, limit int64, ok bool) {
	if limit, ok = fileSizeLimit(); !ok {
		return 0, 0, false
	}
	end = at + int64(n)
	if at < 0 {
		off, err := seg.f.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, 0, false
		}
		end = off
	}
	return end, limit, true
}

// layLength is how many bytes of zeros the committer lays past seg's
// next: none under layFrom, else as many as its records hold, at most
// layMost, within the segment's bound. The caller holds j.mu.
func (j *Journal) layLength(seg *segment) int64 {
	if seg.size < layFrom {
		return 0
	}
	return max(0, min(seg.size, layMost, j.opt.SegmentBytes-seg.laid))
}

// layAhead writes zeros past the current segment's zeros, when an append
// asked for them (segment.laying), without holding j.mu: records go on
// in place below them meanwhile. A write of zeros that fails lays what
// it wrote: the records go on in place where there is room and at the
// end of the file where there is not, and ask again.
func (j *Journal) layAhead() {
	j.mu.Lock()
	seg := j.seg
	if !seg.laying {
		j.mu.Unlock()
		return
	}
	from, n := seg.laid, j.layLength(seg)
	j.mu.Unlock()
	var wrote int
	if n > 0 {
		wrote, _ = writeOnce(seg.f, zeros()[:n], from)
	}
	j.mu.Lock()
	seg.laid = max(seg.laid, from+int64(wrote))
	seg.laying = false
	j.cond.Broadcast()
	j.mu.Unlock()
}

// settle waits, holding j.mu, until no zeros are being laid past the
// current segment's records.
func (j *Journal) settle() {
	for j.seg.laying && !j.closed {
		j.cond.Wait()
	}
}

// cut gives back the zeros laid past seg's records, so that a segment
// the journal moves past, or closes, ends with its last record. A file
// that cannot be cut keeps its zeros, which readers pass over.
func (s *segment) cut() {
	if s.laid > s.size && s.f.Truncate(s.size) == nil {
		s.laid = s.size
	}
}

// signal sends on c without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// wait returns when the record with ticket t is synced, or the journal
// failed. With no commit under way it commits in its caller's goroutine;
// with one, it waits for it, and commits after it when that one began
// before the record was written: those who wait meanwhile share the next.
func (j *Journal) wait(t uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.synced < t && j.err == nil {
		if !j.committing {
			j.mu.Unlock()
			j.commit()
			j.mu.Lock()
			continue
		}
		j.cond.Wait()
	}
	if j.synced >= t {
		return nil
	}
	return fmt.Errorf("journal sync: %w", j.err)
}

// committer syncs the records Append wrote: within CommitInterval of the
// first since the last commit, and at once when CommitRecords wait or a
// segment was sealed. Records appended while a sync runs share the next
// one.
func (j *Journal) committer() {
	defer close(j.stopped)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-j.urgent:
		case <-j.lay:
			j.layAhead()
			continue
		case <-j.kick:
			timer.Reset(j.opt.CommitInterval)
		wait:
			for {
				select {
				case <-timer.C:
					break wait
				case <-j.urgent:
					timer.Stop()
					break wait
				case <-j.lay:
					j.layAhead()
				case <-j.done:
					timer.Stop()
					return
				}
			}
		case <-j.done:
			return
		}
		j.commit()
	}
}

// commit syncs the retired segments and the current one, closes the
// retired ones, and marks every record written before it began as
// synced. A failure is kept: the journal takes no more records, since
// after a failed fdatasync what reached the device is unknown.
func (j *Journal) commit() {
	j.mu.Lock()
	for j.committing {
		j.cond.Wait()
	}
	t := j.written
	seg := j.seg
	retired := j.retired
	j.retired = nil
	j.pending = 0
	if (t <= j.synced && len(retired) == 0) || j.err != nil {
		j.mu.Unlock()
		for _, s := range retired { // a failed journal syncs nothing more
			s.f.Close()
		}
		return
	}
	j.committing = true
	j.mu.Unlock()

	var err error
	for _, s := range retired {
		if e := syncFile(s.f); e != nil && err == nil {
			err = fmt.Errorf("%s: %w", s.name(j.dir), e)
		}
		s.f.Close()
	}
	if err == nil {
		if e := syncFile(seg.f); e != nil {
			err = fmt.Errorf("%s: %w", seg.name(j.dir), e)
		}
	}
	j.syncs.Add(1)

	j.mu.Lock()
	j.committing = false
	if err != nil {
		j.err = err
	} else {
		j.synced = max(j.synced, t)
	}
	j.cond.Broadcast()
	j.mu.Unlock()
}

// Close syncs every record appended and closes the journal. Records
// appended before Close returns are on the device when it returns nil.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return fmt.Errorf("journal close: %w", ErrClosed)
	}
	j.closed = true
	j.mu.Unlock()
	close(j.done)
	<-j.stopped
	j.commit()

	j.mu.Lock()
	defer j.mu.Unlock()
	err := j.err
	for _, s := range j.retired { // left by a failed commit
		s.f.Close()
	}
	j.retired = nil
	j.seg.laying = false // the committer, which lays, has returned
	j.seg.cut()
	if j.dirf != nil {
		j.dirf.Close()
	}
	if cerr := j.seg.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		// Waiters whose records were synced by the commit above are woken
		// there; a journal whose sync failed wakes them with the failure.
		j.cond.Broadcast()
		return nil
	}
	j.cond.Broadcast()
	return fmt.Errorf("journal close: %w", err)
}

// Seal ends the segment this journal appends to, when it holds any
// record, and goes on in a new one: the journal never appends to a
// sealed segment again, so a copy of it taken after Seal returns is
// final as far as this process goes (another process appending to the
// same directory has a segment of its own choosing: a journal whose
// sealed segments are shipped is appended to by one process). It
// returns the number of the newest segment before the one appends now
// go to; with nothing to seal, the current segment is kept and that
// number is returned all the same. The sealed segment is synced and
// closed by the next commit, which Seal asks for at once.
func (j *Journal) Seal() (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return 0, fmt.Errorf("journal seal: %w", ErrClosed)
	}
	if j.err != nil {
		return 0, fmt.Errorf("journal seal: %w", j.err)
	}
	if j.seg.size == 0 {
		return j.seg.num - 1, nil
	}
	j.settle()
	if j.closed {
		return 0, fmt.Errorf("journal seal: %w", ErrClosed)
	}
	if j.err != nil { // a commit failed while the zeros were laid
		return 0, fmt.Errorf("journal seal: %w", j.err)
	}
	if err := j.rotate(); err != nil {
		return 0, fmt.Errorf("journal seal: %w", err)
	}
	signal(j.urgent)
	return j.seg.num - 1, nil
}

// rotate goes on in a new segment, retiring the current one for the
// committer to sync and close; the caller holds j.mu.
func (j *Journal) rotate() error {
	next, err := j.openNewest(j.seg.num)
	if err != nil {
		return err
	}
	j.seg.cut()
	j.retired = append(j.retired, j.seg)
	j.seg = next
	return nil
}

// Err is why the journal takes no more records (a failed fdatasync, or
// Close), or nil while it takes them.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.closed:
		return ErrClosed
	case j.err != nil:
		return fmt.Errorf("journal: a sync failed: %w", j.err)
	}
	return nil
}

// Linked returns nil while the segment the journal appends to is still
// in the journal's directory, and ErrRemoved, naming it, once it is not
// (its directory, or one above it, removed while the journal was open, or
// the segment itself): Append goes on writing to the open file, where no
// reader finds a record and the process's end loses them all. A closed
// journal is nil: its appends fail as closed.
func (j *Journal) Linked() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	ok, err := j.linked()
	if err != nil {
		return fmt.Errorf("journal check of %s: %w", j.seg.name(j.dir), err)
	}
	if !ok {
		return fmt.Errorf("%s: %w", j.seg.name(j.dir), ErrRemoved)
	}
	return nil
}

// Stats counts a Journal's work since Open.
type Stats struct {
	// Appends is the number of records written.
	Appends uint64
	// Syncs is the number of commits (one fdatasync of the current
	// segment each, plus one for each segment it finished).
	Syncs uint64
	// Segment is the path of the segment appends go to, and SegmentNum
	// its number: Seal moves past it, and Remove refuses it while it is
	// the newest.
	Segment    string
	SegmentNum int
	// Held is what the records of that segment hold, and so
	// what it will hold once sealed or closed: its file can be larger by
	// the zeros laid ahead of them (Options.Exclusive).
	Held int64
	// Waiting is the number of records appended with Append since the
	// last commit began: they wait for the next. Records appended with
	// AppendUnsynced never count; AppendSync's are committed by their
	// callers.
	Waiting int
}

// Stats returns the journal's counts.
func (j *Journal) Stats() Stats {
	j.mu.Lock()
	name, num, size, waiting := j.seg.name(j.dir), j.seg.num, j.seg.size, j.pending
	j.mu.Unlock()
	return Stats{Appends: j.appends.Load(), Syncs: j.syncs.Load(), Segment: name,
		SegmentNum: num, Held: size, Waiting: waiting}
}

// CommitInterval is the longest a record appended with Append waits for
// its commit to begin (Options.CommitInterval, its default filled in).
func (j *Journal) CommitInterval() time.Duration { return j.opt.CommitInterval }

// name is the segment's path in dir.
func (s *segment) name(dir string) string { return filepath.Join(dir, segmentName(s.num)) }

// segmentName is the file name of segment num.
func segmentName(num int) string { return fmt.Sprintf("%08d%s", num, segmentExt) }

// segmentNumber returns the number a segment's file name carries: eight
// digits then ".journal", nothing else.
func segmentNumber(name string) (int, bool) {
	if len(name) != 8+len(segmentExt) || name[8:] != segmentExt {
		return 0, false
	}
	for _, c := range name[:8] {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(name[:8])
	return n, err == nil
}

// segments lists the numbers of the segments in dir, in order: regular
// files with a segment's name.
func segments(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var nums []int
	for _, e := range entries {
		if n, ok := segmentNumber(e.Name()); ok && e.Type().IsRegular() {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	return nums, nil
}

// openNewest opens the segment appends should go to, given that segment
// after is full (0: none is): the newest segment when it is newer than
// after and not full, else a new one after both; an Exclusive journal's
// is always a new one. Two processes that rotate at once create the new
// segment once (O_EXCL) and both append to it.
func (j *Journal) openNewest(after int) (*segment, error) {
	for range 8 {
		nums, err := segments(j.dir)
		if err != nil {
			return nil, err
		}
		newest := after
		if len(nums) > 0 && nums[len(nums)-1] > newest {
			newest = nums[len(nums)-1]
		}
		if newest > after && !j.opt.Exclusive {
			s, err := openSegment(j.dir, newest, false, false)
			if err != nil {
				return nil, err
			}
			if s.size < j.opt.SegmentBytes {
				return s, nil
			}
			s.f.Close()
		}
		if newest >= maxSegment {
			return nil, fmt.Errorf("no segment number after %d", newest)
		}
		s, err := openSegment(j.dir, newest+1, true, j.opt.Exclusive)
		if errors.Is(err, fs.ErrExist) {
			continue // another process made it: look again
		}
		return s, err
	}
	return nil, fmt.Errorf("segments in %s change too fast to pick one", j.dir)
}

// openSegment opens segment num for appending, creating it when create
// is set (and failing with fs.ErrExist when it exists), for writing in
// place when inPlace is set. A file that is not a regular file is
// refused.
func openSegment(dir string, num int, create, inPlace bool) (*segment, error) {
	flags := os.O_WRONLY | openFlags
	if !inPlace {
		flags |= os.O_APPEND
	}
	if create {
		flags |= os.O_CREATE | os.O_EXCL
	}
	path := filepath.Join(dir, segmentName(num))
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("segment %s is not a regular file (mode %s)", path, fi.Mode().Type())
	}
	if create {
		if err := SyncDir(dir); err != nil {
			f.Close()
			return nil, fmt.Errorf("sync %s after creating %s: %w", dir, segmentName(num), err)
		}
	}
	return &segment{f: f, num: num, size: fi.Size(), laid: fi.Size()}, nil
}
