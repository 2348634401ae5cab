//go:build unix

package lang

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestCompileRefusesWhatIsNotAFile: a program that is a pipe is refused at
// once (E316) instead of blocking the compile; the regular file beside it
// compiles.
func TestCompileRefusesWhatIsNotAFile(t *testing.T) {
	dir := testkit.Scratch(t)
	fifo := filepath.Join(dir, "p.vel")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	in := NewInterp(Config{Cwd: dir, Stdin: strings.NewReader("")})
	_, err := in.Compile(fifo, in.Predeclared())
	testkit.WantError(t, err, codes.E316, "", "not a regular file")
	ok := filepath.Join(dir, "ok.vel")
	testkit.WriteFile(t, ok, "x = 1\n")
	if _, err := in.Compile(ok, in.Predeclared()); err != nil {
		t.Errorf("the regular file: %v", err)
	}
	// A load that is a pipe is refused too, instead of blocking: its
	// control is the regular file loaded the same way.
	if err := syscall.Mkfifo(filepath.Join(dir, "f.vel"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ load, want string }{{"ok.vel", ""}, {"f.vel", "not a regular file"}} {
		main := filepath.Join(dir, "main.vel")
		testkit.WriteFile(t, main, fmt.Sprintf("load(%q, \"x\")\n", tc.load))
		done := make(chan error, 1)
		go func() { _, err := in.Compile(main, in.Predeclared()); done <- err }()
		select {
		case err := <-done:
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("load(%q): %v, want an error saying %q (none for the file)", tc.load, err, tc.want)
			}
		case <-time.After(testkit.Bound(5 * time.Second)):
			t.Fatalf("load(%q): the compile blocked", tc.load)
		}
	}
}
