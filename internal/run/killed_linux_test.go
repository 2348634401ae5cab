package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/receipt"
)

// TestSupervisorKilledOutright: a supervisor killed with SIGKILL leaves its
// reserved receipt, saying the run started and was not finished, and that
// what its worker applied is not known (receipts list: level -; it said
// the run ended before the policy was applied, level none, of a run that
// ran), and its temporary directory, which the next run sweeps; a live
// run's directory is left alone. The control: a run whose program does not
// compile ended before its policy was applied, and its receipt says so.
func TestSupervisorKilledOutright(t *testing.T) {
	bin, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The runs' temporary directories are made in the user's cache
	// directory, here one of the test's own.
	cache, receipts := filepath.Join(dir, "cache"), filepath.Join(dir, "receipts")
	tmp := filepath.Join(cache, filepath.FromSlash(runsDirName))
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop.vel")
	quick := filepath.Join(dir, "quick.vel")
	os.WriteFile(loop, []byte("while True:\n    pass\n"), 0o600)
	os.WriteFile(quick, []byte("x = 1\n"), 0o600)
	start := func(prog string) *exec.Cmd {
		cmd := exec.Command(bin, prog, "--timeout", "60s")
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, receipt.DirEnv+"="+receipts)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// SIGTERM: the supervisor takes its worker down with it. (The one
		// killed outright takes its worker down by the parent-death
		// signal, which is Linux's.)
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
		return cmd
	}
	// newDir waits for a temporary directory not in seen to appear.
	newDir := func(seen map[string]bool) string {
		for deadline := time.Now().Add(testkit.Bound(20 * time.Second)); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			entries, _ := os.ReadDir(tmp)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), tempPrefix) && !seen[e.Name()] {
					seen[e.Name()] = true
					return filepath.Join(tmp, e.Name())
				}
			}
		}
		t.Fatal("no temporary directory appeared")
		return ""
	}
	// reserved waits for n receipts to be reserved: a supervisor makes
	// its worker's directory before it reserves the receipt.
	reserved := func(n int) {
		for deadline := time.Now().Add(testkit.Bound(20 * time.Second)); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if runs, _ := receipt.List(receipts); len(runs) >= n {
				return
			}
		}
		t.Fatalf("fewer than %d receipts reserved", n)
	}
	seen := map[string]bool{}
	killed := start(loop)
	killedDir := newDir(seen)
	reserved(1)
	live := start(loop)
	liveDir := newDir(seen)
	reserved(2)
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed.Wait()
	time.Sleep(staleAfter + 500*time.Millisecond)
	if _, err := os.Stat(killedDir); err != nil {
		t.Fatalf("the killed supervisor's directory: %v, want it left behind for the test to see", err)
	}
	runs, err := receipt.List(receipts)
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d receipts (%v), want the two reserved ones", len(runs), err)
	}
	for _, r := range runs {
		if r.Outcome.Status != receipt.StatusUnfinished {
			t.Fatalf("receipt %s says %q, want %q", r.Path, r.Outcome.Status, receipt.StatusUnfinished)
		}
		// Its worker was running, confined: the receipt cannot say it
		// ended before the policy was applied, and says it is not known.
		if why := r.RunParameters.ConfinementReason; !strings.HasPrefix(why, "not known") {
			t.Errorf("the unfinished receipt's confinement: %s (%q), want it not known",
				r.RunParameters.Confinement, why)
		}
	}
	out, err := exec.Command(bin, "receipts", "list", "--receipts", receipts).CombinedOutput()
	if err != nil || strings.Count(string(out), "unfinished E327 -  ") != 2 {
		t.Errorf("receipts list: %v\n%s\nwant two unfinished runs, their level not known (-)", err, out)
	}

	// The control: a run that ends before its policy is applied (its
	// program does not compile) says so, its level none.
	broken := filepath.Join(dir, "broken.vel")
	os.WriteFile(broken, []byte("x = (\n"), 0o600)
	brokenRC := filepath.Join(dir, "broken-receipts")
	if out, err := exec.Command(bin, "--receipts", brokenRC, broken).CombinedOutput(); err == nil {
		t.Fatalf("a program that does not compile ran: %s", out)
	}
	if runs, err := receipt.List(brokenRC); err != nil || len(runs) != 1 ||
		!strings.HasPrefix(runs[0].RunParameters.ConfinementReason,
			"the run ended before the policy was applied") {
		t.Errorf("the run that did not compile: %v, %d receipts, want one that says it ended "+
			"before the policy was applied", err, len(runs))
	}

	sweeper := exec.Command(bin, quick)
	sweeper.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, receipt.DirEnv+"="+receipts)
	if out, err := sweeper.CombinedOutput(); err != nil {
		t.Fatalf("the next run: %v: %s", err, out)
	}
	if _, err := os.Stat(killedDir); !os.IsNotExist(err) {
		t.Fatalf("the killed supervisor's directory after the next run: %v, want it swept", err)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Fatalf("the live run's directory after the next run: %v, want it kept", err)
	}
	if live.ProcessState != nil {
		t.Fatal("the live run ended before the sweep: the test proves nothing of it")
	}
}
