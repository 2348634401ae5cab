package lang

import (
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// signalWriter tells, once, that the program wrote its first output.
type signalWriter struct{ wrote chan struct{} }

func (w *signalWriter) Write(p []byte) (int, error) {
	select {
	case <-w.wrote:
	default:
		close(w.wrote)
	}
	return len(p), nil
}

// TestStopPosition stops a program in a loop that never ends by itself,
// once it has printed: the E307 it ends with names a line of the loop
// (its header or its body), the statement it was running, not the
// program's first position nor a statement before the loop. A stop may
// land as print returns, which is where the program was then (the
// print's own position, and nothing else, is allowed besides the loop):
// such a run is tried again, and the test fails when no run of
// stopAttempts says the loop.
func TestStopPosition(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		print     string // the position of the print call
		loop      [2]int // the loop's first and last lines
	}{
		{"top level", "print('go')\nfor i in range(1 << 40):\n    x = i\n", "1:6", [2]int{2, 3}},
		{"in a function", "def f():\n    print('go')\n    for i in range(1 << 40):\n        x = i\n" +
			"f()\n", "2:10", [2]int{3, 4}},
		{"while", "print('go')\nwhile True:\n    n = len(ARGS)\n", "1:6", [2]int{2, 3}},
		{"while True, a body that cannot fail", "x = 0\nprint('go')\nx = 2\nwhile True:\n    x = 1\n",
			"2:6", [2]int{4, 5}},
		{"while True, on one line", "print('go')\nwhile True: pass\n", "1:6", [2]int{2, 2}},
		{"while True in a function", "def f():\n    x = 0\n    print('go')\n    while True:\n" +
			"        x = 1\nf()\n", "3:10", [2]int{4, 5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			prog := filepath.Join(dir, "main.vel")
			testkit.WriteFile(t, prog, tt.src)
			var seen []string
			for range stopAttempts {
				pos := stopOnce(t, dir, prog)
				for l := tt.loop[0]; l <= tt.loop[1]; l++ {
					if strings.HasPrefix(pos, prog+":"+strconv.Itoa(l)+":") {
						return
					}
				}
				if pos != prog+":"+tt.print {
					t.Fatalf("position %q, want the loop's (lines %d-%d) or the print's, %s", pos,
						tt.loop[0], tt.loop[1], tt.print)
				}
				seen = append(seen, pos)
			}
			t.Errorf("positions %q, want one on the loop's lines %d-%d", seen, tt.loop[0],
				tt.loop[1])
		})
	}
}

// stopAttempts is how many runs TestStopPosition stops at most.
const stopAttempts = 10

// stopOnce runs prog, stops it once it has printed and returns the
// position its E307 names.
func stopOnce(t *testing.T, dir, prog string) string {
	t.Helper()
	out := &signalWriter{wrote: make(chan struct{})}
	in := NewInterp(Config{Budget: budget.MustParse(dir, "io"), Cwd: dir,
		Stdout: out, Stdin: strings.NewReader("")})
	pre := in.Predeclared()
	c, err := in.Compile(prog, pre)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- in.Exec(c, pre) }()
	<-out.wrote
	pastPrint(t)
	in.Stop("stopped by the test")
	err = <-done
	var e *codes.Error
	if !errors.As(err, &e) || e.Code != codes.E307 {
		t.Fatalf("the stopped run ended with %v, want E307", err)
	}
	return e.Pos
}

// pastPrint waits until no goroutine is in print: the program that
// printed is past it, in the statement after, so a stop is seen there and
// not as print returns. It reads the goroutines' stacks, yielding between
// reads, for at most a minute.
func pastPrint(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); runtime.Gosched() {
		if !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "lang.(*Interp).print") {
			return
		}
	}
	t.Fatal("the program was still in print after a minute")
}
