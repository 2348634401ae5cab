package sabline_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// stackedPart is the part of TestRunHeldAsThisMachineHoldsIt done in a
// process held by as many Landlock domains as the kernel stacks.
const stackedPart = "held by stacked domains"

// TestRunHeldAsThisMachineHoldsIt: a run that asks for no level is held at
// the level this machine holds its budget at, or refused. In a process
// that already holds the most Landlock domains the kernel stacks (as a
// process inside other sandboxes may), a worker's own ruleset is refused
// by the kernel: the run is refused before its first statement (E326),
// with its receipt, and the file it would write is not there. Asked for
// none, the same run runs at partial and writes it, and so does a pool
// and a run's own worker (a narrower budget that may make raw calls);
// a pool, or a run's own worker, that asks for nothing is refused. So
// too where this machine's level is partial already, for what the
// language alone holds (device nodes beneath a grant no nodev mount
// holds, where the process can make no mount namespace) or for a granted
// path that is not there: the layer that failed is refused all the same.
// The control: the runs outside the stack, held in full, write the file.
func TestRunHeldAsThisMachineHoldsIt(t *testing.T) {
	if confine.Probe().LandlockABI < 2 {
		t.Skip("domains stacked that let links and renames be made need Landlock ABI 2 and later")
	}
	if os.Getenv(testkit.OwnProcessEnv) == stackedPart {
		heldBelowThisMachine(t, os.Getenv(nodevEnv))
		return
	}
	// The grants are on a file system mounted nodev: a process the
	// stacked domains hold can make no mount namespace, which a grant
	// that could hold device nodes needs to be held in full.
	nodev := t.TempDir()
	if err := syscall.Mount("tmpfs", nodev, "tmpfs", syscall.MS_NODEV, "size=1m,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs nodev (%v): needs root", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(nodev, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", nodev, err)
		}
	})
	// And a directory on a mount without nodev, where there is one.
	plain := t.TempDir()
	if err := os.Chmod(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(plain, &st); err != nil || st.Flags&unix.ST_NODEV != 0 {
		plain = ""
	}
	for _, under := range []string{nodev, plain} {
		if under == "" {
			continue
		}
		res, made := writeOnce(t, under, "")
		if res.err != nil || res.level != core.Full || !made {
			t.Fatalf("outside the stack, beneath %s: %v at %s (%s), file made %v; want it run "+
				"in full", under, res.err, res.level, res.reason, made)
		}
	}
	testkit.Rerun(t, stackedPart, func(c *exec.Cmd) {
		c.Env = append(c.Env, nodevEnv+"="+nodev, plainEnv+"="+plain,
			testkit.StackedExecEnv+"="+os.Args[0])
	})
}

// plainEnv names, to the test's own processes, a directory on a mount
// without nodev; "" where the test's temporary directories have none.
const plainEnv = "SABLINE_TEST_PLAIN"

// nodevEnv names, to the test's own processes, the file system mounted
// nodev that its grants are made on.
const nodevEnv = "SABLINE_TEST_NODEV"

// ranWrite is what writeOnce's run ended with.
type ranWrite struct {
	err           error
	level         core.Level
	reason        string
	stored, saved bool // the receipt was stored; its outcome code is err's
}

// writeOnce runs a program that writes one file in a directory it is
// granted beneath under, asking for require, with the budget items more
// beside that grant, and reports how the run ended and whether the file
// is there, judged by this process.
func writeOnce(t *testing.T, under string, require core.Level, more ...string) (ranWrite, bool) {
	t.Helper()
	dir, err := os.MkdirTemp(under, "grant")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "made")
	src := fmt.Sprintf("fs.write(%q, \"x\")\nprint(\"wrote\")\n", out)
	res, err := sabline.Run(context.Background(), sabline.Source("write.vel", []byte(src)),
		sabline.Options{Budget: budget.MustParse(dir, append([]string{"io", "fs:write:" + dir},
			more...)...), Cwd: dir,
			Require: require, Receipts: t.TempDir()})
	got := ranWrite{err: err}
	if res != nil && res.Receipt != nil {
		got.level = res.Receipt.RunParameters.Confinement
		got.reason = res.Receipt.RunParameters.ConfinementReason
		_, serr := res.Receipt.Stored()
		got.stored = serr == nil
		got.saved = res.Receipt.Outcome.Code == codes.CodeOf(err)
	}
	_, statErr := os.Lstat(out)
	return got, statErr == nil
}

