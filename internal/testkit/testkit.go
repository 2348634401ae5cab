// Package testkit holds the few helpers the tests share: scratch
// directories with their links resolved, files written with their
// directories, the check of a coded error, the bound of a wait scaled to
// how loaded the machine is (Patience), the user's files kept apart
// (RunApart), a test run again in a process of its own (Rerun), a process
// held by as many Landlock domains as the kernel stacks (StackedExec), the
// packages a command links (Linked), a program slow to compile
// (SlowToCompile), to tell a compile spared from one made, and a program
// that waits mid-run for the test (Gate).
// It is imported by tests only.
//
// # Packages beneath it
//
// Every helper the tests share lives here or beneath it: buildbin builds
// the sabline binary once per test binary; fleettest runs a fleet of
// servers against a bucket; goldenfile compares output with a committed
// file; npmpin installs the npm packages a test directory pins; proc
// reads another process's state from /proc; nohandover is an embedding
// program that skips sabline.HandOver, for the test that shows what that
// costs.
package testkit

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
)

// Scratch returns a new scratch directory with links in its path resolved,
// so that the paths the tests expect are the paths the interpreter checks.
func Scratch(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// WriteFile writes data to path, making its directory.
func WriteFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Pipe is a new pipe, both of its ends closed when the test ends (an end
// the test closed before is closed again, to no effect).
func Pipe(t testing.TB) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	return r, w
}

// WantError checks that err is a *codes.Error with the code and the
// position, and that its message holds every one of msgs.
func WantError(t testing.TB, err error, code codes.Code, pos string, msgs ...string) {
	t.Helper()
	var e *codes.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *Error with code %s", err, err, code)
	}
	if e.Code != code {
		t.Errorf("code %s (%v), want %s", e.Code, e, code)
	}
	if e.Pos != pos {
		t.Errorf("position %q, want %q", e.Pos, pos)
	}
	for _, m := range msgs {
		if !strings.Contains(e.Msg, m) {
			t.Errorf("message %q does not name %q", e.Msg, m)
		}
	}
}

// LockedBuffer is a buffer a process or a run writes from one goroutine
// while the test reads it from another.
type LockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

// Write appends p.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Serve starts a TCP listener on 127.0.0.1 for the test, benchmark or
// fuzz target tb, runs handle on each connection it accepts, each in a
// goroutine of its own, closes the connection when handle returns, and
// closes the listener when tb ends. It returns the listener's port.
func Serve(tb testing.TB, handle func(net.Conn)) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return // closed at the end of tb
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// EchoLine is a Serve handler that reads one line and sends it back after
// prefix.
func EchoLine(prefix string) func(net.Conn) {
	return func(c net.Conn) {
		if line, err := bufio.NewReader(c).ReadString('\n'); err == nil {
			io.WriteString(c, prefix+line)
		}
	}
}

// Get sends GET url with the Authorization header auth ("" for none) and
// returns the reply's status, header and body; a request that gets no
// reply ends tb.
func Get(tb testing.TB, url, auth string) (int, http.Header, string) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(data)
}

// Linked lists the packages the package pkg links (go list -deps) that
// match: the test that a command leaves a costly dependency to another.
// Without a go command it skips, saying why.
func Linked(t testing.TB, pkg string, match func(string) bool) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages with:", err)
	}
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var found []string
	for _, p := range strings.Fields(string(out)) {
		if match(p) {
			found = append(found, p)
		}
	}
	return found
}

// SlowToCompile is a program of some 7.7 KB, under the most a process
// keeps compiled (lang's compiled files), that takes a millisecond or more
// to compile (850 functions) and nothing to run (they are in a function
// never called): the time a run's compile took says whether it compiled.
// tag is its first line, a comment.
func SlowToCompile(tag string) []byte {
	return []byte("# " + tag + "\ndef f():\n    return [" + strings.Repeat("lambda:0,", 850) + "]\n")
}

// Faster reports whether the least of kept is under a quarter of the least
// of compiled: a compile spared takes microseconds where one made takes a
// millisecond or more, however loaded the machine.
func Faster(kept, compiled []time.Duration) bool {
	return slices.Min(kept)*4 < slices.Min(compiled)
}
