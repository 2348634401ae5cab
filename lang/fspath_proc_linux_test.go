package lang

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestProcLinkAtTheEnd: a link in /proc is never followed, the last
// component of a path too, where no more path follows it: a descriptor of
// this process open on a granted file, read by /proc/PID/fd/N under fs:read,
// is refused; the file by its own path is the control.
func TestProcLinkAtTheEnd(t *testing.T) {
	w := newPathWorld(t)
	f, err := os.Open(filepath.Join(w.g, "real.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range []string{fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), f.Fd()), fmt.Sprintf("/proc/%d/cwd", os.Getpid())} {
		stmt := fmt.Sprintf("v = fs.read(%q)", p)
		r := w.runIn(t, "fs:read", stmt, "")
		testkit.WantError(t, r.err, codes.E302, callPos(r.prog, "v = None\n"+stmt, 2), "a link in /proc")
	}
	if r := w.runIn(t, "fs:read", `v = fs.read("$G/real.txt")`, `v == "real"`); r.err != nil {
		t.Fatalf("the control: %v", r.err)
	}
}
