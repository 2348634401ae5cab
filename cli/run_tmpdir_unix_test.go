//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/receipt"
)

// TestRunWithARelativeTMPDIR: a caller with no cache directory (no HOME,
// no XDG_CACHE_HOME: a bare systemd unit, a container) and a relative
// TMPDIR runs, its runs' directory in the system's temporary directory,
// and nothing made in its working directory. Before, the run was refused
// E331, "make the register as root", and left TMPDIR/sabline-runs-UID
// beneath the working directory, made by a run that did not run. So does
// an absolute TMPDIR that is not there, which is not made (a run made
// TMPDIR=/nonexistent with the runs' directory in it). The control is an
// absolute TMPDIR that is there, where the runs' directory is made.
func TestRunWithARelativeTMPDIR(t *testing.T) {
	bin := sablineBin(t)
	prog := helloProgram(t)
	for _, tt := range []struct {
		name      string
		abs, made bool // an absolute TMPDIR; made before the run
	}{{"relative", false, false}, {"absolute, not there", true, false}, {"absolute", true, true}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			wd, rc := filepath.Join(dir, "wd"), filepath.Join(dir, "receipts")
			if err := os.Mkdir(wd, 0o700); err != nil {
				t.Fatal(err)
			}
			tmp := "tmp"
			if tt.abs {
				tmp = filepath.Join(dir, "tmp")
			}
			if tt.made {
				if err := os.Mkdir(tmp, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bin, prog, "--allow", "io", "--receipts", rc)
			cmd.Dir = wd
			for _, e := range os.Environ() {
				if k, _, _ := strings.Cut(e, "="); k != "HOME" && k != "XDG_CACHE_HOME" && k != "TMPDIR" {
					cmd.Env = append(cmd.Env, e)
				}
			}
			cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
			out, _ := cmd.CombinedOutput()
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 || runs[0].Receipt.Outcome.Status != "ok" {
				t.Fatalf("want one receipt, ok, in %s: %d (%v); the command said:\n%s", rc, len(runs), err, out)
			}
			if entries, _ := os.ReadDir(wd); len(entries) != 0 {
				t.Fatalf("the run made %s in its working directory", entries[0].Name())
			}
			switch _, err := os.Stat(filepath.Join(tmp, "sabline-runs-"+strconv.Itoa(os.Geteuid()))); {
			case tt.made && err != nil:
				t.Fatalf("the runs' directory is not in the absolute TMPDIR: %v", err)
			case tt.abs && !tt.made:
				if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
					t.Fatalf("%s, not there before the run: %v, want it never made", tmp, err)
				}
			}
		})
	}
}