// heldBelowThisMachine is the test in a process held by the stacked
// domains, whose workers' rulesets the kernel refuses.
func heldBelowThisMachine(t *testing.T, nodev string) {
	pol := core.OSPolicy(budget.MustParse(nodev, "io", "fs:write:"+nodev), core.Options{})
	if here := confine.OnThisMachine(pol); here.Level != core.Full {
		t.Fatalf("this machine holds a grant beneath %s at %s (%s), want full", nodev, here.Level,
			here.Reason)
	}
	res, made := writeOnce(t, nodev, "")
	if codes.CodeOf(res.err) != codes.E326 || made || !res.stored || !res.saved {
		t.Errorf("asking for no level: %v, file made %v, receipt stored %v and saying it %v; "+
			"want E326, no file, the receipt", res.err, made, res.stored, res.saved)
	}
	if msg := errorText(res.err); !strings.Contains(msg, "this machine holds such a run at "+
		"level full") || !strings.Contains(msg, "--require-confinement partial") {
		t.Errorf("the refusal says %q; want the machine's level and how to run it held less", msg)
	}
	if res.level != core.Partial || !strings.Contains(res.reason, "Landlock") {
		t.Errorf("the refused run's receipt says %s (%s); want partial, naming Landlock",
			res.level, res.reason)
	}

	res, made = writeOnce(t, nodev, core.None)
	if res.err != nil || res.level != core.Partial || !made {
		t.Errorf("asking for none: %v at %s (%s), file made %v; want it run at partial",
			res.err, res.level, res.reason, made)
	}

	// Where this machine's level is partial already, the layer that
	// failed refuses the run all the same.
	t.Run("a grant no nodev mount holds", func(t *testing.T) {
		plain := os.Getenv(plainEnv)
		if plain == "" {
			t.Skip("the test's temporary directories are all on nodev mounts: no grant here " +
				"holds device nodes by the language alone")
		}
		refusedBelowThisMachine(t, plain)
	})
	t.Run("a granted path that is not there", func(t *testing.T) {
		refusedBelowThisMachine(t, nodev, "fs:read:"+filepath.Join(nodev, "not-there"))
	})

	root, err := os.MkdirTemp(nodev, "root")
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(root, "hello.vel"), hello)
	opts := sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1,
		ImportRoot: root, Receipts: t.TempDir()}
	if p, err := sabline.NewPool(opts); codes.CodeOf(err) != codes.E326 {
		if err == nil {
			p.Close()
		}
		t.Errorf("a pool asking for no level: %v, want E326", err)
	}
	opts.Require = core.None
	p := newPool(t, opts)
	r, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
	if err != nil || r.Receipt.Outcome.Status != receipt.StatusOK ||
		r.Receipt.RunParameters.Confinement != core.Partial {
		t.Errorf("a pool asking for none: %v, %+v; want hello run at partial", err, r.Receipt)
	}

	// A run's own worker (a narrower budget that may make raw calls) is
	// held to the level this machine holds its own budget at: refused
	// too, where its Landlock is. The pool (strict: a granted ffi:ctypes
	// widens nothing) starts no worker of its own until a run comes
	// (OnDemand).
	opts = sabline.PoolOptions{Budget: budget.MustParse(root, "io", "ffi:ctypes",
		"fs:write:"+root), Confine: sabline.ConfineStrict, Workers: 1, ImportRoot: root,
		Receipts: t.TempDir(), OnDemand: true}
	own := budget.MustParse(root, "io", "ffi:ctypes")
	for _, require := range []core.Level{"", core.None} {
		opts.Require = require
		p := newPool(t, opts)
		r, err := p.Run(context.Background(), sabline.File("hello.vel"),
			sabline.RunOptions{Budget: &own})
		if require == "" {
			if codes.CodeOf(err) != codes.E326 {
				t.Errorf("a run's own worker asking for no level: %v, want E326", err)
			}
			continue
		}
		if err != nil || r.Receipt.Outcome.Status != receipt.StatusOK ||
			r.Receipt.RunParameters.Confinement != core.Partial {
			t.Errorf("a run's own worker asking for none: %v, %+v; want hello run at partial",
				err, r.Receipt.RunParameters)
		}
	}
}

