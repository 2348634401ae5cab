package doorcmd

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// maxLogQueued is how many bytes of log lines a door keeps waiting for
// its standard error: some ten thousand lines of runs.
const maxLogQueued = 1 << 20

// logCloseWait is how long a door that ends waits for the lines it still
// keeps to be written: a reader that stopped reading does not keep it
// from exiting.
const logCloseWait = 5 * time.Second

// leftOut is said of the lines a door's log left out while its reader
// was behind, after the lines it kept before them.
const leftOut = "%d log lines were left out: standard error was not read as fast as they came"

// logSink is a door's standard error, written by a goroutine of its own,
// so that a run never waits on its log line: a reader that falls behind,
// or stops reading, holds up no run and no reply. The lines that wait
// are written together, in one write, in the order they came. Past
// maxLogQueued bytes waiting, a line is left out and counted, and the
// count is said (leftOut) after the lines kept before them. Each Write is
// one line, kept or left out whole.
type logSink struct {
	w io.Writer
	// notice is what is written of n lines left out: a line of the
	// log's format.
	notice func(n int) []byte

	mu      sync.Mutex
	cond    sync.Cond // on mu: a line queued, or the sink closed
	queued  []byte
	dropped int
	closed  bool // Close was called: the writer returns once all is written
	gone    bool // the writer returned: a Write writes at once
	done    chan struct{}
	wait    time.Duration // how long Close waits (logCloseWait)
}

// newLogSink starts a log sink writing to w, whose lines left out are said
// by notice.
func newLogSink(w io.Writer, notice func(n int) []byte) *logSink {
	s := &logSink{w: w, notice: notice, done: make(chan struct{}), wait: logCloseWait}
	s.cond.L = &s.mu
	go s.write()
	return s
}

// startLog is where sabline cmd writes from here on: stderr through a
// logSink, each line a JSON record with json (jsonLog, whose logger it
// returns, nil otherwise); end writes what waits (logSink.Close).
func startLog(stderr io.Writer, cmd string, json bool) (w io.Writer, logger *slog.Logger,
	end func()) {
	if !json {
		s := newLogSink(stderr, textNotice(cmd))
		return s, nil, s.Close
	}
	s := newLogSink(stderr, jsonNotice)
	jl := newJSONLog(s, cmd)
	return jl, jl.logger, s.Close
}

// textNotice is leftOut as a line of sabline cmd's text log.
func textNotice(cmd string) func(int) []byte {
	return func(n int) []byte {
		return fmt.Appendf(nil, "sabline %s: "+leftOut+"\n", cmd, n)
	}
}

// jsonNotice is leftOut as a record of the JSON log (jsonLog).
func jsonNotice(n int) []byte {
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, nil)).Info(fmt.Sprintf(leftOut, n))
	return b.Bytes()
}

// Write queues the line p, or leaves it out when maxLogQueued bytes wait
// already; it never waits for the reader, and never fails.
func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.gone: // after Close: nothing waits, so the line is written now
		_, _ = s.w.Write(p)
	case len(s.queued)+len(p) > maxLogQueued:
		s.dropped++
	default:
		s.queued = append(s.queued, p...)
		s.cond.Signal()
	}
	return len(p), nil
}

// write is the sink's goroutine: it writes what waits, then the count
// of lines left out, until the sink is closed and nothing waits.
func (s *logSink) write() {
	defer close(s.done)
	var spare []byte
	for {
		s.mu.Lock()
		for len(s.queued) == 0 && s.dropped == 0 && !s.closed {
			s.cond.Wait()
		}
		batch, dropped := s.queued, s.dropped
		if len(batch) == 0 && dropped == 0 { // closed, and all written
			s.gone = true
			s.mu.Unlock()
			return
		}
		s.queued, s.dropped = spare[:0], 0
		s.mu.Unlock()
		if len(batch) > 0 {
			_, _ = s.w.Write(batch)
		}
		if dropped > 0 { // those left out came after the batch
			_, _ = s.w.Write(s.notice(dropped))
		}
		spare = batch
	}
}

// Close writes what waits and returns once it is written, or after
// logCloseWait if the reader does not take it; a line written after
// Close returns is written at once.
func (s *logSink) Close() {
	s.mu.Lock()
	s.closed = true
	s.cond.Signal()
	s.mu.Unlock()
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
	}
}
