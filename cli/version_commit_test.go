package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/receipt"
)

// TestBuildNamesItsCommit: a sabline built with `go build` inside the
// repository (the Go command stamps the commit) says its commit in
// `sabline version` and in every receipt, and whether the tree had
// changes not committed, as git says them (a kernel report made with it
// does too: TestMachineNamesTheBuildsCommit). The control: the tests' own
// build (-buildvcs=false) names no commit. Outside a git checkout, or
// without git, it is skipped, saying so.
func TestBuildNamesItsCommit(t *testing.T) {
	stamped, commit, modified := buildbin.StampedFor(t)
	for _, tt := range []struct {
		name, bin    string
		wantCommit   string
		wantModified bool
	}{
		{name: "stamped", bin: stamped, wantCommit: commit, wantModified: modified},
		{name: "the control: not stamped", bin: sablineBin(t)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := receipt.Build{Version: receipt.Version, Commit: tt.wantCommit,
				Modified: tt.wantModified}
			out, err := exec.Command(tt.bin, "version").Output()
			if err != nil || !strings.HasPrefix(string(out), want.String()+" (") {
				t.Errorf("sabline version: %q (%v), want it to begin %q", out, err, want.String())
			}
			prog, rc := filepath.Join(t.TempDir(), "hello.vel"), filepath.Join(t.TempDir(), "r")
			if err := os.WriteFile(prog, []byte("print(\"hello\")\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(tt.bin, prog, "--allow", "io", "--receipts", rc).
				CombinedOutput(); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("want one receipt, got %d (%v)", len(runs), err)
			}
			if got := runs[0].Sabline; got != want {
				t.Errorf("the receipt names the build %+v, want %+v", got, want)
			}
		})
	}
}
