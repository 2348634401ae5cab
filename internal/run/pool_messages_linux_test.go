package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// writesItsWorkersStderr is a program that finds its worker's standard
// error, the pipe the pool relays to its Stderr (the one descriptor past
// the request, result and stop pipes that cannot seek), and writes
// ARGS[0] mebibytes there, each beginning with a mark, or one line when
// ARGS[0] is 0 (raw system calls, under --confine strict).
const writesItsWorkersStderr = `c = ffi.module("ctypes")
n = int(ARGS[0])
line = "sabline: pool: a line of the program's own \x1b[2J\n"
chunk = "MARK" + "x" * (1024 * 1024 - 4)
found = []
for fd in range(6, 64):
    if c.syscall("lseek", fd, 0, 0).errno == "ESPIPE":
        found.append(fd)
        if n == 0:
            c.syscall("write", fd, line, len(line))
        for i in range(n):
            c.syscall("write", fd, chunk, len(chunk))
print("found", found)
`

// TestPoolRelaysBoundedWorkerMessages: a pool relays its workers' own
// messages, their standard error, to its Stderr (a server's log), and a
// run that may make raw system calls can write on that descriptor: of 8
// MiB, the pool relays at most maxWorkerMessageBytes, then says the rest
// was dropped, and the run ends as it would have. Each write to the
// Stderr is whole lines, the one that reaches the bound too: it wrote
// the bound's part of a line of 1 MiB, unended, then the line saying the
// rest was dropped in a write of its own, and another writer's line
// coming between the two (the pool's, another worker's) would have
// joined the worker's line. The control: one line
// of the program's reaches the pool's Stderr, labelled as the worker's
// (it cannot pass for one of the pool's own) and its escape sequence
// escaped.
func TestPoolRelaysBoundedWorkerMessages(t *testing.T) {
	note := fmt.Sprintf("sabline: pool: a worker's standard error passed %d bytes; "+
		"the rest was dropped\n", maxWorkerMessageBytes)
	tests := []struct {
		name     string
		mib      string
		wantMark bool // the first of the program's bytes reached the pool's Stderr
		wantCut  bool
	}{
		{name: "8 MiB", mib: "8", wantMark: true, wantCut: true},
		{name: "one line (the control)", mib: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			var stderr writesWriter
			p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io", "ffi:ctypes"), Workers: 1,
				Confine: core.ModeStrict, ImportRoot: dir, Timeout: time.Minute, Stderr: &stderr})
			if err != nil {
				t.Fatalf("StartPool: %v", err)
			}
			res, err := p.Run(context.Background(), PoolRun{Program: "w.vel",
				Source: []byte(writesItsWorkersStderr), Args: []string{tt.mib}})
			if err != nil {
				t.Fatal(err)
			}
			p.Close() // every relay of the pool's has ended
			o := res.Receipt.Outcome
			if o.Status != receipt.StatusOK || !strings.HasPrefix(string(res.Stdout), "found [") ||
				string(res.Stdout) == "found []\n" {
				t.Fatalf("the run: %s %s %q, output %q; want ok, its worker's standard error found",
					o.Status, o.Code, o.Message, res.Stdout)
			}
			got := stderr.String()
			t.Logf("the pool's Stderr holds %d bytes, in %d writes", len(got), len(stderr.writes))
			for i, w := range stderr.writes {
				if !strings.HasSuffix(w, "\n") {
					t.Errorf("write %d of %d to the pool's Stderr ends %q, in the midst of a line: "+
						"another writer's line would join it", i+1, len(stderr.writes),
						w[max(0, len(w)-40):])
				}
			}
			if tt.wantCut {
				if bound := maxWorkerMessageBytes + len(note) + 1; len(got) > bound {
					t.Errorf("the pool's Stderr holds %d bytes, want at most %d", len(got), bound)
				}
				if !strings.Contains(got, "MARK") || !strings.HasSuffix(got, note) {
					t.Errorf("the pool's Stderr holds %q...%q, want the program's first bytes, then %q",
						got[:min(len(got), 80)], got[max(0, len(got)-120):], note)
				}
				return
			}
			want := workerLabel + `sabline: pool: a line of the program's own \x1b[2J` + "\n"
			if !strings.Contains(got, want) || strings.Contains(got, note) ||
				strings.Contains("\n"+got, "\nsabline: pool: a line") {
				t.Errorf("the pool's Stderr holds %q, want the program's line labelled: %q", got, want)
			}
		})
	}
}

// writesWriter keeps each write it is given, one at a time.
type writesWriter struct {
	mu     sync.Mutex
	writes []string
}

func (w *writesWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

// String is every write, in order.
func (w *writesWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.writes, "")
}

// unlockedWriter is a writer that takes no lock of its own, as a
// bytes.Buffer or a log file's bufio.Writer does not. It holds no atomic
// either: the race detector counts one as an order between the writes.
type unlockedWriter struct{ buf []byte }