// refusedBelowThisMachine checks, in the stacked process, that a run of
// writeOnce under under, with the budget items more, asking for no level,
// is refused E326 with its receipt and writes nothing, though this
// machine holds it at partial only; and that asking for none, it runs,
// at partial, and writes its file.
func refusedBelowThisMachine(t *testing.T, under string, more ...string) {
	t.Helper()
	items := append([]string{"io", "fs:write:" + under}, more...)
	pol := core.OSPolicy(budget.MustParse(under, items...), core.Options{})
	if here := confine.OnThisMachine(pol); here.Level != core.Partial {
		t.Fatalf("this machine holds %v at %s (%s), want partial", items, here.Level, here.Reason)
	}
	res, made := writeOnce(t, under, "", more...)
	if codes.CodeOf(res.err) != codes.E326 || made || !res.stored || !res.saved {
		t.Errorf("asking for no level: %v, file made %v, receipt stored %v and saying it %v; "+
			"want E326, no file, the receipt", res.err, made, res.stored, res.saved)
	}
	if msg := errorText(res.err); !strings.Contains(msg, "with landlock-abi") ||
		!strings.Contains(msg, "--require-confinement partial") {
		t.Errorf("the refusal says %q; want the layers this machine holds it with, and how to "+
			"run it held less", msg)
	}
	if res.level != core.Partial || !strings.Contains(res.reason, "Landlock was not applied") {
		t.Errorf("the refused run's receipt says %s (%s); want partial, Landlock not applied",
			res.level, res.reason)
	}
	res, made = writeOnce(t, under, core.None, more...)
	if res.err != nil || res.level != core.Partial || !made {
		t.Errorf("asking for none: %v at %s (%s), file made %v; want it run at partial",
			res.err, res.level, res.reason, made)
	}
}

// errorText is err's text, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestPoolAsksNoLevelOfADirectoryNotMadeYet: a pool that asks for no level
// is held at the level this machine holds its workers' policy at, as they
// hold it: a pool makes no granted directory, so a write grant of one
// not there yet is held beneath the directory above it, and the pool
// starts, its runs at partial, as it does asking for none. The control:
// asking for full, the same pool starts no worker (E326).
func TestPoolAsksNoLevelOfADirectoryNotMadeYet(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "hello.vel"), hello)
	out := filepath.Join(t.TempDir(), "not-made")
	opts := sabline.PoolOptions{Budget: budget.MustParse(root, "io", "fs:write:"+out),
		Workers: 1, ImportRoot: root, Receipts: t.TempDir()}
	eachLevelAsked(t, opts, sabline.File("hello.vel"),
		func(require core.Level, r *sabline.Result, err error) {
			if err != nil || r.Receipt.RunParameters.Confinement != core.Partial ||
				r.Receipt.RunParameters.RequireConfinement != require {
				t.Errorf("asking for %q: %v, %+v; want hello run at partial, the level asked "+
					"for recorded", require, err, r.Receipt.RunParameters)
			}
		})
}

