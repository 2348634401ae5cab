package linux

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
//     renamed away and replaced by another: the install leaves that
//     grant's rule out and says so (gone), and restricts every thread to
//     the rest: the directory now at the path, the one renamed away and
//     what lies outside every grant are refused, the other grant read
//     (the control). It refused the whole ruleset before, and the worker
//     went on with no Landlock at all.
//   - "linked": the same, the granted directory replaced by a link to a
//     directory no grant names: its rule is left out, and what the link
//     leads to is refused.
//   - "operator": the same, of a path the operator's environment names (a
//     TLS root, LandlockRule.Operator) in place of a grant: it is left
//     out and said to be, as a grant is.
//   - "parent": the same, the granted directory's parent replaced by a
//     link, so that a link lies on the way to the grant (ELOOP): its rule
//     is left out, not the ruleset.
func TestInstallLandlockOnTheKernel(t *testing.T) {
	if v := os.Getenv(installChildEnv); v != "" {
		testkit.EndChildBeforeCoverage(t)
		which, base, _ := strings.Cut(v, ":")
		runInstallChild(t, which, base)
		return
	}
	base := landlockScratch(t)
	files := []string{"outside.txt", "many/.ssh/id_test", "real/f", "swap/f", "link/f", "oper/f",
		"pare/in/f", "beside/f", "beside/in/f", "carv/.ssh/id_test", "carv/sub/f", "carv/g/f"}
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
	for _, which := range []string{"rlimit", "swapped", "linked", "operator", "parent", "carved"} {
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
	case "swapped", "linked", "operator", "parent", "carved":
		// grant is the granted directory; at, the entry swapped: it, or
		// its parent, or, carved, an entry the carving of a guarded
		// location beneath the grant listed, which, gone, leaves its
		// rule out and nothing withheld: what the grant reaches there
		// is narrowed, never widened.
		grant, at := p(which[:4]), p(which[:4])
		var opts ApplyOptions
		wantGone := []string{grant}
		switch which {
		case "parent":
			grant = p("pare/in")
			wantGone = []string{grant}
		case "carved":
			at, wantGone = p("carv/sub"), nil
			opts.CarveOuts = []guard.CarveOut{{Path: p("carv/.ssh")}}
		}
		swapped := which == "swapped" || which == "carved"
		policy := core.OSPolicy(budget.MustParse("/", "io,fs:read:"+p("real")+",fs:read:"+grant),
			core.Options{})
		landlockOnly := everyLayer().onlyLayer(layerLandlockOnly)
		var gone []string
		var swapErr error
		var leaked int // descriptors the install left open
		landlockOnly.landlock = func(plan LandlockRuleset, carveOuts []guard.CarveOut,
			admitted map[string]string) (LandlockApplied, error) {
			carved, applied, err := targetLandlock(plan, carveOuts, admitted)
			if err != nil {
				return LandlockApplied{}, err
			}
			for i, r := range carved.Rules {
				if which == "operator" && r.Path == p("oper") {
					carved.Rules[i].Grant, carved.Rules[i].Operator = false, true
				}
			}
			b, err := buildLandlock(carved)
			if err != nil {
				return LandlockApplied{}, err
			}
			// Between the build and the install, the granted directory
			// is renamed away and another entry put at its path: a
			// directory, or a link to one no grant names.
			if err := os.Rename(at, at+"-away"); err != nil {
				return LandlockApplied{}, err
			}
			if swapped {
				err = os.Mkdir(at, 0o755)
			} else {
				err = os.Symlink(p("beside"), at)
			}
			if err != nil {
				return LandlockApplied{}, err
			}
			if swapped {
				if err := os.WriteFile(at+"/f", []byte("data"), 0o644); err != nil {
					return LandlockApplied{}, err
				}
			}
			before := openDescriptors()
			gone, swapErr = installLandlock(b)
			leaked = openDescriptors() - before
			applied.Carving.Withheld = gone
			return applied, swapErr
		}
		res, err := applyWith(policy, opts, landlockOnly)
		*checks++
		if swapErr != nil || err != nil {
			t.Errorf("install after the swap: %v, apply: %v; want the grant left out", swapErr, err)
		}
		*checks++
		if leaked != 0 {
			t.Errorf("the install left %d descriptors open, want none: the rule it left out "+
				"is closed too", leaked)
		}
		*checks++
		if !slices.Equal(gone, wantGone) {
			t.Errorf("the install left out %q, want %q", gone, wantGone)
		}
		*checks++
		if res.Level == core.None || strings.Contains(res.Reason, "Landlock was not applied") ||
			strings.Contains(res.Reason, "left out of the kernel's ruleset") != (wantGone != nil) {
			t.Errorf("Result %v: %q; want Landlock applied, %q left out", res.Level, res.Reason,
				wantGone)
		}
		expect("read the other grant (the control)", read(p("real/f")), 0)
		expect("read a file outside the grants", read(p("outside.txt")), syscall.EACCES)
		if which == "carved" {
			expect("read beside the carved entry (the control)", read(p("carv/g/f")), 0)
			expect("read the guarded file", read(p("carv/.ssh/id_test")), syscall.EACCES)
			expect("read what is at the carved entry's path", read(at+"/f"), syscall.EACCES)
			expect("read the carved entry renamed away", read(at+"-away/f"), syscall.EACCES)
			break
		}
		rest := strings.TrimPrefix(grant, at)
		expect("read what is at the swapped grant's path", read(grant+"/f"), syscall.EACCES)
		expect("read the directory renamed away", read(at+"-away"+rest+"/f"), syscall.EACCES)
	default:
		t.Fatalf("no case %q", which)
	}
	t.Logf("install child: %d checks", *checks)
}

// openDescriptors counts the process's open descriptors below 1,024 by
// asking each number for its flags (fcntl F_GETFD): no file is opened,
// and none is read, which Landlock could refuse.
func openDescriptors() int {
	n := 0
	for fd := range 1024 {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			n++
		}
	}
	return n
}
