package run

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestRelayLineByLine: a program that reads its input a line at a time
// answers each line before the next is written, and its run ends when the
// program does, though the caller's input never ends (the test keeps its
// end open until the run has returned).
func TestRelayLineByLine(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	done := make(chan supervised, 1)
	go func() {
		done <- superviseProgram(t, `for i in range(3):
    print("got", io.read_line())
`, []string{"io"}, func(r *Run) { r.Stdin, r.Stdout = inR, outW })
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for _, line := range []string{"one", "two", "three"} {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		got, err := answers.ReadString('\n')
		if want := "got " + line + "\n"; got != want || err != nil {
			t.Fatalf("answer %q (%v), want %q", got, err, want)
		}
	}
	select {
	case s := <-done:
		if s.rec.Outcome.Status != receipt.StatusOK {
			t.Fatalf("outcome %+v, stderr %s", s.rec.Outcome, s.stderr)
		}
	case <-time.After(testkit.Bound(time.Minute)):
		t.Fatal("the run did not end with its program while the caller's input stayed open")
	}
	if rest, _ := io.ReadAll(answers); len(rest) != 0 {
		t.Errorf("more output after the last answer: %q", rest)
	}
}

// TestRelayLargeOutput: 16 MiB printed to a file the caller opened arrive
// in it whole and in order before the run returns, and the receipt counts
// them.
func TestRelayLargeOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := superviseProgram(t, `pad = "x" * 1017
for i in range(16384):
    print(str(100000 + i)[1:], pad)
`, []string{"io"}, func(r *Run) { r.Stdout = f })
	if s.rec.Outcome.Status != receipt.StatusOK {
		t.Fatalf("outcome %+v, stderr %s", s.rec.Outcome, s.stderr)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	pad := strings.Repeat("x", 1017)
	for i := range 16384 {
		fmt.Fprintf(&want, "%05d %s\n", i, pad)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the file holds %d bytes, want %d (first difference at %d)", len(got), want.Len(), firstDiff(got, want.Bytes()))
	}
	// A file of the caller's is relayed too, and what it took counted.
	if n := s.rec.Observed.StdoutBytes; n == nil || *n != int64(want.Len()) {
		t.Errorf("observed stdout_bytes %v, want %d", n, want.Len())
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRelayedByPath: the caller's file the run's output is relayed to is
// still the run's own to the language: a file effect on its path is
// refused (use io), where the file beside it, under the same grant, is
// written.
func TestRelayedByPath(t *testing.T) {
	dir := t.TempDir()
	own, beside := filepath.Join(dir, "out.txt"), filepath.Join(dir, "beside.txt")
	f, err := os.Create(own)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := superviseProgram(t, `fs.write(ARGS[1], "x")
fs.write(ARGS[0], "forged")
`, []string{"fs:write:" + dir}, func(r *Run) { r.Stdout, r.Args = f, []string{own, beside} })
	wantCode(t, s, codes.E302, "use io")
	if data, err := os.ReadFile(beside); err != nil || string(data) != "x" {
		t.Errorf("the file beside holds %q (%v), want x", data, err)
	}
	if data, _ := os.ReadFile(own); len(data) != 0 {
		t.Errorf("the caller's output holds %q: the write went through", data)
	}
}