// eachLevelAsked starts a pool with opts asking for no level, for none
// and for full: asking for full it starts no worker (E326: the control);
// asking for the others it starts, and ran is told of a run of program.
func eachLevelAsked(t *testing.T, opts sabline.PoolOptions, program sabline.Program,
	ran func(require core.Level, r *sabline.Result, err error)) {
	t.Helper()
	for _, require := range []core.Level{"", core.None, core.Full} {
		opts.Require = require
		p, err := sabline.NewPool(opts)
		if require == core.Full {
			if codes.CodeOf(err) != codes.E326 {
				t.Errorf("asking for full: %v, want E326", err)
			}
			if err == nil {
				p.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("asking for %q: %v; want the pool started", require, err)
			continue
		}
		r, err := p.Run(context.Background(), program, sabline.RunOptions{})
		ran(require, r, err)
		p.Close()
	}
}

// TestRunAsksNoLevelPastTheCarvingBound: a run that asks for no level is
// not refused for what the language alone holds. A grant above a guarded
// location (the receipts directory) whose directory has more entries than
// the carving of a ruleset adds rules for (linux.MaxCarvedRules: a prior
// run with a write grant there, or another user, may have made them)
// leaves that location to the language, which no look before the worker
// starts sees: the run runs, at partial, its receipt saying why, as it
// does asking for none. The control: asking for full, it is refused
// (E326) with its receipt.
func TestRunAsksNoLevelPastTheCarvingBound(t *testing.T) {
	if confine.Probe().LandlockABI == 0 {
		t.Skip("no Landlock here: nothing is carved")
	}
	dir := t.TempDir()
	receipts := filepath.Join(dir, "receipts")
	if err := os.Mkdir(receipts, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range linux.MaxCarvedRules + 1 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("e%05d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	for _, require := range []core.Level{"", core.None, core.Full} {
		res, err := sabline.Run(context.Background(), sabline.Source("hello.vel", []byte(hello)),
			sabline.Options{Budget: budget.MustParse(dir, "io", "fs:read:"+dir), Cwd: dir,
				Require: require, Receipts: receipts})
		if res == nil || res.Receipt == nil {
			t.Fatalf("asking for %q: %v, and no receipt", require, err)
		}
		rp := res.Receipt.RunParameters
		if rp.Confinement != core.Partial || !strings.Contains(rp.ConfinementReason,
			"held by the language only") {
			t.Errorf("asking for %q: the receipt says %s (%s); want partial, the receipts "+
				"held by the language", require, rp.Confinement, rp.ConfinementReason)
		}
		if require == core.Full {
			if codes.CodeOf(err) != codes.E326 || res.Receipt.Outcome.Code != codes.E326 {
				t.Errorf("asking for full: %v, receipt %s; want E326", err,
					res.Receipt.Outcome.Code)
			}
			continue
		}
		if err != nil || rp.RequireConfinement != require {
			t.Errorf("asking for %q: %v, level asked recorded %q; want it run", require, err,
				rp.RequireConfinement)
		}
	}
}

// TestPoolAsksNoLevelWithoutAnImportRoot: a pool with no import root,
// whose workers may read any file (a limit the pool itself leaves
// unheld), asks of them, where it asks for no level, the level this
// machine holds its policy at with that limit unheld too: it starts, its
// runs at partial, as it does asking for none. Held to the policy's level
// alone (full), every such pool was refused (E326). The control: asking
// for full, it starts no worker (E326).
func TestPoolAsksNoLevelWithoutAnImportRoot(t *testing.T) {
	opts := sabline.PoolOptions{Budget: budget.MustParse(t.TempDir(), "io"), Workers: 1,
		Receipts: t.TempDir()}
	eachLevelAsked(t, opts, sabline.Source("hello.vel", []byte(hello)),
		func(require core.Level, r *sabline.Result, err error) {
			if err != nil || r.Receipt.RunParameters.Confinement != core.Partial ||
				!strings.Contains(r.Receipt.RunParameters.ConfinementReason, "no import root") {
				t.Errorf("asking for %q: %v, %+v; want hello run at partial, for want of an "+
					"import root", require, err, r.Receipt.RunParameters)
			}
		})
}
