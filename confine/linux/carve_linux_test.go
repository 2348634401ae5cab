package linux

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/seccomp"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// carveChildEnv carries the base directory to the test binary re-run as
// the child that applies a carved ruleset.
const carveChildEnv = "SABLINE_TEST_CARVE_CHILD"

// carveTree is the scratch world the child is held in: a home with a
// key, authorized_keys and a plain subdirectory, and a receipts
// directory, both guarded; and a plain file beside them.
var carveTree = map[string]string{
	"plain.txt":                 "plain",
	"home/notes.txt":            "notes",
	"home/.ssh/id_test":         "secret key",
	"home/.ssh/authorized_keys": "keys",
	"home/sub/kept.txt":         "kept",
	"home/.config/app.conf":     "conf",
	"receipts/r.json":           "{}",
	"work/plain.txt":            "work",
}

// carveLinks are the world's links: grants whose paths lead, through a
// link made after the run was admitted, into a credential location and
// into a dot-entry.
var carveLinks = map[string]string{"work/keys": "home/.ssh", "work/cfg": "home/.config"}

// carveOutsOf are the guarded locations of the world at base, and /proc;
// the home's .config is a dot-entry, which a grant that names it reaches.
func carveOutsOf(base string) []guard.CarveOut {
	return []guard.CarveOut{{Path: filepath.Join(base, "home", ".ssh")}, {Path: filepath.Join(base, "home", ".config"), Named: true},
		{Path: filepath.Join(base, "receipts")}, {Path: "/proc"}}
}

