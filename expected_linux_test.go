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

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/core"
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
// none, the same run runs at partial and writes it, and so does a pool;
// a pool that asks for nothing starts no worker. The control: the run
// outside the stack, held in full, writes the file.
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
	res, made := writeOnce(t, nodev, "")
	if res.err != nil || res.level != core.Full || !made {
		t.Fatalf("outside the stack: %v at %s (%s), file made %v; want it run in full",
			res.err, res.level, res.reason, made)
	}
	testkit.Rerun(t, stackedPart, func(c *exec.Cmd) {
		c.Env = append(c.Env, nodevEnv+"="+nodev, testkit.StackedExecEnv+"="+os.Args[0])
	})
}

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
// granted beneath under, asking for require, and reports how the run ended and whether
// the file is there, judged by this process.
func writeOnce(t *testing.T, under string, require core.Level) (ranWrite, bool) {
	t.Helper()
	dir, err := os.MkdirTemp(under, "grant")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "made")
	src := fmt.Sprintf("fs.write(%q, \"x\")\nprint(\"wrote\")\n", out)
	res, err := sabline.Run(context.Background(), sabline.Source("write.vel", []byte(src)),
		sabline.Options{Budget: budget.MustParse(dir, "io", "fs:write:"+dir), Cwd: dir,
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
}

// errorText is err's text, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
