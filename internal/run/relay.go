package run

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/lang"
)

// relay is how the caller's standard streams and tool channel reach a
// worker: through pipes (and, for the tool channel, a socket pair) the
// supervisor made, whose other ends the supervisor copies to and from the
// caller's. The worker never holds an open file of the caller's, so no
// flag, lease, truncation or offset change a program makes with raw
// system calls reaches a file or terminal the caller holds: it reaches a
// pipe of the run's own. The copies are the worker's (workerProc): those
// towards the caller end with the worker, once what it wrote is
// delivered; those towards it end when it does, without waiting for the
// caller's input, which may never end.
type relay struct {
	copies sync.WaitGroup // the copies towards the caller
	from   []*os.File     // the supervisor's ends they read
	gone   atomic.Bool    // the worker has exited: a read waits at most resultGrace for more
	cutc   chan struct{}  // closed when the supervisor stopped the worker
	cuts   sync.Once
	// written counts what the worker wrote on its standard output (1) and
	// error (2) and the copy delivered; nil for a stream it does not have.
	written [3]*atomic.Int64
	// std is held for each write to the caller's output or error, which
	// may be one writer.
	std sync.Mutex
	// refused is the first error of the caller's writer of the worker's
	// standard output (1) and error (2), nil while it takes all: the copy
	// ends there, and nothing the worker writes after is delivered
	// (undelivered).
	refused [3]atomic.Pointer[error]
	// wake, closed when the worker has exited, ends the copies towards
	// it: they wait on the caller's file beside it (see feed).
	wake, woken *os.File
	// input starts the copy of the caller's standard input (nil for
	// none): once the supervisor has read the program, which may be that
	// same input (/dev/stdin).
	input func()
}

// feedInput starts the copy of the caller's standard input to the
// worker's, once the program is read: the command's own reading of
// /dev/stdin must come first.
func (rl *relay) feedInput() {
	if rl.input != nil {
		rl.input()
	}
}

// relayBuffer is what one read of the worker's output takes at most: a
// pipe's capacity on Linux.
const relayBuffer = 64 << 10

// relayEnds makes the worker's standard input, output and error (nil
// where the caller gave none, and the worker gets the null device) and
// its tool channel's end (nil for none), and starts the copies between
// them and the caller's. The caller closes the ends it is given once the
// worker holds them.
func (w *workerProc) relayEnds(s workerSpec) (std [3]*os.File, tool *os.File, err error) {
	w.relay.cutc = make(chan struct{})
	if w.relay.woken, w.relay.wake, err = os.Pipe(); err != nil {
		return std, nil, codes.Errorf(codes.E310, "the relay's pipe: %w", err)
	}
	// woken is closed by retire after the closers: a feed holds it open
	// while it copies, and ends once wake or its destination closes.
	w.closers = append(w.closers, w.relay.wake)
	for _, c := range []any{s.stdin, s.stdout, s.stderr} {
		if f, ok := c.(*os.File); ok {
			if id, ok := lang.FileIDOf(f); ok {
				w.relayed = append(w.relayed, id)
			}
		}
	}
	if s.stdin != nil {
		r, wr, err := os.Pipe()
		if err != nil {
			return std, nil, codes.Errorf(codes.E310, "standard input pipe: %w", err)
		}
		std[0] = r
		w.closers = append(w.closers, wr)
		w.relay.input = func() {
			go func() {
				feed(wr, s.stdin, w.relay.woken)
				wr.Close()
			}()
		}
	}
	if std[1], err = w.relay.to(1, s.stdout); err != nil {
		return std, nil, codes.Errorf(codes.E310, "standard output pipe: %w", err)
	}
	if std[2], err = w.relay.to(2, s.stderr); err != nil {
		return std, nil, codes.Errorf(codes.E310, "standard error pipe: %w", err)
	}
	if s.tool == nil {
		return std, nil, nil
	}
	theirs, ours, err := toolPair()
	switch {
	case err != nil:
		return std, nil, codes.Errorf(codes.E310, "tool channel: %w", err)
	case ours == nil:
		return std, s.tool, nil // see toolPair
	}
	w.closers = append(w.closers, ours)
	w.relay.copy(s.tool, ours, nil, nil, nil)
	go func() {
		feed(ours, s.tool, w.relay.woken)
		endWrites(ours) // the host's channel ended: so does the worker's
	}()
	return std, theirs, nil
}