// TestCarveLandlockOnTheKernel applies the rulesets of fs (every read and
// every write) carved around the world's guarded locations and /proc, in
// a child, and checks on the kernel that the guarded locations are
// refused whatever opens them, beside each the same operation where the
// grant reaches; then reads, from outside the child, that the guarded
// files are as they were and that what was allowed happened. Two more
// grants are links made after admission: one into .ssh, withheld from
// the ruleset, one into the dot-entry .config, which a grant that names
// it reaches (the control).
func TestCarveLandlockOnTheKernel(t *testing.T) {
	if base := os.Getenv(carveChildEnv); base != "" {
		testkit.EndChildBeforeCoverage(t)
		runCarveChild(t, base)
		return
	}
	abi, err := LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	base := t.TempDir()
	if base, err = filepath.EvalSymlinks(base); err != nil {
		t.Fatal(err)
	}
	for rel, data := range carveTree {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, to := range carveLinks {
		if err := os.Symlink(filepath.Join(base, to), filepath.Join(base, rel)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("Landlock ABI %d", abi)
	childChecks(t, "TestCarveLandlockOnTheKernel", carveChildEnv, base, "carve")

	// From outside: the guarded files as they were, what was allowed done.
	for rel, data := range carveTree {
		if got, err := os.ReadFile(filepath.Join(base, rel)); err != nil || string(got) != data {
			t.Errorf("%s is %q (%v), want it as it was, %q", rel, got, err, data)
		}
	}
	for _, rel := range []string{"home/.ssh/new", "receipts/forged.json", "home/new.txt"} {
		if _, err := os.Lstat(filepath.Join(base, rel)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists (%v): the child made it", rel, err)
		}
	}
	for _, rel := range []string{"home/sub/new.txt", "home/.config/new.conf"} {
		if got, err := os.ReadFile(filepath.Join(base, rel)); err != nil || string(got) != "made" {
			t.Errorf("%s is %q (%v): the allowed write did not happen", rel, got, err)
		}
	}
}

func runCarveChild(t *testing.T, base string) {
	abi, err := LandlockABI()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(base, rel) }
	plan, err := LandlockPlan(core.OSPolicy(budget.MustParse("/", "fs"), core.Options{}), core.Needs{Executable: exe}, abi)
	if err != nil {
		t.Fatal(err)
	}
	for rel := range carveLinks {
		plan.Rules = append(plan.Rules, LandlockRule{Path: p(rel), Access: landlockWriteGrant(abi) | landlockReadRights,
			Grant: true, Why: "a grant that is a link"})
	}
	checks, expect := errnoChecks(t)
	read := func(path string) error { _, err := os.ReadFile(path); return err }
	list := func(path string) error { _, err := os.ReadDir(path); return err }
	appendTo := func(path string) error {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			f.Close()
		}
		return err
	}
	create := func(path, data string) error { return os.WriteFile(path, []byte(data), 0o644) }

	// Before the ruleset: the reads every refusal below is told apart
	// from (the writes would change the world).
	expect("before: read the key", read(p("home/.ssh/id_test")), 0)
	expect("before: read a receipt", read(p("receipts/r.json")), 0)
	expect("before: read a kernel parameter", read("/proc/sys/kernel/ostype"), 0)

	applied, err := ApplyLandlock(plan, carveOutsOf(base), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied.Carving.LanguageOnly) > 0 {
		t.Fatalf("left to the language: %q", applied.Carving.LanguageOnly)
	}
	if want := []string{p("home/.ssh")}; !slices.Equal(applied.Carving.Withheld, want) {
		t.Errorf("withheld %q, want %q", applied.Carving.Withheld, want)
	}
	for _, d := range []string{"/", base, p("home")} {
		if !slices.Contains(applied.Carving.Expanded, d) {
			t.Errorf("%s was not held as its entries; expanded: %q", d, applied.Carving.Expanded)
		}
	}

	expect("read the key", read(p("home/.ssh/id_test")), syscall.EACCES)
	expect("append to authorized_keys", appendTo(p("home/.ssh/authorized_keys")), syscall.EACCES)
	expect("make a file in .ssh", create(p("home/.ssh/new"), "k"), syscall.EACCES)
	expect("read a receipt", read(p("receipts/r.json")), syscall.EACCES)
	expect("forge a receipt", create(p("receipts/forged.json"), "{}"), syscall.EACCES)
	expect("remove a receipt", os.Remove(p("receipts/r.json")), syscall.EACCES)
	expect("read a kernel parameter", read("/proc/sys/kernel/ostype"), syscall.EACCES)
	expect("make an entry in the home, which holds .ssh", create(p("home/new.txt"), "x"), syscall.EACCES)

	expect("append to authorized_keys through a grant that is a link", appendTo(p("work/keys/authorized_keys")), syscall.EACCES)
	expect("read the key through a grant that is a link", read(p("work/keys/id_test")), syscall.EACCES)
	expect("make a file in .config through a grant that is a link", create(p("work/cfg/new.conf"), "made"), 0)
	expect("read .config through a grant that is a link", read(p("work/cfg/app.conf")), 0)
	expect("read .config by its own path, which the grant resolved to", read(p("home/.config/app.conf")), 0)

	expect("read a file beside", read(p("plain.txt")), 0)
	expect("read a file of the home", read(p("home/notes.txt")), 0)
	expect("write over a file of the home", appendTo(p("home/notes.txt")), 0)
	expect("make a file in a directory of the home", create(p("home/sub/new.txt"), "made"), 0)
	expect("list the home", list(p("home")), 0)
	// Landlock hands read_dir on to everything beneath: the names in a
	// guarded directory may be listed, never what they name opened.
	expect("list the names in .ssh", list(p("home/.ssh")), 0)
	t.Logf("carve child: %d checks", *checks)
}

// TestPinEntry: a rule's path is pinned through no link, on its way or at
// its end, by openat2 and by the walk one component at a time that stands
// in where a filter refuses openat2: a directory on the way
// swapped for a link to a guarded one after the path was resolved leaves
// the rule out. The control is the same path with no link on it, pinned.
func TestPinEntry(t *testing.T) {
	base := pinTree(t)
	opens := []struct {
		name string
		open func(string) (int, error)
	}{
		{name: "openat2", open: openNoLinks},
		{name: "one component at a time", open: openEachNoLink},
	}
	tests := []struct {
		name       string
		rel        string
		wantOpened bool // as itself, never what a link leads to
		wantPinned bool
	}{
		{name: "a directory (the control)", rel: "real/sub", wantOpened: true, wantPinned: true},
		{name: "a file (the control)", rel: "real/f", wantOpened: true, wantPinned: true},
		{name: "beneath a link", rel: "swapped/sub"},
		{name: "a link itself", rel: "real/link", wantOpened: true},
		{name: "gone", rel: "real/gone"},
	}
	for _, tt := range tests {
		p := filepath.Join(base, tt.rel)
		for _, o := range opens {
			t.Run(o.name+"/"+tt.name, func(t *testing.T) {
				fd, err := o.open(p)
				if opened := err == nil; opened != tt.wantOpened {
					t.Fatalf("%s: opened %v (%v), want %v", tt.rel, opened, err, tt.wantOpened)
				}
				if err != nil {
					return
				}
				defer unix.Close(fd)
				var st, want unix.Stat_t
				if err := unix.Fstat(fd, &st); err != nil {
					t.Fatal(err)
				}
				if err := unix.Lstat(p, &want); err != nil {
					t.Fatal(err)
				}
				if st.Dev != want.Dev || st.Ino != want.Ino {
					t.Errorf("%s: opened another file than the one at its path", tt.rel)
				}
			})
		}
		t.Run("pinEntry/"+tt.name, func(t *testing.T) {
			_, pinned := pinEntry(p)
			if pinned != tt.wantPinned {
				t.Errorf("pinEntry(%s) = %v, want %v", tt.rel, pinned, tt.wantPinned)
			}
		})
	}
}

// pinTree makes the scratch tree the pinning tests open: real/sub and
// real/f, a guarded/sub, the link swapped to guarded (a directory on the
// way swapped for a link) and the link real/link to it.
func pinTree(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"real/sub", "guarded/sub"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "real", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"swapped": "guarded", "real/link": "../guarded"} {
		if err := os.Symlink(to, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// pinChildEnv carries, to the test binary re-run as a child, the errno its
// filter answers openat2 with and the tree it pins in.
const pinChildEnv = "SABLINE_TEST_PIN_CHILD"

// TestPinEntryBehindAFilter: where a filter refuses openat2, with ENOSYS
// (Sabline's own) or EPERM (an older container runtime's), pinEntry walks
// one component at a time, and holds the same: the path beneath a link is
// not pinned, the plain one is (the control). Each in a child whose
// filter is seen to answer openat2 so.
func TestPinEntryBehindAFilter(t *testing.T) {
	if v := os.Getenv(pinChildEnv); v != "" {
		testkit.EndChildBeforeCoverage(t)
		errno, base, _ := strings.Cut(v, ":")
		runPinChild(t, errno, base)
		return
	}
	base := pinTree(t)
	for _, errno := range []string{"ENOSYS", "EPERM"} {
		t.Run(errno, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPinEntryBehindAFilter$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), pinChildEnv+"="+errno+":"+base)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "pin child: 3 checks") {
				t.Fatalf("child: %v\n%s", err, out)
			}
		})
	}
}

func runPinChild(t *testing.T, name, base string) {
	errno := map[string]unix.Errno{"ENOSYS": unix.ENOSYS, "EPERM": unix.EPERM}[name]
	prog, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 0, Size: 4}, // the call's number
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_OPENAT2, SkipFalse: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(errno)},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := seccomp.Install(prog); err != nil {
		t.Fatal(err)
	}
	checks, expect := errnoChecks(t)
	_, err = unix.Openat2(unix.AT_FDCWD, base, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	expect("openat2, behind the filter", err, errno)
	for _, tt := range []struct {
		rel        string
		wantPinned bool
	}{{rel: "swapped/sub"}, {rel: "real/sub", wantPinned: true}} {
		_, pinned := pinEntry(filepath.Join(base, tt.rel))
		*checks++
		if pinned != tt.wantPinned {
			t.Errorf("pinEntry(%s) = %v behind a filter answering %s, want %v", tt.rel, pinned, name, tt.wantPinned)
		}
	}
	t.Logf("pin child: %d checks", *checks)
}
