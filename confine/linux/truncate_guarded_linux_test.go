package linux

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

// truncateChildEnv carries "ABI|ALLOW|BASE" to the test binary re-run as
// the child that applies the ruleset of ALLOW planned for ABI, carved
// around BASE/guarded, and truncates the guarded file by its path.
const truncateChildEnv = "SABLINE_TEST_TRUNCATE_GUARDED_CHILD"

// TestTruncateGuardedBelowABI3 holds the level Assess gives a grant of
// every path to what the kernel does with a guarded location carved out
// of it: in a re-run copy of the test binary, the ruleset of the budget,
// planned for each ABI from 1 to 3 the kernel offers and carved around a
// guarded directory, is applied, and the guarded file is truncated by
// its path, as truncate(2) through ffi:ctypes under --confine strict
// does. The file is read from outside afterwards. Below ABI 3 Landlock
// handles no truncation and the file is emptied: the run must then not
// be full, and its reason must say the guarded locations may be
// truncated. From ABI 3 the file is kept, and the run is full.
func TestTruncateGuardedBelowABI3(t *testing.T) {
	if v := os.Getenv(truncateChildEnv); v != "" {
		testkit.EndChildBeforeCoverage(t)
		parts := strings.SplitN(v, "|", 3)
		abi, err := strconv.Atoi(parts[0])
		if err != nil || len(parts) != 3 {
			t.Fatalf("bad %s=%q", truncateChildEnv, v)
		}
		runTruncateGuardedChild(t, abi, parts[1], parts[2])
		return
	}
	kernel, err := LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	const content = "sabline\n"
	for _, allow := range []string{"io,fs", "io,fs:write"} {
		for abi := 1; abi <= min(kernel, landlockABITruncate); abi++ {
			t.Run(allow+" at ABI "+strconv.Itoa(abi), func(t *testing.T) {
				base, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				secret := filepath.Join(base, "guarded", "secret")
				if err := os.Mkdir(filepath.Dir(secret), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(secret, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				childChecks(t, "TestTruncateGuardedBelowABI3", truncateChildEnv,
					strconv.Itoa(abi)+"|"+allow+"|"+base, "truncate")
				fi, err := os.Stat(secret)
				if err != nil {
					t.Fatal(err)
				}
				truncated := fi.Size() != int64(len(content))
				if held := abi >= landlockABITruncate; truncated == held {
					t.Fatalf("at ABI %d the guarded file is %d bytes, read from outside: the kernel "+
						"held its truncation %v, want %v", abi, fi.Size(), !truncated, held)
				}
				r := Assess(confinetest.PolicyOf(allow, false), Held{LandlockABI: abi, Seccomp: true})
				if truncated && (r.Level == core.Full ||
					!strings.Contains(r.Reason, "the guarded locations among them")) {
					t.Errorf("under %s at ABI %d the kernel let the guarded file be truncated (%d bytes left, "+
						"read from outside), and the run is %s: %q", allow, abi, fi.Size(), r.Level, r.Reason)
				}
				if !truncated && r.Level != core.Full {
					t.Errorf("under %s at ABI %d the kernel held the guarded file, and the run is %s: %q",
						allow, abi, r.Level, r.Reason)
				}
			})
		}
	}
}

// runTruncateGuardedChild applies the ruleset of allow at abi, carved
// around base/guarded, then truncates base/guarded/secret by its path.
// What became of the file is the parent's to read.
func runTruncateGuardedChild(t *testing.T, abi int, allow, base string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := confinetest.PolicyOf(allow, false)
	plan, err := LandlockPlan(p, core.Needs{Executable: exe}, abi)
	if err != nil {
		t.Fatal(err)
	}
	guarded := filepath.Join(base, "guarded")
	if _, err := ApplyLandlock(plan, []guard.CarveOut{{Path: guarded}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(filepath.Join(guarded, "secret")); err == nil && p.Read.Unrestricted {
		t.Fatalf("the guarded file was read: the carving did not hold it")
	}
	err = unix.Truncate(filepath.Join(guarded, "secret"), 0)
	t.Logf("truncate(%s, 0) at ABI %d: %v", filepath.Join(guarded, "secret"), abi, err)
	t.Logf("truncate child: 1 checks")
}