// to makes the pipe the worker writes as its standard stream fd (1 or 2)
// for dst, and starts its copy; nil for no dst.
func (rl *relay) to(fd int, dst io.Writer) (*os.File, error) {
	if dst == nil {
		return nil, nil
	}
	r, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	rl.written[fd] = new(atomic.Int64)
	rl.copy(dst, r, &rl.std, rl.written[fd], &rl.refused[fd])
	return wr, nil
}

// undelivered is the first error of the caller's writer of the worker's
// standard output, else of its standard error, naming the stream; nil
// when each took all it was given.
func (rl *relay) undelivered() error {
	for fd, name := range [3]string{1: "standard output (Stdout)", 2: "standard error (Stderr)"} {
		if err := rl.refused[fd].Load(); err != nil {
			return fmt.Errorf("%s: %w", name, *err)
		}
	}
	return nil
}

// count is what the worker wrote on its standard stream fd (1 or 2) and
// the caller was given, nil for a stream it does not have.
func (rl *relay) count(fd int) *int64 {
	if rl.written[fd] == nil {
		return nil
	}
	n := rl.written[fd].Load()
	return &n
}

// copy copies what the worker writes on src to dst until src ends, or
// dst refuses it, holding mu (when not nil) for each write, counting
// what dst took in n and keeping dst's refusal in refused (each when not
// nil). After the worker has exited, a read
// that waits resultGrace with nothing to read ends it: a process that
// left the worker's session may hold the pipe, and cannot keep the run
// going.
func (rl *relay) copy(dst io.Writer, src *os.File, mu *sync.Mutex, n *atomic.Int64,
	refused *atomic.Pointer[error]) {
	rl.from = append(rl.from, src)
	rl.copies.Add(1)
	go func() {
		defer rl.copies.Done()
		defer src.Close()
		if h, ok := dst.(lineHolder); ok {
			defer h.endHeld() // the stream's end ends the line it left
		}
		buf := make([]byte, relayBuffer)
		for {
			if rl.gone.Load() {
				_ = src.SetReadDeadline(time.Now().Add(resultGrace))
			}
			got, err := src.Read(buf)
			if got > 0 {
				if err := deliver(dst, buf[:got], mu, n); err != nil {
					if refused != nil {
						refused.CompareAndSwap(nil, &err)
					}
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
}

// lineHolder is a copy's destination that holds a line the worker left
// unfinished (workerMessages): its copy ends it once the stream ends.
type lineHolder interface{ endHeld() }

// deliver writes p to dst, holding mu, counts it in n, and returns dst's
// error: nil when it took it all.
func deliver(dst io.Writer, p []byte, mu *sync.Mutex, n *atomic.Int64) error {
	if mu != nil {
		mu.Lock()
		defer mu.Unlock()
	}
	wrote, err := dst.Write(p)
	if n != nil {
		n.Add(int64(wrote))
	}
	if err == nil && wrote < len(p) {
		err = io.ErrShortWrite
	}
	return err
}

// maxWorkerMessageBytes is the most the pool writes to its Stderr (a
// server's log) of what one pool worker writes on its standard error,
// over the worker's life, labels and escapes counted.
const maxWorkerMessageBytes = 64 << 10

// workerLabel begins each line of a pool worker's standard error in the
// pool's Stderr: what follows is the worker's, its own messages or a
// program's that may make raw system calls, never the pool's, whose own
// lines begin "sabline: pool: ".
const workerLabel = "sabline: pool worker: "

// workerMessages is a pool worker's standard error as the pool relays it
// to dst: each line begun by workerLabel, every byte a terminal could
// take for a command escaped (codes.TerminalSafe), and the first
// maxWorkerMessageBytes of that only, then one line of the pool's saying
// the rest was dropped. The worker says a few lines of its own there
// (when it starts, or fails); a run that may make raw system calls can
// write on that descriptor too, as much as it likes and whatever it
// likes, a line that reads as the pool's or the server's among them.
// What is dropped is still read, so that no write of the worker's waits
// for it.
//
// Each write to dst is whole lines, since dst (a server's log) takes
// other writers' lines between two of the worker's writes, and the rest
// of a line the worker left unfinished would otherwise begin a line of
// the log, unlabelled. An unfinished line is held until the worker ends
// it, for at most unfinishedWait and unfinishedBytes, and then ended
// there, its rest labelled as a line of its own: the Go runtime writes
// a trace a few bytes at a time (a panic before the worker's start), and
// each piece was a labelled line of its own.
type workerMessages struct {
	dst  io.Writer
	mu   sync.Mutex // held by Write, and by the timer that ends a held line
	left int        // what may still be written to dst
	cut  bool       // the line that says the rest was dropped is written
	held []byte     // the worker's unfinished line, not yet written to dst
	// ending is the timer that ends held, nil while none is set.
	ending *time.Timer
}

// unfinishedWait and unfinishedBytes bound how long, and how much of, a
// worker's unfinished line workerMessages holds before it ends the line
// itself.
const (
	unfinishedWait  = 50 * time.Millisecond
	unfinishedBytes = 4 << 10
)

func newWorkerMessages(dst io.Writer) *workerMessages {
	return &workerMessages{dst: dst, left: maxWorkerMessageBytes}
}

// Write relays the lines p ends, within the bound, and holds the line it
// leaves unfinished (see workerMessages).
func (m *workerMessages) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	whole := append(m.held, p...)
	m.held = nil
	if end := bytes.LastIndexByte(whole, '\n') + 1; len(whole)-end <= unfinishedBytes {
		m.held = bytes.Clone(whole[end:])
		whole = whole[:end]
	}
	if len(m.held) > 0 && m.ending == nil {
		m.ending = time.AfterFunc(unfinishedWait, m.endHeld)
	}
	if err := m.relay(whole); err != nil {
		return 0, err
	}
	return len(p), nil
}

// endHeld writes the line held unfinished, ended: its time is up, or the
// worker's standard error ended. dst's error is the next Write's to say.
func (m *workerMessages) endHeld() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ending != nil {
		m.ending.Stop()
		m.ending = nil
	}
	held := m.held
	m.held = nil
	_ = m.relay(held)
}

// relay writes p, labelled, within the bound, to dst. The write that
// reaches the bound ends with the line that says the rest was dropped,
// in the same write to dst, so that the line the bound cut is ended
// there, and no other writer's line joins it.
func (m *workerMessages) relay(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	var out []byte
	if m.left > 0 {
		out = m.labelled(p)
		n := min(len(out), m.left)
		m.left -= n
		if n == len(out) {
			_, err := m.dst.Write(out)
			return err
		}
		out = out[:n]
	}
	if !m.cut {
		m.cut = true
		out = fmt.Appendf(out, "\nsabline: pool: a worker's standard error passed %d "+
			"bytes; the rest was dropped\n", maxWorkerMessageBytes)
	}
	if len(out) > 0 {
		if _, err := m.dst.Write(out); err != nil {
			return err
		}
	}
	return nil
}

// labelled is p as whole lines, each begun by workerLabel, its bytes
// escaped as codes.TerminalSafe escapes them, and ended by a newline,
// the last too where p left it unfinished.
func (m *workerMessages) labelled(p []byte) []byte {
	var out []byte
	for len(p) > 0 {
		line, rest, _ := bytes.Cut(p, []byte{'\n'})
		out = append(out, workerLabel...)
		out = append(out, codes.TerminalSafe(string(line))...)
		out = append(out, '\n')
		p = rest
	}
	return out
}

// lockedWriter is a writer that several goroutines write one at a time:
// a pool's Stderr, which each of its workers' relays and the pool itself
// write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// end waits, once the worker has exited, until the caller has what it
// wrote. A worker the supervisor stopped (cut) is waited for at most
// resultGrace: a caller that takes no output cannot hold the run past its
// deadline.
func (rl *relay) end() {
	rl.wake.Close()
	rl.gone.Store(true)
	for _, f := range rl.from {
		_ = f.SetReadDeadline(time.Now().Add(resultGrace))
	}
	copied := make(chan struct{})
	go func() {
		rl.copies.Wait()
		close(copied)
	}()
	select {
	case <-copied:
	case <-rl.cutc:
		select {
		case <-copied:
		case <-time.After(resultGrace):
		}
	}
}

// cut says the supervisor stopped the worker (see end).
func (rl *relay) cut() {
	if rl.cutc != nil {
		rl.cuts.Do(func() { close(rl.cutc) })
	}
}