func (w *unlockedWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// TestPoolWritesItsStderrOneAtATime: each worker's messages are relayed
// to the pool's Stderr by a goroutine of its own, and the pool says its
// own there beside them; a Stderr that takes no lock of its own (a
// bytes.Buffer) was written by two workers' relays at once, a data race
// that go test -race reports (WARNING: DATA RACE in unlockedWriter.Write).
// Now one write at a time reaches it. The control: both runs' lines reach
// it whole.
func TestPoolWritesItsStderrOneAtATime(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var stderr unlockedWriter
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io", "ffi:ctypes"), Workers: 2,
		Confine: core.ModeStrict, ImportRoot: dir, Timeout: time.Minute, Stderr: &stderr})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			res, err := p.Run(context.Background(), PoolRun{Program: "w.vel",
				Source: []byte(writesItsWorkersStderr), Args: []string{"0"}})
			if err != nil {
				t.Error(err)
				return
			}
			if o := res.Receipt.Outcome; o.Status != receipt.StatusOK {
				t.Errorf("the run: %s %s %q, want ok", o.Status, o.Code, o.Message)
			}
		})
	}
	wg.Wait()
	p.Close() // every relay of the pool's has ended
	if got := strings.Count(string(stderr.buf), "a line of the program's own \\x1b[2J\n"); got != 2 {
		t.Errorf("the pool's Stderr holds %q, want each run's line whole", stderr.buf)
	}
}

// writesALineInTwo is a program that writes "x" on its worker's standard
// error (found as writesItsWorkersStderr finds it), leaving the line
// unfinished, waits until the file ARGS[0] exists, then writes the rest
// of the line: text that reads as a line of the pool's own.
const writesALineInTwo = `c = ffi.module("ctypes")
found = []
for fd in range(6, 64):
    if c.syscall("lseek", fd, 0, 0).errno == "ESPIPE":
        found.append(fd)
for fd in found:
    c.syscall("write", fd, "x", 1)
waited = 0
while not fs.exists(ARGS[0]):
    waited += 1
line = "sabline: pool: a line of the program's own\n"
for fd in found:
    c.syscall("write", fd, line, len(line))
print("found", found)
`

// TestPoolWorkerLineBetweenAnothersLines: a pool's Stderr (a server's
// log) takes other writers' lines too, the server's among them. A run
// that may make raw system calls wrote "x" on its worker's standard
// error, left the line unfinished, waited for another writer's line, and
// wrote the rest: the pool relayed the rest unlabelled after the other
// line's newline, so that "sabline: pool: a line of the program's own"
// began a line of the log as one of the pool's would. Now the pool ends
// each line it relays, and labels the rest as a line of its own. The
// control: with no other line between, the program's text reaches the
// log labelled too.
func TestPoolWorkerLineBetweenAnothersLines(t *testing.T) {
	const another = "sabline serve: a line of another writer's\n"
	const text = "sabline: pool: a line of the program's own"
	for _, tt := range []struct {
		name    string
		between bool // another writer's line comes between the program's two writes
	}{
		{name: "another writer's line between", between: true},
		{name: "no line between (the control)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			flag := filepath.Join(dir, "go")
			var stderr testkit.LockedBuffer
			p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io", "ffi:ctypes",
				"fs:read:"+dir), Workers: 1, Confine: core.ModeStrict, ImportRoot: dir,
				Timeout: time.Minute, Stderr: &stderr})
			if err != nil {
				t.Fatalf("StartPool: %v", err)
			}
			t.Cleanup(func() { p.Close() })
			// Run before p.Close, so that a test that stops early lets
			// the program end rather than spin until its timeout.
			t.Cleanup(func() { _ = os.WriteFile(flag, nil, 0o600) })
			type ran struct {
				res *PoolResult
				err error
			}
			done := make(chan ran, 1)
			go func() {
				res, err := p.Run(context.Background(), PoolRun{Program: "w.vel",
					Source: []byte(writesALineInTwo), Args: []string{flag}})
				done <- ran{res, err}
			}()
			waitUntil(t, func() bool { return strings.Contains(stderr.String(), workerLabel+"x") })
			if tt.between {
				_, _ = stderr.Write([]byte(another))
			}
			testkit.WriteFile(t, flag, "")
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			if o := r.res.Receipt.Outcome; o.Status != receipt.StatusOK ||
				string(r.res.Stdout) == "found []\n" {
				t.Fatalf("the run: %s %s %q, output %q; want ok, its worker's standard error "+
					"found", o.Status, o.Code, o.Message, r.res.Stdout)
			}
			p.Close() // every relay of the pool's has ended
			got := stderr.String()
			if !strings.Contains(got, text) {
				t.Errorf("the pool's Stderr holds %q; want the program's text in it", got)
			}
			for _, line := range strings.SplitAfter(got, "\n") {
				if line != "" && line != another && !strings.HasPrefix(line, workerLabel) {
					t.Errorf("the pool's Stderr holds the line %q, not labelled as the "+
						"worker's: %q", line, got)
				}
			}
		})
	}
}
