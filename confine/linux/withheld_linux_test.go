package linux

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
)

// mkBlockDevice makes a block device node at p, as the loop device 7,0:
// nothing here opens it but as a path. It skips the test where the node
// cannot be made.
func mkBlockDevice(t *testing.T, p string) {
	t.Helper()
	if err := unix.Mknod(p, unix.S_IFBLK|0o600, int(unix.Mkdev(7, 0))); err != nil {
		t.Skipf("a block device cannot be made here (mknod: %v)", err)
	}
}

// TestPinEntryBlockDevice shows that a rule is never held on a block
// device, nor on a character device outside /dev: pinEntry refuses one,
// as it refuses a link, so that a grant whose path is a disk, or a /dev/zero
// made in a granted directory, is left out of the ruleset (the language
// refuses them too, guard.RefusesDevice). The controls are a plain file
// beside them and /dev/null, pinned.
func TestPinEntryBlockDevice(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkBlockDevice(t, filepath.Join(base, "disk"))
	if err := unix.Mknod(filepath.Join(base, "zero"), unix.S_IFCHR|0o600, int(unix.Mkdev(1, 5))); err != nil {
		t.Fatalf("mknod of a character device, where a block device could be made: %v", err)
	}
	if err := os.WriteFile(filepath.Join(base, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		rel        string
		wantPinned bool
	}{
		{name: "control: a file", rel: "f", wantPinned: true},
		{name: "a block device", rel: "disk"},
		{name: "a character device outside /dev", rel: "zero"},
		{name: "control: /dev/null", rel: "/dev/null", wantPinned: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(base, tt.rel)
			if filepath.IsAbs(tt.rel) {
				p = tt.rel
			}
			_, pinned := pinEntry(p)
			if pinned != tt.wantPinned {
				t.Errorf("pinEntry(%s) = %v, want %v", tt.rel, pinned, tt.wantPinned)
			}
		})
	}
}

// withheldChildEnv carries the case and the scratch tree to the test
// binary re-run as the child that applies the ruleset.
const withheldChildEnv = "SABLINE_TEST_WITHHELD_CHILD"

// TestWithheldOnTheKernel applies, in a child, rulesets with grants the
// kernel cannot hold as they were admitted, and shows that each is left
// out of the ruleset and named where the receipt's reason says so:
//
//   - "apply": ApplyLandlock with a grant of a block device (left out by
//     the pinning, buildLandlock), a grant of a directory that
//     became, after the run was admitted, a link into a guarded one
//     (Moved), and a TLS root the operator's environment named that is
//     a character device made outside /dev (a /dev/zero: held as a
//     grant is, LandlockRule.Operator, never as a need, which any entry
//     can be): Carving.Withheld lists the three, and Assess's reason
//     names them; the guarded file cannot be read through the link, nor
//     the device opened, which the child opens before it applies.
//   - "restrict": buildLandlock, then installLandlock, with a grant
//     whose path has a link on its way (a directory swapped for one
//     after its path was resolved): the build says it is withheld, and
//     what lies beyond the link is refused.
//
// The control in each is a plain granted directory, held: its file is
// read.
func TestWithheldOnTheKernel(t *testing.T) {
	if v := os.Getenv(withheldChildEnv); v != "" {
		testkit.EndChildBeforeCoverage(t)
		which, base, _ := strings.Cut(v, ":")
		runWithheldChild(t, which, base)
		return
	}
	base := landlockScratch(t)
	for _, f := range []string{"real/f", "guarded/k", "guarded/sub/k"} {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkBlockDevice(t, filepath.Join(base, "disk"))
	zero := filepath.Join(base, "zero")
	if err := unix.Mknod(zero, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 5))); err != nil {
		t.Fatalf("mknod of a character device, where a block device could be made: %v", err)
	}
	for link, to := range map[string]string{"work": "guarded", "swapped": "guarded"} {
		if err := os.Symlink(to, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, which := range []string{"apply", "restrict"} {
		t.Run(which, func(t *testing.T) {
			childChecks(t, "TestWithheldOnTheKernel", withheldChildEnv, which+":"+base, "withheld")
		})
	}
}

func runWithheldChild(t *testing.T, which, base string) {
	abi, err := LandlockABI()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(base, rel) }
	policy := core.OSPolicy(budget.MustParse("/", "io,fs:read:"+p("real")), core.Options{})
	plan, err := LandlockPlan(policy, core.Needs{Executable: exe}, abi)
	if err != nil {
		t.Fatal(err)
	}
	checks, expect := errnoChecks(t)
	read := func(path string) error { _, err := os.ReadFile(path); return err }
	open := func(path string) error { // a device of zeros is opened, never read to its end
		f, err := os.Open(path)
		if err == nil {
			f.Close()
		}
		return err
	}
	expect("before: read the guarded file", read(p("guarded/k")), 0)
	expect("before: open the character device", open(p("zero")), 0)

	switch which {
	case "apply":
		plan.Rules = append(plan.Rules,
			LandlockRule{Path: p("disk"), Access: LandlockFSReadFile, Grant: true, Why: "a grant of a block device"},
			LandlockRule{Path: p("work"), Access: landlockReadRights, Grant: true,
				Why: "a grant that became a link"},
			LandlockRule{Path: p("zero"), Access: LandlockFSReadFile, Operator: true,
				Why: "interpreter: " + core.NeedTLSRoots})
		// work was a directory of its own when the run was admitted.
		applied, err := ApplyLandlock(plan, nil, map[string]string{p("work"): p("work")})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{p("disk"), p("work"), p("zero")}
		*checks++
		if !slices.Equal(applied.Carving.Withheld, want) {
			t.Errorf("withheld %q, want %q", applied.Carving.Withheld, want)
		}
		reason := Assess(policy, Held{LandlockABI: applied.ABI, Seccomp: true, Carving: applied.Carving}).Reason
		for _, w := range want {
			*checks++
			if !strings.Contains(reason, w) {
				t.Errorf("the reason %q does not name %s", reason, w)
			}
		}
		expect("read the guarded file through the grant that became a link", read(p("work/k")), syscall.EACCES)
		expect("open the operator's character device", open(p("zero")), syscall.EACCES)
	case "restrict":
		plan.Rules = append(plan.Rules,
			LandlockRule{Path: p("swapped/sub"), Access: landlockReadRights, Grant: true, Why: "a grant with a link on its way"})
		b, err := buildLandlock(plan)
		if err != nil {
			t.Fatal(err)
		}
		withheld := b.withheld
		*checks++
		if want := []string{p("swapped/sub")}; !slices.Equal(withheld, want) {
			t.Errorf("withheld %q, want %q", withheld, want)
		}
		if _, err := installLandlock(b); err != nil {
			t.Fatal(err)
		}
		expect("read beyond the link on the grant's way", read(p("swapped/sub/k")), syscall.EACCES)
	default:
		t.Fatalf("no case %q", which)
	}
	expect("read the guarded file", read(p("guarded/k")), syscall.EACCES)
	expect("read the granted file (the control)", read(p("real/f")), 0)
	t.Logf("withheld child: %d checks", *checks)
}
