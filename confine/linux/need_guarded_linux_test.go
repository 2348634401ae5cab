package linux

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// needGuardedChildEnv carries the scratch tree to the test binary re-run
// as the child that applies the ruleset.
const needGuardedChildEnv = "SABLINE_TEST_NEED_GUARDED_CHILD"

// TestNeedLinkedIntoGuarded applies, in a child, the ruleset of a budget
// of io alone whose time zone needs are links made where the interpreter
// looks for them: one to a home's ~/.ssh, a guarded location, and one to
// a file in a home's dot-entry, as a run that may write in /usr/share
// makes /usr/share/zoneinfo a link for every later run to follow. Each
// need is left out of the ruleset (Carving.NeedsWithheld, named in the
// reason), and the key and the settings are refused through the links
// and by their own paths, as the child read them before it applied the
// ruleset. Before, each need was held where its link led, and a later
// run with raw calls and no file grant read the key at level full.
//
// The controls are a time zone directory that is no link, read, and the
// private temporary directory, which lies in the runs' directory as
// written, a location no grant reaches: written and read back.
func TestNeedLinkedIntoGuarded(t *testing.T) {
	if base := os.Getenv(needGuardedChildEnv); base != "" {
		testkit.EndChildBeforeCoverage(t)
		runNeedGuardedChild(t, base)
		return
	}
	base := landlockScratch(t)
	for _, f := range []string{"home/.ssh/key", "home/.config/app/settings", "tz/zone"} {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(base, "runs/tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"zoneinfo": "home/.ssh",
		"localtime": "home/.config/app/settings"} {
		if err := os.Symlink(filepath.Join(base, to), filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	childChecks(t, "TestNeedLinkedIntoGuarded", needGuardedChildEnv, base, "need guarded")
}

func runNeedGuardedChild(t *testing.T, base string) {
	policy, plan, p := tzNeedsPlan(t, base)
	carveOuts := []guard.CarveOut{
		{Path: p("home"), Expand: true, Dots: true},
		{Path: p("home/.ssh")},
		{Path: p("runs")},
	}
	checks, expect := errnoChecks(t)
	read := func(path string) error { _, err := os.ReadFile(path); return err }
	expect("before: read the key", read(p("home/.ssh/key")), 0)
	expect("before: read the settings", read(p("home/.config/app/settings")), 0)

	applied, err := ApplyLandlock(plan, carveOuts, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{p("localtime"), p("zoneinfo")}
	*checks++
	if !slices.Equal(applied.Carving.NeedsWithheld, want) {
		t.Errorf("needs withheld %q, want %q", applied.Carving.NeedsWithheld, want)
	}
	reason := Assess(policy, Held{LandlockABI: applied.ABI, Seccomp: true,
		Carving: applied.Carving}).Reason
	for _, w := range want {
		*checks++
		if !strings.Contains(reason, w) {
			t.Errorf("the reason %q does not name %s", reason, w)
		}
	}
	expect("read the key through the need's link", read(p("zoneinfo/key")), syscall.EACCES)
	expect("read the key", read(p("home/.ssh/key")), syscall.EACCES)
	expect("read the settings through the need's link", read(p("localtime")), syscall.EACCES)
	expect("read the settings", read(p("home/.config/app/settings")), syscall.EACCES)
	expect("read the time zone that is no link (the control)", read(p("tz/zone")), 0)
	expect("write in the private temporary directory (the control)",
		os.WriteFile(p("runs/tmp/f"), []byte("x"), 0o600), 0)
	expect("read it back (the control)", read(p("runs/tmp/f")), 0)
	t.Logf("need guarded child: %d checks", *checks)
}

// needAboveChildEnv carries the scratch tree to the test binary re-run as
// the child that applies the ruleset of TestNeedLinkedAboveGuarded.
const needAboveChildEnv = "SABLINE_TEST_NEED_ABOVE_CHILD"

// TestNeedLinkedAboveGuarded applies, in a child, the ruleset of a budget
// of io alone whose time zone need is a link made where the interpreter
// looks for it, to a directory a guarded location lies in, as a run that
// may write in /etc makes /etc/localtime a link to /etc, and fills /etc
// with more entries than the carving of a ruleset adds rules for
// (MaxCarvedRules): the need is left out of the ruleset
// (Carving.NeedsWithheld), and the key in the guarded location is refused
// through the link and by its own path. Before, the need's rule, too
// large to carve, was kept whole, the location left to the language,
// which holds no raw call: a later run with raw calls and no file grant
// read the key.
//
// The controls are a need linked to a directory no guarded location lies
// in, read through its link, and a time zone directory that is no link.
func TestNeedLinkedAboveGuarded(t *testing.T) {
	if base := os.Getenv(needAboveChildEnv); base != "" {
		testkit.EndChildBeforeCoverage(t)
		runNeedAboveChild(t, base)
		return
	}
	base := landlockScratch(t)
	for _, f := range []string{"etc/secret/key", "zones/zone", "tz/zone"} {
		testkit.WriteFile(t, filepath.Join(base, f), "data")
	}
	for i := range MaxCarvedRules + 1 {
		f, err := os.Create(filepath.Join(base, "etc", fmt.Sprintf("e%05d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.MkdirAll(filepath.Join(base, "runs/tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"localtime": "etc", "zoneinfo": "zones"} {
		if err := os.Symlink(filepath.Join(base, to), filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	childChecks(t, "TestNeedLinkedAboveGuarded", needAboveChildEnv, base, "need above")
}

func runNeedAboveChild(t *testing.T, base string) {
	_, plan, p := tzNeedsPlan(t, base)
	carveOuts := []guard.CarveOut{{Path: p("etc/secret")}, {Path: p("runs")}}
	checks, expect := errnoChecks(t)
	read := func(path string) error { _, err := os.ReadFile(path); return err }
	expect("before: read the key", read(p("etc/secret/key")), 0)

	applied, err := ApplyLandlock(plan, carveOuts, nil)
	if err != nil {
		t.Fatal(err)
	}
	*checks++
	if want := []string{p("localtime")}; !slices.Equal(applied.Carving.NeedsWithheld, want) {
		t.Errorf("needs withheld %q, want %q", applied.Carving.NeedsWithheld, want)
	}
	expect("read the key through the need's link", read(p("localtime/secret/key")),
		syscall.EACCES)
	expect("read the key", read(p("etc/secret/key")), syscall.EACCES)
	expect("read through a need's link to no guarded location (the control)",
		read(p("zoneinfo/zone")), 0)
	expect("read the time zone that is no link (the control)", read(p("tz/zone")), 0)
	t.Logf("need above child: %d checks", *checks)
}

// tzNeedsPlan is, for a child of this file's tests, the ruleset of a
// budget of io alone planned at this kernel's ABI, its time zone needs tz,
// zoneinfo and localtime beneath base and its temporary directory
// runs/tmp, with the policy and p, the path of a name beneath base.
func tzNeedsPlan(t *testing.T, base string) (core.Policy, LandlockRuleset,
	func(string) string) {
	t.Helper()
	abi, err := LandlockABI()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(base, rel) }
	policy := core.OSPolicy(budget.MustParse("/", "io"), core.Options{})
	needs := core.Needs{Executable: exe, TempDir: p("runs/tmp"),
		TZData: []string{p("tz"), p("zoneinfo"), p("localtime")}}
	plan, err := LandlockPlan(policy, needs, abi)
	if err != nil {
		t.Fatal(err)
	}
	return policy, plan, p
}

// landlockScratch is a temporary directory of the test's, as it resolves
// (the kernel's rules name it so), for a test that applies a ruleset in
// a child; it skips the test where the kernel has no Landlock.
func landlockScratch(t *testing.T) string {
	t.Helper()
	if _, err := LandlockABI(); err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return base
}
