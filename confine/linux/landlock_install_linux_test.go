package linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// installChildEnv carries the case and the scratch tree to the test
// binary re-run as the child that installs a ruleset.
const installChildEnv = "SABLINE_TEST_INSTALL_CHILD"

// installFiles is how many files the granted directory of the "rlimit"
// case holds, each a carved rule; installSoftLimit the soft
// RLIMIT_NOFILE the child lowers itself to, well below it.
const (
	installFiles     = 400
	installSoftLimit = 64
)

// TestInstallLandlockOnTheKernel installs rulesets in re-run copies of the
// test binary:
//
//   - "rlimit": a grant of a directory beside a guarded location, carved
//     into more rules than the child's soft RLIMIT_NOFILE, which it lowers
//     before it applies: the ruleset installs, one descriptor at a time,
//     and holds: a file under a carved rule is read, the guarded one and
//     one outside the grant are refused.
//   - "swapped": a ruleset built on a granted directory that is then
//     renamed away and replaced by another: the install refuses it
//     (errSwapped), no thread is restricted, and applyWith's Result says
//     Landlock was not applied and why.
func TestInstallLandlockOnTheKernel(t *testing.T) {
	if v := os.Getenv(installChildEnv); v != "" {
		testkit.EndChildBeforeCoverage(t)
		which, base, _ := strings.Cut(v, ":")
		runInstallChild(t, which, base)
		return
	}
	if _, err := LandlockABI(); err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"outside.txt", "many/.ssh/id_test", "real/f", "swap/f"}
	for i := range installFiles {
		files = append(files, fmt.Sprintf("many/f%03d", i))
	}
	for _, f := range files {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, which := range []string{"rlimit", "swapped"} {
		t.Run(which, func(t *testing.T) {
			childChecks(t, "TestInstallLandlockOnTheKernel", installChildEnv, which+":"+base, "install")
		})
	}
}

func runInstallChild(t *testing.T, which, base string) {
	abi, err := LandlockABI()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(base, rel) }
	checks, expect := errnoChecks(t)
	read := func(path string) error { _, err := os.ReadFile(path); return err }
	switch which {
	case "rlimit":
		policy := core.OSPolicy(budget.MustParse("/", "io,fs:read:"+p("many")), core.Options{})
		plan, err := LandlockPlan(policy, core.Needs{Executable: exe}, abi)
		if err != nil {
			t.Fatal(err)
		}
		carveOuts := []guard.CarveOut{{Path: p("many/.ssh")}}
		carved, _, err := targetLandlock(plan, carveOuts, nil)
		if err != nil {
			t.Fatal(err)
		}
		*checks++
		if len(carved.Rules) <= installSoftLimit {
			t.Fatalf("the carved ruleset has %d rules, want more than %d", len(carved.Rules), installSoftLimit)
		}
		lim := unix.Rlimit{Cur: installSoftLimit, Max: installSoftLimit}
		var was unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &was); err != nil {
			t.Fatal(err)
		}
		lim.Max = was.Max // only the soft limit is lowered
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		applied, err := ApplyLandlock(plan, carveOuts, nil)
		if err != nil {
			t.Fatalf("apply %d rules under a soft RLIMIT_NOFILE of %d: %v", len(carved.Rules), installSoftLimit, err)
		}
		t.Logf("applied %d rules under a soft RLIMIT_NOFILE of %d; withheld %q", len(carved.Rules),
			installSoftLimit, applied.Carving.Withheld)
		expect("read a file under a carved rule", read(p("many/f123")), 0)
		expect("read the last file under a carved rule", read(p(fmt.Sprintf("many/f%03d", installFiles-1))), 0)
		expect("read the guarded file", read(p("many/.ssh/id_test")), syscall.EACCES)
		expect("read a file outside the grant", read(p("outside.txt")), syscall.EACCES)
	case "swapped":
		policy := core.OSPolicy(budget.MustParse("/", "io,fs:read:"+p("real")+",fs:read:"+p("swap")), core.Options{})
		landlockOnly := everyLayer().onlyLayer(layerLandlockOnly)
		var swapErr error
		landlockOnly.landlock = func(plan LandlockRuleset, carveOuts []guard.CarveOut,
			admitted map[string]string) (LandlockApplied, error) {
			carved, _, err := targetLandlock(plan, carveOuts, admitted)
			if err != nil {
				return LandlockApplied{}, err
			}
			b, err := buildLandlock(carved)
			if err != nil {
				return LandlockApplied{}, err
			}
			// Between the build and the install, the granted directory
			// is renamed away and another made at its path.
			if err := os.Rename(p("swap"), p("swapped-away")); err != nil {
				return LandlockApplied{}, err
			}
			if err := os.Mkdir(p("swap"), 0o755); err != nil {
				return LandlockApplied{}, err
			}
			_, swapErr = installLandlock(b)
			return LandlockApplied{}, swapErr
		}
		res, err := applyWith(policy, ApplyOptions{}, landlockOnly)
		*checks++
		if !errors.Is(swapErr, errSwapped) || !errors.Is(err, errSwapped) {
			t.Errorf("install after the swap: %v, apply: %v; want both %v", swapErr, err, errSwapped)
		}
		*checks++
		if swapErr == nil || !strings.Contains(swapErr.Error(), p("swap")) {
			t.Errorf("the refusal %q does not name %s", swapErr, p("swap"))
		}
		*checks++
		if res.Level != core.None || !strings.Contains(res.Reason, "Landlock was not applied") ||
			!strings.Contains(res.Reason, errSwapped.Error()) {
			t.Errorf("Result %v: %q; want level none, saying Landlock was not applied and %q",
				res.Level, res.Reason, errSwapped)
		}
		// No thread was restricted: what lies outside every grant is read.
		expect("read a file outside the grants", read(p("outside.txt")), 0)
		expect("read the directory renamed away", read(p("swapped-away/f")), 0)
	default:
		t.Fatalf("no case %q", which)
	}
	t.Logf("install child: %d checks", *checks)
}
