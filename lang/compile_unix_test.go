//go:build unix

package lang

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
	_, err := Compile(fifo, in.Predeclared())
	testkit.WantError(t, err, codes.E316, "", "not a regular file")
	ok := filepath.Join(dir, "ok.vel")
	testkit.WriteFile(t, ok, "x = 1\n")
	if _, err := Compile(ok, in.Predeclared()); err != nil {
		t.Errorf("the regular file: %v", err)
	}
}
