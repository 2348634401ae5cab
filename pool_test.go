package sabline_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"testing/iotest"

	"github.com/sabline/sabline/confine/core"

	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/receipt"
)

// importRoot makes a scratch import root holding hello.vel.
func importRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte(hello), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func newPool(t *testing.T, opts sabline.PoolOptions) *sabline.Pool {
	t.Helper()
	p, err := sabline.NewPool(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// waitFor waits until cond holds, failing the test past a bound scaled
// to the machine's load.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testkit.Bound(30 * time.Second)); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %s in vain", what)
		}
	}
}

func sorted(pids []int) []int {
	slices.Sort(pids)
	return pids
}

// TestPoolThousandRuns: a pool of two runs 1,000 programs on the same two
// workers, each run full and with its receipt stored.
func TestPoolThousandRuns(t *testing.T) {
	root := importRoot(t)
	rc := t.TempDir()
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 2, ImportRoot: root, Receipts: rc, Timeout: time.Minute})
	before := sorted(p.Workers())
	if len(before) != 2 {
		t.Fatalf("workers %v, want two", before)
	}
	const runs = 1000
	var wg sync.WaitGroup
	errs := make(chan string, runs)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < runs; i += 4 {
				res, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
				switch {
				case err != nil:
					errs <- err.Error()
				case string(res.Stdout) != "hello\n" || res.Receipt.Outcome.Status != receipt.StatusOK:
					errs <- "output " + string(res.Stdout) + ", status " + res.Receipt.Outcome.Status
				case res.Receipt.RunParameters.Confinement != p.Confinement().Level:
					errs <- "level " + string(res.Receipt.RunParameters.Confinement)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if after := sorted(p.Workers()); !slices.Equal(before, after) {
		t.Errorf("workers %v after 1,000 runs, want the same %v", after, before)
	}
	runsStored, skipped, err := receipt.Scan(rc)
	for i, s := range skipped {
		if i < 3 {
			t.Logf("skipped %s: %s", s.Path, s.Why)
		}
	}
	if err != nil || len(runsStored) != runs {
		t.Errorf("%d receipts stored (%v), want %d", len(runsStored), err, runs)
	}
	if l := p.Confinement().Level; l != core.Full && confine.Probe().LandlockABI >= 4 {
		t.Errorf("the pool's level is %s (%s), want full with an import root on this kernel", l, p.Confinement().Reason)
	}
}

// TestPoolRefusesAWiderBudget: a run asking for more than the pool's
// budget is refused and runs nothing; one asking for less runs, and the
// language holds it to what it asked.
func TestPoolRefusesAWiderBudget(t *testing.T) {
	root := importRoot(t)
	out := filepath.Join(root, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(out, "ran")
	prog := sabline.Source("write.vel", []byte("fs.write(\""+marker+"\", \"x\")\nprint(\"wrote\")\n"))
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+out), Workers: 1, ImportRoot: root})
	tests := []struct {
		name     string
		allow    string
		wantCode codes.Code // "" when it runs to its end
	}{
		{name: "wider: any write", allow: "io,fs:write", wantCode: codes.E328},
		{name: "wider: another kind", allow: "io,env,fs:write:" + out, wantCode: codes.E328},
		{name: "narrower: io only, the write refused by the language", allow: "io", wantCode: codes.E302},
		{name: "the pool's own", allow: "io,fs:write:" + out},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			b := budget.MustParse(root, tt.allow)
			res, err := p.Run(context.Background(), prog, sabline.RunOptions{Budget: &b})
			_, statErr := os.Stat(marker)
			switch tt.wantCode {
			case "":
				if err != nil || statErr != nil || string(res.Stdout) != "wrote\n" {
					t.Fatalf("err %v, marker %v, output %q: want it written", err, statErr, res.Stdout)
				}
			case codes.E328:
				if codes.CodeOf(err) != codes.E328 || res.Receipt.Outcome.Code != codes.E328 || statErr == nil || len(res.Stdout) != 0 {
					t.Fatalf("err %v, receipt %+v, marker %v: want E328 and nothing run", err, res.Receipt.Outcome, statErr)
				}
			default:
				if err != nil || res.Receipt.Outcome.Code != tt.wantCode || statErr == nil {
					t.Fatalf("err %v, outcome %+v, marker %v: want %s and no file", err, res.Receipt.Outcome, statErr, tt.wantCode)
				}
			}
		})
	}
}

// TestPoolRefusesANarrowerLinkOut: a run's budget that names, beneath the
// pool's, a link that leads out of it (data/lnk, to ../out) is wider than
// the pool's where it leads, and is refused (E328, nothing read): a grant
// is held where its path leads, so such a run read out/secret.txt, which
// a run under the pool's own budget is refused (a link inside a grant
// that leads outside it, E302). The pool holds nothing but the language
// (ConfineOff), as off Linux. The control: a narrower directory within
// the pool's budget runs, and reads its file.
func TestPoolRefusesANarrowerLinkOut(t *testing.T) {
	root := importRoot(t)
	data, out := filepath.Join(root, "data"), filepath.Join(root, "out")
	for _, d := range []string{filepath.Join(data, "in"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WriteFile(t, filepath.Join(out, "secret.txt"), "secret")
	testkit.WriteFile(t, filepath.Join(data, "in", "x.txt"), "within")
	if err := os.Symlink("../out", filepath.Join(data, "lnk")); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:read:data"), Workers: 1,
		ImportRoot: root, Confine: sabline.ConfineOff, Receipts: t.TempDir()})
	read := func(path string) sabline.Program {
		return sabline.Source("read.vel", []byte("print(fs.read(\""+path+"\"))\n"))
	}
	tests := []struct {
		name     string
		allow    string // "" for the pool's own budget
		path     string
		wantCode codes.Code
		want     string // the output of a run that ends well
	}{
		{name: "narrower, through the link out", allow: "io,fs:read:data/lnk",
			path: filepath.Join(out, "secret.txt"), wantCode: codes.E328},
		{name: "the pool's own, through the link", path: filepath.Join(data, "lnk", "secret.txt"),
			wantCode: codes.E302},
		{name: "narrower, a directory within", allow: "io,fs:read:data/in",
			path: filepath.Join(data, "in", "x.txt"), want: "within\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o sabline.RunOptions
			if tt.allow != "" {
				b := budget.MustParse(root, tt.allow)
				o.Budget = &b
			}
			res, err := p.Run(context.Background(), read(tt.path), o)
			if tt.wantCode == "" {
				if err != nil || string(res.Stdout) != tt.want {
					t.Fatalf("run: %q, %v; want %q", res.Stdout, err, tt.want)
				}
				return
			}
			// A refusal before the run is its error too; a program's
			// failure is its receipt's alone.
			refused := tt.wantCode == codes.E328 && codes.CodeOf(err) != codes.E328
			if refused || res.Receipt.Outcome.Code != tt.wantCode {
				t.Errorf("run: %v, receipt %+v; want %s", err, res.Receipt.Outcome, tt.wantCode)
			}
			if strings.Contains(string(res.Stdout), "secret") {
				t.Errorf("the run read %q, outside the pool's budget", res.Stdout)
			}
		})
	}
}

// TestPoolReplacesAKilledWorker: a worker killed during a run is
// replaced; that run's receipt says killed, and the next run is served.
func TestPoolReplacesAKilledWorker(t *testing.T) {
	root, out := importRoot(t), t.TempDir()
	rc := t.TempDir()
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+out), Workers: 1,
		ImportRoot: root, Receipts: rc, Timeout: time.Minute})
	victim := p.Workers()[0]
	running := filepath.Join(out, "running")
	loop := fmt.Sprintf("fs.write(%q, \"x\")\nwhile True:\n    pass\n", running)
	done := make(chan *sabline.Result, 1)
	go func() {
		res, err := p.Run(context.Background(), sabline.Source("loop.vel", []byte(loop)), sabline.RunOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	waitFor(t, "the loop to run", func() bool { _, err := os.Stat(running); return err == nil })
	proc, err := os.FindProcess(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res == nil {
		t.FailNow()
	}
	if o := res.Receipt.Outcome; o.Status != receipt.StatusKilled || o.Code != codes.E309 {
		t.Errorf("the killed run's outcome %+v, want killed, E309", o)
	}
	if got, err := receipt.Find(rc, res.Receipt.RunID); err != nil || got.Outcome.Status != receipt.StatusKilled {
		t.Errorf("its stored receipt: %v, %v; want it there, saying killed", got.Receipt, err)
	}
	next, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
	if err != nil || string(next.Stdout) != "hello\n" {
		t.Fatalf("the next run: %v, output %q", err, next.Stdout)
	}
	if w := p.Workers(); len(w) != 1 || w[0] == victim {
		t.Errorf("workers %v after the kill, want one other than %d", w, victim)
	}
}

// TestPoolEndsARunAtItsDeadline: a run past the pool's timeout, or whose
// context is cancelled, ends with E307 where the program was (its loop,
// line 2 or 3, not 1:1), within a second of its deadline, its receipt
// says so, and its worker is replaced; the run after it, and a run that
// ends in time (the control), end ok.
func TestPoolEndsARunAtItsDeadline(t *testing.T) {
	const timeout = 500 * time.Millisecond
	root := importRoot(t)
	rc := t.TempDir()
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1, ImportRoot: root, Receipts: rc, Timeout: timeout})
	loop := sabline.Source("loop.vel", []byte("x = 0\nwhile True:\n    x = 1\n"))
	if res, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{}); err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("a run within the timeout: %v", err)
	}
	for _, tc := range []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		after   time.Duration // the run's deadline, from its call
		wantMsg string
	}{
		{name: "timeout", ctx: func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			after: timeout, wantMsg: "timeout"},
		{name: "cancelled", ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, after: 100 * time.Millisecond, wantMsg: "cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := p.Workers()
			ctx, cancel := tc.ctx()
			defer cancel()
			start := time.Now()
			res, err := p.Run(ctx, loop, sabline.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if late := time.Since(start) - tc.after; late > time.Second {
				t.Errorf("the run returned %v after its deadline, want within a second", late)
			}
			o := res.Receipt.Outcome
			if o.Status != receipt.StatusTimeout || o.Code != codes.E307 || !strings.Contains(o.Message, tc.wantMsg) ||
				!(strings.Contains(o.Position, "loop.vel:2:") || strings.Contains(o.Position, "loop.vel:3:")) {
				t.Errorf("outcome %+v, want timeout, E307, a message saying %s, and where the loop was (line 2 or 3)", o, tc.wantMsg)
			}
			if got, err := receipt.Find(rc, res.Receipt.RunID); err != nil || got.Outcome.Code != codes.E307 {
				t.Errorf("its stored receipt: %v; want it there, E307", err)
			}
			next, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
			if err != nil || string(next.Stdout) != "hello\n" {
				t.Errorf("the next run: %v, output %q", err, next.Stdout)
			}
			if w := p.Workers(); len(w) != 1 || w[0] == before[0] {
				t.Errorf("workers %v after the next run, want one other than %v", w, before)
			}
		})
	}
}

// TestPoolLeavesNothingBehind: each way a run could leave state for the
// next is tried, then looked for by the run after it, in the same pool.
// Each leaving program first sees its own change (the control that the
// way works); the next program does not. A run whose budget could change
// the worker (any ffi grant) retires it.
func TestPoolLeavesNothingBehind(t *testing.T) {
	root := importRoot(t)
	tmp := os.TempDir()
	ceiling := budget.MustParse(root, "io,env,fs:read:"+tmp, "fs:write:"+tmp, "ffi:math,ffi:json,ffi:ctypes")
	p := newPool(t, sabline.PoolOptions{Budget: ceiling, Workers: 1, ImportRoot: root, Timeout: time.Minute})
	noFFI := budget.MustParse(root, "io,env,fs:read:"+tmp, "fs:write:"+tmp)
	run := func(src string, b budget.Budget) (string, int) {
		t.Helper()
		pids := p.Workers()
		res, err := p.Run(context.Background(), sabline.Source("p.vel", []byte(src)), sabline.RunOptions{Budget: &b, Args: []string{"a"}})
		if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
			t.Fatalf("%q: %v, %+v", src, err, res.Receipt.Outcome)
		}
		pid := 0
		if len(pids) == 1 {
			pid = pids[0]
		}
		return string(res.Stdout), pid
	}
	tests := []struct {
		name        string
		leave, look string
		leaveBudget budget.Budget
		wantLeft    string // what the leaving program sees of its own change
		wantSeen    string // what the next program sees
	}{
		{name: "the arguments list",
			leave:    "ARGS.append(\"leaked\")\nprint(len(ARGS))\n",
			look:     "print(len(ARGS))\n",
			wantLeft: "2\n", wantSeen: "1\n", leaveBudget: noFFI},
		{name: "raw system calls: the worker's own state could change",
			leave:    "r = ffi.module(\"ctypes\").syscall(\"getpid\")\nprint(r.errno == \"\" and r.ret > 0)\n",
			look:     "print(\"fresh\")\n",
			wantLeft: "True\n", wantSeen: "fresh\n", leaveBudget: ceiling},
		{name: "a host module (json): any ffi grant retires the worker",
			leave:    "m = ffi.module(\"json\")\nok = True\nprint(type(m))\n",
			look:     "print(\"fresh\")\n",
			wantLeft: "module\n", wantSeen: "fresh\n", leaveBudget: ceiling},
	}
	// The worker's temporary directory is Sabline's own, which no grant
	// reaches: a run cannot leave a file there for the next (the runs'
	// directory is looked in from outside), and the write in the granted
	// directory beside it is the control.
	t.Run("a file in the worker's temporary directory", func(t *testing.T) {
		b := noFFI
		res, err := p.Run(context.Background(), sabline.Source("p.vel",
			[]byte("fs.write(env.get(\"TMPDIR\") + \"/left\", \"x\")\n")), sabline.RunOptions{Budget: &b})
		// E302 where no grant covers the runs' directory (a cache in the
		// home), E318 where a grant does (a cache beneath the granted /tmp)
		// and the guard keeps it out.
		if c := res.Receipt.Outcome.Code; err != nil || c != codes.E302 && c != codes.E318 {
			t.Fatalf("a write in the worker's TMPDIR: %v, %+v; want E302 or E318", err,
				res.Receipt.Outcome)
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no cache directory to look in: %v", err)
		}
		left, _ := filepath.Glob(filepath.Join(cache, "sabline", "runs", "*", "left"))
		if len(left) != 0 {
			t.Fatalf("%v left in the runs' directory", left)
		}
		dir, err := os.MkdirTemp(tmp, "sabline-pool-left-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		control := filepath.Join(dir, "left")
		if out, _ := run(fmt.Sprintf("fs.write(%q, \"x\")\nprint(fs.exists(%q))\n", control, control), noFFI); out != "True\n" {
			t.Fatalf("the control, a write in the granted %s: %q", tmp, out)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.leave, "ctypes") && goruntime.GOOS != "linux" {
				t.Skip("ctypes makes raw system calls on Linux only")
			}
			left, leftPid := run(tt.leave, tt.leaveBudget)
			seen, seenPid := run(tt.look, noFFI)
			if left != tt.wantLeft {
				t.Errorf("the leaving run saw %q of its own change, want %q: the way was not tried", left, tt.wantLeft)
			}
			if seen != tt.wantSeen {
				t.Errorf("the next run saw %q, want %q: state crossed from one run to the next", seen, tt.wantSeen)
			}
			retired := leftPid != seenPid
			if want := tt.leaveBudget.Has(budget.FFI); retired != want {
				t.Errorf("worker %d then %d: retired %v, want %v (the leaving budget %s)", leftPid, seenPid, retired, want, tt.leaveBudget)
			}
		})
	}
}

// TestPoolImportRoot: without an import root the workers' reads are not
// held and the level says so; with one, reads are held, and a program
// named outside the root is refused before it runs.
func TestPoolImportRoot(t *testing.T) {
	if confine.Probe().LandlockABI < 1 {
		t.Skip("no Landlock on this kernel: the levels compared are none")
	}
	root := importRoot(t)
	b := budget.MustParse(root, "io")
	without := newPool(t, sabline.PoolOptions{Budget: b, Workers: 1})
	res, err := without.Run(context.Background(), sabline.File(filepath.Join(root, "hello.vel")), sabline.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rp := res.Receipt.RunParameters; rp.Confinement != core.Partial || !strings.Contains(rp.ConfinementReason, "reads") {
		t.Errorf("without an import root: %s (%s), want partial naming reads", rp.Confinement, rp.ConfinementReason)
	}
	with := newPool(t, sabline.PoolOptions{Budget: b, Workers: 1, ImportRoot: root})
	res, err = with.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rp := res.Receipt.RunParameters; rp.Confinement != core.Full {
		t.Errorf("with an import root: %s (%s), want full", rp.Confinement, rp.ConfinementReason)
	}
	outside := filepath.Join(t.TempDir(), "hello.vel")
	os.WriteFile(outside, []byte(hello), 0o644)
	res, err = with.Run(context.Background(), sabline.File(outside), sabline.RunOptions{})
	if codes.CodeOf(err) != codes.E316 || len(res.Stdout) != 0 {
		t.Errorf("a program outside the root: %v, output %q; want E316, nothing run", err, res.Stdout)
	}
	// Its text given, named outside the root: its loads would be read
	// there, so it is refused too.
	res, err = with.Run(context.Background(), sabline.Source(outside, []byte(hello)), sabline.RunOptions{})
	if codes.CodeOf(err) != codes.E316 || len(res.Stdout) != 0 {
		t.Errorf("a program named outside the root: %v, output %q; want E316, nothing run", err, res.Stdout)
	}
}

// TestPoolRegistry: pools are made on first use, shared by equal options,
// and past the bound the least recently used is closed, but only once no
// run holds it; after Close the registry makes no pool.
func TestPoolRegistry(t *testing.T) {
	root := importRoot(t)
	reg := sabline.NewPoolRegistry(1)
	a := sabline.PoolOptions{Budget: budget.MustParse(root, "io"), ImportRoot: root}
	b := sabline.PoolOptions{Budget: budget.MustParse(root, "io,clock"), ImportRoot: root}
	pa, releaseA, err := reg.Acquire(a)
	if err != nil {
		t.Fatal(err)
	}
	again, releaseAgain, _ := reg.Acquire(a)
	releaseAgain()
	if again != pa {
		t.Error("equal options made a second pool")
	}
	// b evicts a, which a run still holds: a serves on until it is given back.
	if _, err := reg.Run(context.Background(), b, sabline.File("hello.vel"), sabline.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := reg.Len(); n != 1 {
		t.Errorf("%d pools alive, want the bound, 1", n)
	}
	if _, err := pa.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{}); err != nil {
		t.Errorf("the evicted pool, still held, refused a run: %v", err)
	}
	releaseA()
	if w := pa.Workers(); len(w) != 0 {
		t.Errorf("the evicted pool, given back, still has workers %v", w)
	}
	if _, err := pa.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{}); err == nil {
		t.Error("the evicted pool still takes runs after it was given back")
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Acquire(a); err == nil {
		t.Error("a closed registry made a pool")
	}
}

// TestPoolRegistryRefusalsKeepReceipts: a run the registry has no pool
// for, because the registry is closed or the pool it names refuses to
// start (its ceiling names the receipts directory, E329), runs nothing
// and returns a result whose receipt is kept in that pool's receipts
// directory, with the code the error has; so does a run sent to a pool
// after its Close (E310), whose error says what to do rather than E310's
// "a fault in Sabline". Before, the registry returned a nil result, no
// receipt, and, once closed, an error with no code. The control is the
// same run through the registry, open, with a ceiling it can hold: ok.
func TestPoolRegistryRefusalsKeepReceipts(t *testing.T) {
	root := importRoot(t)
	rc := t.TempDir()
	reg := sabline.NewPoolRegistry(1)
	defer reg.Close()
	good := sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:read:"+root), ImportRoot: root,
		Receipts: rc}
	bad := good
	bad.Budget = budget.MustParse(root, "io,fs:read:"+rc)
	kept := func(what string, res *sabline.Result, err error, want codes.Code) {
		t.Helper()
		if codes.CodeOf(err) != want {
			t.Errorf("%s: error %v, want %s", what, err, want)
		}
		if res == nil || res.Receipt == nil {
			t.Errorf("%s: no result, no receipt", what)
			return
		}
		stored, ferr := receipt.Find(rc, res.Receipt.RunID)
		if ferr != nil || stored.Outcome.Code != want || res.Receipt.Outcome.Code != want {
			t.Errorf("%s: receipt %+v, stored (%v) %+v; want both %s", what, res.Receipt.Outcome,
				ferr, stored, want)
		}
	}
	res, err := reg.Run(context.Background(), good, sabline.File("hello.vel"), sabline.RunOptions{})
	kept("the control", res, err, "")
	if err == nil && string(res.Stdout) != "hello\n" {
		t.Errorf("the control printed %q, want hello", res.Stdout)
	}
	res, err = reg.Run(context.Background(), bad, sabline.File("hello.vel"), sabline.RunOptions{})
	kept("a pool that cannot start", res, err, codes.E329)
	p, release, err := reg.Acquire(good)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	// The run's own options, as the pool keeps them in a refused run's
	// receipt: its narrower budget, its tenant and arguments, and the
	// program beneath the import root.
	narrow := budget.MustParse(root, "io")
	ro := sabline.RunOptions{Budget: &narrow, Tenant: "a tenant", Args: []string{"an arg"}}
	res, err = reg.Run(context.Background(), good, sabline.File("hello.vel"), ro)
	kept("the registry closed", res, err, codes.E310)
	unpooled := res
	res, err = p.Run(context.Background(), sabline.File("hello.vel"), ro)
	kept("the pool closed", res, err, codes.E310)
	for what, res := range map[string]*sabline.Result{"the registry closed": unpooled,
		"the pool closed (the control)": res} {
		if res == nil || res.Receipt == nil {
			continue
		}
		r := res.Receipt
		if r.Budget != narrow.String() || r.Tenant != ro.Tenant ||
			!slices.Equal(r.Args, ro.Args) || r.Program.Path != filepath.Join(root, "hello.vel") {
			t.Errorf("%s: the receipt names budget %q, tenant %q, args %q, program %q; want the "+
				"run's: %q, %q, %q, %q", what, r.Budget, r.Tenant, r.Args, r.Program.Path,
				narrow.String(), ro.Tenant, ro.Args, filepath.Join(root, "hello.vel"))
		}
	}
	for what, err := range map[string]error{"the registry closed": registryErr(reg, good),
		"the pool closed": err} {
		var e *codes.Error
		if !errors.As(err, &e) || !strings.Contains(e.Hint(), "before its Close") {
			t.Errorf("%s: %v says to do %q; want it to say to send runs before Close", what, err,
				hintOf(e))
		}
	}
}

// registryErr is the error of an Acquire of opts from reg.
func registryErr(reg *sabline.PoolRegistry, opts sabline.PoolOptions) error {
	_, _, err := reg.Acquire(opts)
	return err
}

// hintOf is e's hint, "" for no error.
func hintOf(e *codes.Error) string {
	if e == nil {
		return ""
	}
	return e.Hint()
}

// TestPoolRefusesNegativeLimits: a pool asked for a timeout, a memory
// limit or an idle timeout below zero is refused (E301), as a single run
// is, and starts no worker: it would hold no timeout and no limit at all,
// its receipts naming the negative one. The control is a pool whose
// timeout is zero, for none, which runs.
func TestPoolRefusesNegativeLimits(t *testing.T) {
	root := importRoot(t)
	for _, tt := range []struct {
		name    string
		timeout time.Duration
		memory  int
		idle    time.Duration
		want    codes.Code
	}{
		{name: "a negative timeout", timeout: -time.Second, want: codes.E301},
		{name: "a negative memory limit", memory: -5, want: codes.E301},
		{name: "a negative idle timeout", idle: -time.Second, want: codes.E301},
		{name: "zero for none (the control)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io"),
				ImportRoot: root, Timeout: tt.timeout, MaxMemoryMB: tt.memory, IdleTimeout: tt.idle})
			if codes.CodeOf(err) != tt.want {
				t.Fatalf("NewPool: %v, want %q", err, tt.want)
			}
			if err != nil {
				return
			}
			defer p.Close()
			res, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
			if err != nil || string(res.Stdout) != "hello\n" {
				t.Errorf("the control: %v, %q; want hello", err, res.Stdout)
			}
		})
	}
}

// TestPoolCloseDrains: Close lets every run already taken end, running
// or waiting for the one worker, each with its receipt; a run sent after
// Close is refused and runs nothing.
func TestPoolCloseDrains(t *testing.T) {
	root := importRoot(t)
	rc := t.TempDir()
	p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1, ImportRoot: root, Timeout: time.Minute, Receipts: rc})
	if err != nil {
		t.Fatal(err)
	}
	// Each run takes longer than the wait before Close: some are still
	// waiting for the one worker when Close is called.
	busy := sabline.Source("busy.vel", []byte("n = 0\nfor i in range(3000000):\n    n += i\nprint(n)\n"))
	const runs = 4
	results := make(chan *sabline.Result, runs)
	for range runs {
		go func() {
			res, err := p.Run(context.Background(), busy, sabline.RunOptions{})
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	// Taken: one running, the rest waiting, each with its skeleton.
	waitFor(t, "every run taken", func() bool { l, _ := receipt.List(rc); return len(l) == runs })
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for range runs {
		res := <-results
		if res == nil || res.Receipt.Outcome.Status != receipt.StatusOK || string(res.Stdout) != "4499998500000\n" {
			t.Errorf("a run taken before Close: %+v, want it run to its end", res)
		}
	}
	stored, err := receipt.List(rc)
	if err != nil || len(stored) != runs {
		t.Errorf("receipts %d (%v), want the %d runs'", len(stored), err, runs)
	}
	for _, r := range stored {
		if r.Outcome.Status != receipt.StatusOK {
			t.Errorf("receipt %s says %s, want ok", r.RunID, r.Outcome.Status)
		}
	}
	res, err := p.Run(context.Background(), busy, sabline.RunOptions{})
	if err == nil || len(res.Stdout) != 0 || res.Receipt.Outcome.Code != codes.E310 {
		t.Errorf("a run after Close: %v, %+v; want it refused, nothing run", err, res.Receipt.Outcome)
	}
}

// TestPoolReplacesAnIdleDeadWorker: a worker killed while it waits for a
// run does not take the next run down with it: the run goes to a
// replacement and runs.
func TestPoolReplacesAnIdleDeadWorker(t *testing.T) {
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1, ImportRoot: root})
	victim := p.Workers()[0]
	proc, err := os.FindProcess(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	// Reaped by the pool: the run finds it dead, not a worker that dies
	// as it is sent the job (both are replaced).
	waitFor(t, "the worker to be reaped", func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", victim))
		return errors.Is(err, fs.ErrNotExist)
	})
	res, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK || string(res.Stdout) != "hello\n" {
		t.Fatalf("the run after an idle worker died: %v, %+v, %q; want it run on a replacement", err, res.Receipt.Outcome, res.Stdout)
	}
	if w := p.Workers(); len(w) != 1 || w[0] == victim {
		t.Errorf("workers %v, want one other than %d", w, victim)
	}
}

// TestPoolRequire: a pool held below its required level starts no worker
// and says why (E326); at a level it reaches, it starts. Settings that
// contradict each other are E301.
func TestPoolRequire(t *testing.T) {
	root := importRoot(t)
	tests := []struct {
		name     string
		opts     sabline.PoolOptions
		wantCode codes.Code // "" when the pool starts
	}{
		{name: "a grant beneath a missing directory, full required",
			opts: sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:gone/out"), ImportRoot: root, Require: core.Full}, wantCode: codes.E326},
		{name: "the same, partial required",
			opts: sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:gone/out"), ImportRoot: root, Require: core.Partial}},
		{name: "a host grant, full required: the supervisor connects (Linux), E326 elsewhere",
			opts:     sabline.PoolOptions{Budget: budget.MustParse(root, "io,net:localhost:8080"), ImportRoot: root, Require: core.Full},
			wantCode: map[bool]codes.Code{true: "", false: codes.E326}[goruntime.GOOS == "linux"]},
		{name: "no confinement and a required level",
			opts: sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Confine: sabline.ConfineOff, Require: core.Partial}, wantCode: codes.E301},
		{name: "an unknown setting",
			opts: sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Confine: "loose"}, wantCode: codes.E301},
		{name: "an unknown durability",
			opts: sabline.PoolOptions{Budget: budget.MustParse(root, "io"), ImportRoot: root, Durability: "eventually"}, wantCode: codes.E301},
		{name: "a durability",
			opts: sabline.PoolOptions{Budget: budget.MustParse(root, "io"), ImportRoot: root, Durability: receipt.None}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Require != "" && tt.wantCode != codes.E301 && confine.Probe().LandlockABI < 4 {
				t.Skip("the levels compared are those of Landlock ABI 4 and later")
			}
			p, err := sabline.NewPool(tt.opts)
			if err == nil {
				defer p.Close()
			}
			if got := codes.CodeOf(err); got != tt.wantCode {
				t.Errorf("NewPool: %v, want code %q", err, tt.wantCode)
			}
		})
	}
}

// TestPoolForgedResult: a run that may make raw system calls writes a
// result of its own on the worker's result pipe, then fails: its receipt
// says it failed, and the forged output is not taken. The control: the
// same program without the forgery fails the same way.
func TestPoolForgedResult(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("ctypes makes raw system calls on Linux only")
	}
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,ffi:ctypes"), Workers: 1, ImportRoot: root})
	forged := `{"outcome":{"status":"ok","exit_status":0},"stdout":"Zm9yZ2VkCg=="}` + "\n"
	for _, tt := range []struct {
		name, src string
	}{
		{name: "forged", src: "line = '" + strings.TrimSuffix(forged, "\n") + "\\n'\nffi.module(\"ctypes\").syscall(\"write\", 4, line, len(line))\nfail(\"the real end\")\n"},
		{name: "control", src: "fail(\"the real end\")\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), sabline.Source("forge.vel", []byte(tt.src)), sabline.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if o := res.Receipt.Outcome; o.Status != receipt.StatusFailed || !strings.Contains(o.Message, "the real end") || strings.Contains(string(res.Stdout), "forged") {
				t.Errorf("outcome %+v, output %q: want the run's own failure, nothing forged", o, res.Stdout)
			}
		})
	}
}

// waitWorkers waits, at most 30 s, until the pool has n workers, and
// returns how many it has then.
func waitWorkers(p *sabline.Pool, n int) int {
	deadline := time.Now().Add(testkit.Bound(30 * time.Second))
	for len(p.Workers()) != n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return len(p.Workers())
}

// runAtOnce sends n runs of hello.vel to the pool at the same time and
// fails the test if one does not end ok.
func runAtOnce(t *testing.T, p *sabline.Pool, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
			if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
				t.Errorf("a run: %v", err)
			}
		}()
	}
	wg.Wait()
}

// TestPoolShrinks: past MaxIdle, a worker idle for IdleTimeout is
// retired; the ones the pool keeps stay however long they wait, and a
// burst of runs starts workers again. The control: a pool that keeps as
// many idle workers as it has keeps them all.
func TestPoolShrinks(t *testing.T) {
	root := importRoot(t)
	const idle = 200 * time.Millisecond
	tests := []struct {
		name    string
		maxIdle int
		want    int // workers left once idle
	}{
		{name: "keeps one", maxIdle: 1, want: 1},
		{name: "keeps none", maxIdle: -1, want: 0},
		{name: "keeps all three (the control)", maxIdle: 3, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 3, ImportRoot: root,
				MaxIdle: tt.maxIdle, IdleTimeout: idle})
			if n := len(p.Workers()); n != 3 {
				t.Fatalf("%d workers at start, want 3", n)
			}
			if n := waitWorkers(p, tt.want); n != tt.want {
				t.Fatalf("%d workers after they went idle, want %d", n, tt.want)
			}
			time.Sleep(3 * idle) // no more go, however long they wait
			if n := len(p.Workers()); n != tt.want {
				t.Fatalf("%d workers after %s more of idleness, want the %d kept", n, 3*idle, tt.want)
			}
			runAtOnce(t, p, 6)
			if n := len(p.Workers()); n < 1 || n > 3 {
				t.Fatalf("%d workers after a burst of runs, want 1 to 3", n)
			}
			if n := waitWorkers(p, tt.want); n != tt.want {
				t.Fatalf("%d workers once idle again, want %d", n, tt.want)
			}
		})
	}
}

// TestPoolOnDemand: a pool started on demand has no worker until its
// first run, which starts one; a pool whose machine cannot reach its
// required level is refused at once (E326), and one whose worker reports
// a level below it refuses each run with its receipt (E326).
func TestPoolOnDemand(t *testing.T) {
	root := importRoot(t)
	rc := t.TempDir()
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 2, ImportRoot: root, Receipts: rc, OnDemand: true})
	if w := p.Workers(); len(w) != 0 || p.Confinement().Level != "" {
		t.Fatalf("workers %v, level %q before any run: want none", w, p.Confinement().Level)
	}
	res, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
	if err != nil || string(res.Stdout) != "hello\n" {
		t.Fatalf("the first run: %v, %q", err, res.Stdout)
	}
	if w := p.Workers(); len(w) != 1 || p.Confinement().Level != res.Receipt.RunParameters.Confinement {
		t.Errorf("workers %v, level %q after the first run (its receipt says %q): want one, and its level",
			w, p.Confinement().Level, res.Receipt.RunParameters.Confinement)
	}

	// Without an import root, reads are not held: this machine holds
	// the pool at partial at best, below full.
	_, err = sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Require: core.Full, OnDemand: true})
	if codes.CodeOf(err) != codes.E326 || !regexp.MustCompile(`this machine would hold it at (partial|none)`).MatchString(err.Error()) {
		t.Errorf("NewPool below its required level: %v, want E326 saying what this machine would hold", err)
	}
	// A write grant whose directory is gone by the first run: this
	// machine held it when the pool started, the worker cannot.
	out := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	refusing, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+out), ImportRoot: root,
		Require: core.Full, OnDemand: true, Receipts: rc})
	if codes.CodeOf(err) == codes.E326 {
		t.Skipf("this machine does not hold the budget fully even with its directory: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer refusing.Close()
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := refusing.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
		if codes.CodeOf(err) != codes.E326 || res.Receipt.Outcome.Code != codes.E326 || len(res.Stdout) != 0 {
			t.Fatalf("a run of a pool held below its required level: %v, %+v; want E326, nothing run", err, res.Receipt.Outcome)
		}
		if got, err := receipt.Find(rc, res.Receipt.RunID); err != nil || got.Outcome.Code != codes.E326 {
			t.Errorf("its stored receipt: %v; want it there, E326", err)
		}
	}
	if w := refusing.Workers(); len(w) != 0 {
		t.Errorf("workers %v of a refusing pool, want none", w)
	}
}

// TestPoolInput: a pooled run reads the standard input it was given as a
// reader, as Run's does; input past the bound is refused (E301) with its
// receipt, and nothing runs; a reader that fails is refused the same way.
// A reader that blocks (a pipe nobody writes) ends the run when its
// context is done (E307, nothing ran): before, Run waited on it past its
// context, for ever. The control: the same pipe written and closed.
func TestPoolInput(t *testing.T) {
	dir := t.TempDir()
	rc := t.TempDir()
	pool, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(dir, "io"), ImportRoot: dir,
		Timeout: time.Minute, Receipts: rc})
	if err != nil {
		t.Fatal(err)
	}
	// Closed after the pipes below are (cleanups run last first): a run
	// still waiting on one, when the test has failed, ends then, and
	// Close does not wait for it until go test's own timeout.
	t.Cleanup(func() { pool.Close() })
	prog := sabline.Source(filepath.Join(dir, "echo.vel"), []byte("print(io.read_line())\n"))
	pipe := func(line string) io.Reader {
		r, w := io.Pipe()
		t.Cleanup(func() { w.Close() }) // the reader left waiting ends with the test
		if line != "" {
			go func() {
				_, _ = io.WriteString(w, line)
				w.Close()
			}()
		}
		return r
	}
	tests := []struct {
		name      string
		in        io.Reader
		cancelled bool // the run's context is done
		wantOut   string
		wantCode  codes.Code
	}{
		{name: "a line", in: strings.NewReader("went through\n"), wantOut: "went through\n"},
		{name: "a pipe written and closed", in: pipe("piped\n"), wantOut: "piped\n"},
		{name: "a pipe nobody writes, cancelled", in: pipe(""), cancelled: true,
			wantCode: codes.E307},
		{name: "at the bound", in: strings.NewReader("x\n" + strings.Repeat("y", 4<<20-2)),
			wantOut: "x\n"},
		{name: "past the bound", in: strings.NewReader(strings.Repeat("y", 4<<20+1)),
			wantCode: codes.E301},
		{name: "a reader that fails", in: iotest.ErrReader(errors.New("disk gone")),
			wantCode: codes.E301},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancelled {
				cancel()
			}
			defer cancel()
			var res *sabline.Result
			var err error
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				res, err = pool.Run(ctx, prog, sabline.RunOptions{Stdin: tt.in})
			}()
			select {
			case <-ran:
			case <-time.After(testkit.Bound(30 * time.Second)):
				t.Fatal("Run still waits on its input")
			}
			if codes.CodeOf(err) != tt.wantCode || res.Receipt.Outcome.Code != tt.wantCode {
				t.Fatalf("error %v, receipt code %q; want %q", err, res.Receipt.Outcome.Code, tt.wantCode)
			}
			if string(res.Stdout) != tt.wantOut {
				t.Errorf("output %q, want %q", res.Stdout, tt.wantOut)
			}
			if _, err := receipt.Find(rc, res.Receipt.RunID); err != nil {
				t.Errorf("receipt %s not kept: %v", res.Receipt.RunID, err)
			}
		})
	}
}

// TestPoolJobBound: a pooled run whose program, input and arguments come
// to more than a worker reads in one job is refused (E301) with its
// receipt, and nothing runs; one that comes to the bound exactly runs,
// as does an argument of a mebibyte. The job's length beside its
// argument's is read from the first refusal's message.
func TestPoolJobBound(t *testing.T) {
	dir := t.TempDir()
	rc := t.TempDir()
	pool := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(dir, "io"), ImportRoot: dir,
		Timeout: time.Minute, Receipts: rc})
	prog := sabline.Source(filepath.Join(dir, "len.vel"), []byte("print(len(ARGS[0]))\n"))
	run := func(t *testing.T, arg int, wantCode codes.Code) *sabline.Result {
		t.Helper()
		res, err := pool.Run(context.Background(), prog,
			sabline.RunOptions{Args: []string{strings.Repeat("a", arg)}})
		if codes.CodeOf(err) != wantCode || res.Receipt.Outcome.Code != wantCode ||
			wantCode != "" && !strings.Contains(err.Error(), "nothing ran") {
			t.Fatalf("an argument of %d bytes: error %v, receipt code %q; want %q",
				arg, err, res.Receipt.Outcome.Code, wantCode)
		}
		if _, err := receipt.Find(rc, res.Receipt.RunID); err != nil {
			t.Errorf("receipt %s not kept: %v", res.Receipt.RunID, err)
		}
		if e := (*codes.Error)(nil); wantCode != "" &&
			(!errors.As(err, &e) || strings.Contains(e.Hint(), "--help")) {
			t.Errorf("an argument of %d bytes: %v; want advice a pool's caller can take, "+
				"not the command line's --help", arg, err)
		}
		want := ""
		if wantCode == "" {
			want = fmt.Sprintf("%d\n", arg)
		}
		if string(res.Stdout) != want {
			t.Errorf("an argument of %d bytes: output %q, want %q", arg, res.Stdout, want)
		}
		return res
	}
	run(t, 1<<20, "")
	res := run(t, wire.MaxJobBytes, codes.E301)
	var job int
	if _, err := fmt.Sscanf(res.Receipt.Outcome.Message, "this run's program, standard input and "+
		"arguments come to %d bytes", &job); err != nil {
		t.Fatalf("the refusal %q: %v", res.Receipt.Outcome.Message, err)
	}
	atBound := wire.MaxJobBytes - (job - wire.MaxJobBytes)
	run(t, atBound, "")
	run(t, atBound+1, codes.E301)
}

// TestPoolReceiptNotFinished: a pooled run whose finished receipt cannot
// be appended (its journal failed once the run's skeleton was in it, as
// on a file system the program filled) is not answered as kept: Run
// returns E327, as sabline.Run does, and the pool says so on its Stderr;
// the receipt kept is the skeleton, unfinished. The program waits on a
// loopback connection the test answers only once the journal is closed.
// Before, Run returned nil, the result's receipt said ok, and nothing
// said that the one kept says unfinished.
func TestPoolReceiptNotFinished(t *testing.T) {
	root := importRoot(t)
	rc := t.TempDir()
	store, err := receipt.OpenStore(rc) // the pool's too: one store a directory in a process
	if err != nil {
		t.Fatal(err)
	}
	port, answered := testkit.Gate(t, func() { store.Journal().Close() }) // every append after fails
	var stderr testkit.LockedBuffer
	p := newPool(t, sabline.PoolOptions{
		Budget: budget.MustParse(root, "io,net:127.0.0.1:"+port), Workers: 1,
		ImportRoot: root, Timeout: time.Minute, Receipts: rc, Stderr: &stderr})
	res, err := p.Run(context.Background(), sabline.Source("wait.vel", []byte(testkit.GatedSource)),
		sabline.RunOptions{Args: []string{port}})
	if aerr := answered(); aerr != nil {
		t.Fatal(aerr)
	}
	if res == nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the run: %+v, %v; want it run to its end", res, err)
	}
	if codes.CodeOf(err) != codes.E327 {
		t.Errorf("Run of a program that ran, its receipt not finished: %v; want E327", err)
	}
	if !strings.Contains(stderr.String(), "E327") {
		t.Errorf("the pool's stderr: %q; want the receipt not finished named", stderr.String())
	}
	stored, err := receipt.List(rc)
	if err != nil || len(stored) != 1 || stored[0].Outcome.Status != receipt.StatusUnfinished {
		t.Fatalf("receipts kept: %+v, %v; want the skeleton, unfinished", stored, err)
	}
	// A run refused while the journal fails says why it was refused
	// (E328, a budget wider than the pool's), not that its receipt was
	// not finished: nothing ran. Its receipt is not kept either.
	wider := budget.MustParse(root, "io,fs:write")
	res, err = p.Run(context.Background(), sabline.Source("wide.vel", []byte("print(1)\n")),
		sabline.RunOptions{Budget: &wider})
	if _, serr := res.Receipt.Stored(); serr == nil {
		t.Fatalf("the refused run's receipt was kept with the journal closed: the case tests nothing")
	}
	if codes.CodeOf(err) != codes.E328 {
		t.Errorf("Run of a budget wider than the pool's, the journal failing: %v; want E328", err)
	}
}

// TestPoolReceiptsDirectoryRemoved: a receipts directory removed while
// a pool keeps its receipts there (an rm -r, a clean-up) left the pool
// appending to a journal that no directory named: every later run ran,
// wrote its file and returned no error, its receipt kept where no reader
// could find it and lost when the process ended (sabline serve and
// sabline mcp answered such runs ok). Now a run reserved there is
// refused E317, its program not run, with what to do (that no run
// starts); and a run whose directory is removed while it runs ends E327,
// saying that its program did run. The control, the same
// program before the removal, runs and its receipt is listed.
func TestPoolReceiptsDirectoryRemoved(t *testing.T) {
	root := importRoot(t)
	out := t.TempDir()
	rc := filepath.Join(t.TempDir(), "receipts")
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+out),
		Workers: 1, ImportRoot: root, Timeout: time.Minute, Receipts: rc})
	write := func(name string) (*sabline.Result, error) {
		src := fmt.Sprintf("fs.write(%q, \"x\")\n", filepath.Join(out, name))
		return p.Run(context.Background(), sabline.Source(name+".vel", []byte(src)),
			sabline.RunOptions{})
	}
	res, err := write("before")
	if err != nil {
		t.Fatalf("the control, before the removal: %v", err)
	}
	if stored, err := receipt.List(rc); err != nil || len(stored) != 1 ||
		stored[0].RunID != res.Receipt.RunID {
		t.Fatalf("the control's receipt: %+v, %v; want it listed", stored, err)
	}
	if err := os.RemoveAll(rc); err != nil {
		t.Fatal(err)
	}
	_, err = write("after")
	if codes.CodeOf(err) != codes.E317 {
		t.Errorf("a run after its receipts directory was removed: %v; want E317", err)
	}
	var ce *codes.Error
	if !errors.As(err, &ce) || !strings.Contains(ce.Do, "Restart the process") ||
		!strings.Contains(ce.Do, "no run starts") || strings.Contains(ce.Do, "did run") {
		t.Errorf("what to do: %v; want it to say to restart the process, and that no run "+
			"starts (its program did not run)", err)
	}
	if _, serr := os.Lstat(filepath.Join(out, "after")); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("the refused run's program ran (its file: %v)", serr)
	}

	// Removed while the run runs: the program ran, its receipt is
	// nowhere to be read, and the run says so (E327).
	rc2 := filepath.Join(t.TempDir(), "receipts")
	port, answered := testkit.Gate(t, func() {
		if err := os.RemoveAll(rc2); err != nil {
			t.Error(err)
		}
	})
	p2 := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,net:127.0.0.1:"+port),
		Workers: 1, ImportRoot: root, Timeout: time.Minute, Receipts: rc2})
	gated := sabline.Source("wait.vel", []byte(testkit.GatedSource))
	res, err = p2.Run(context.Background(), gated, sabline.RunOptions{Args: []string{port}})
	if aerr := answered(); aerr != nil {
		t.Fatal(aerr)
	}
	if res == nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the gated run: %+v, %v; want it run to its end", res, err)
	}
	if codes.CodeOf(err) != codes.E327 {
		t.Errorf("a run whose receipts directory was removed while it ran: %v; want E327", err)
	}
	if !errors.As(err, &ce) || !strings.Contains(ce.Do, "did run") ||
		!strings.Contains(ce.Do, "Check the program's effects") {
		t.Errorf("what to do: %v; want it to say the program did run, its receipt kept "+
			"nowhere, and to check its effects", err)
	}
}

// TestPoolRunCancelledBefore: a run whose context is done before it is
// sent runs nothing, though a worker is free: select took the free slot
// as often as the done context, and then the program ran, wrote its
// file, and was stopped (11 of 20 here), its worker killed and replaced.
// Each of 20 such runs is E307 saying nothing ran, writes no file, and
// leaves the same worker waiting; the control, the same program with a
// live context, writes its file in that worker.
func TestPoolRunCancelledBefore(t *testing.T) {
	root := importRoot(t)
	out := t.TempDir()
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+out),
		Workers: 1, ImportRoot: root, Timeout: time.Minute, Receipts: t.TempDir()})
	worker := p.Workers()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	write := func(ctx context.Context, name string) (*sabline.Result, error) {
		src := fmt.Sprintf("fs.write(%q, \"x\")\n", filepath.Join(out, name))
		return p.Run(ctx, sabline.Source("write.vel", []byte(src)), sabline.RunOptions{})
	}
	for i := range 20 {
		res, err := write(ctx, fmt.Sprint(i))
		if codes.CodeOf(err) != codes.E307 || !strings.Contains(res.Receipt.Outcome.Message, "nothing ran") {
			t.Errorf("run %d, cancelled before: %v, %+v; want E307, nothing ran", i, err, res.Receipt.Outcome)
		}
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("%d of 20 runs cancelled before they were sent wrote their file", len(left))
	}
	res, err := write(context.Background(), "control")
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the control: %v, %+v", err, res.Receipt.Outcome)
	}
	if _, err := os.Stat(filepath.Join(out, "control")); err != nil {
		t.Errorf("the control wrote no file: %v", err)
	}
	if w := p.Workers(); !slices.Equal(sorted(w), sorted(worker)) {
		t.Errorf("workers %v after the cancelled runs and the control, want %v still", w, worker)
	}
}

// TestPoolRegistryDurability: options that differ in their Durability
// alone are two pools: a run asking for its receipt flushed was run in
// the pool made first for options that asked for none, and its receipt
// said none. The control: equal options share one pool, and "" is
// flush, as NewPool reads it.
func TestPoolRegistryDurability(t *testing.T) {
	root, rc := importRoot(t), t.TempDir()
	reg := sabline.NewPoolRegistry(3)
	t.Cleanup(func() { reg.Close() })
	opts := func(d receipt.Durability) sabline.PoolOptions {
		return sabline.PoolOptions{Budget: budget.MustParse(root, "io"), ImportRoot: root,
			Receipts: rc, Durability: d}
	}
	for _, d := range []receipt.Durability{receipt.None, receipt.Flush} {
		res, err := reg.Run(context.Background(), opts(d), sabline.File("hello.vel"), sabline.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Receipt.RunParameters.Durability; got != d {
			t.Errorf("a run through the registry asking durability %q: its receipt says %q", d, got)
		}
	}
	if n := reg.Len(); n != 2 {
		t.Errorf("%d pools for two durabilities, want 2", n)
	}
	if opts("").Key() != opts(receipt.Flush).Key() {
		t.Error(`durability "" and flush, one and the same, are two pools`)
	}
	if _, err := reg.Run(context.Background(), opts(""), sabline.File("hello.vel"),
		sabline.RunOptions{}); err != nil || reg.Len() != 2 {
		t.Errorf(`a run with durability "": %v, %d pools; want it in flush's pool`, err, reg.Len())
	}
}

// TestPoolClosesWhatARunLeftOpen: a pool with no broker (under
// --no-confine, as on systems without one) runs each program's
// connections in its worker. One a program left open stayed open there
// once its run had ended, its peer still connected while the worker ran
// the next caller's program, until a garbage collection closed it. It is
// closed as the run ends: the peer reads its end, and the same worker
// serves the next run. The control: the peer had the program's bytes.
func TestPoolClosesWhatARunLeftOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{Workers: 1, ImportRoot: root, Timeout: time.Minute,
		Budget: budget.MustParse(root, "io,net:127.0.0.1"), Confine: sabline.ConfineOff,
		Receipts: t.TempDir()})
	src := fmt.Sprintf("c = net.connect(\"127.0.0.1\", %d)\nc.send(\"left\")\nprint(\"ran\")\n",
		ln.Addr().(*net.TCPAddr).Port)
	res, err := p.Run(context.Background(), sabline.Source("left.vel", []byte(src)),
		sabline.RunOptions{})
	if err != nil || string(res.Stdout) != "ran\n" {
		t.Fatalf("run: %q, %v", res.Stdout, err)
	}
	worker := p.Workers()
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	// Bounded by what it waits for: the bytes, then the end.
	_ = peer.SetReadDeadline(time.Now().Add(testkit.Bound(10 * time.Second)))
	got, err := io.ReadAll(peer)
	if string(got) != "left" {
		t.Fatalf("the peer read %q (%v), want the program's bytes", got, err)
	}
	if err != nil {
		t.Errorf("the connection the run left is open in worker %v once the run ended: %v", worker, err)
	}
	if len(worker) != 1 || !slices.Equal(p.Workers(), worker) {
		t.Errorf("workers %v after the run, then %v: want the one that serves the next run", worker,
			p.Workers())
	}
}

// TestPoolImportRootRelativeThroughALink: a pool whose import root is a
// relative name of a link runs a program named beneath the link by its
// absolute path, as it runs one named beneath the directory itself (the
// control): the root as named is made absolute before it is compared.
func TestPoolImportRootRelativeThroughALink(t *testing.T) {
	root := importRoot(t)
	link := filepath.Join(t.TempDir(), "current")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(link))
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1,
		ImportRoot: "current", Timeout: time.Minute, Receipts: t.TempDir()})
	for _, path := range []string{filepath.Join(root, "hello.vel"),
		filepath.Join(link, "hello.vel")} {
		res, _ := p.Run(context.Background(), sabline.File(path), sabline.RunOptions{})
		if res == nil {
			t.Fatalf("%s: no result", path)
		}
		if o := res.Receipt.Outcome; o.Code != "" || string(res.Stdout) != "hello\n" {
			t.Errorf("%s: %s %s %q, stdout %q; want it run", path, o.Status, o.Code, o.Message,
				res.Stdout)
		}
	}
}

// TestPoolImportRootThroughALink: a pool whose import root is named
// through a link (a deployment's current -> releases/42) runs a program
// named beneath the link, by a relative or an absolute path, as it runs
// one named beneath the directory itself; a program beside the root, by
// the link's parent, is still refused (E316). Before, the absolute path
// through the link was refused E316: the pool holds programs to the
// root as it resolves.
func TestPoolImportRootThroughALink(t *testing.T) {
	root := importRoot(t)
	link := filepath.Join(t.TempDir(), "current")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(link), "beside.vel"), []byte(hello), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1, ImportRoot: link,
		Timeout: time.Minute, Receipts: t.TempDir()})
	for _, tt := range []struct {
		name     string
		path     string
		wantCode string
	}{
		{name: "the directory itself", path: filepath.Join(root, "hello.vel")},
		{name: "relative", path: "hello.vel"},
		{name: "through the link", path: filepath.Join(link, "hello.vel")},
		{name: "through the link, cleaned", path: filepath.Join(link, "x", "..", "hello.vel")},
		{name: "beside the link", path: filepath.Join(filepath.Dir(link), "beside.vel"), wantCode: "E316"},
		{name: "out of the link", path: filepath.Join(link, "..", "beside.vel"), wantCode: "E316"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := p.Run(context.Background(), sabline.File(tt.path), sabline.RunOptions{})
			if res == nil {
				t.Fatal("no result")
			}
			o := res.Receipt.Outcome
			if string(o.Code) != tt.wantCode || (tt.wantCode == "" && string(res.Stdout) != "hello\n") {
				t.Errorf("%s: %s %s %q, stdout %q; want %q", tt.path, o.Status, o.Code, o.Message,
					res.Stdout, cmp.Or(tt.wantCode, "ok"))
			}
		})
	}
}

// TestPoolRefusesNamesNotUTF8: a pooled run whose program name or
// argument is not UTF-8 is refused before a worker takes it, E316 for
// the name and E301 for the argument, with its receipt. The job is
// handed to the worker as JSON, and before such a byte reached it as
// U+FFFD: the argument x\xffy reached the program as the five bytes
// "x\ufffdy". The control of each is the same run with a name in UTF-8
// beyond ASCII (é), which runs.
func TestPoolRefusesNamesNotUTF8(t *testing.T) {
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1,
		ImportRoot: root, Receipts: t.TempDir()})
	text := []byte("print(ARGS[0], len(ARGS[0]))\n")
	for _, tt := range []struct {
		name, prog, arg string
		wantCode        codes.Code // "" when it runs
		wantOut         string
	}{
		{name: "argument", prog: "args.vel", arg: "x\xffy", wantCode: codes.E301},
		{name: "argument in UTF-8", prog: "args.vel", arg: "x\u00e9y", wantOut: "x\u00e9y 4\n"},
		{name: "program name", prog: "p\xff.vel", arg: "a", wantCode: codes.E316},
		{name: "program name in UTF-8", prog: "p\u00e9.vel", arg: "a", wantOut: "a 1\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), sabline.Source(tt.prog, text),
				sabline.RunOptions{Args: []string{tt.arg}})
			if tt.wantCode == "" {
				if err != nil || string(res.Stdout) != tt.wantOut {
					t.Fatalf("the control: %v, stdout %q, want %q", err, res.Stdout, tt.wantOut)
				}
				return
			}
			if codes.CodeOf(err) != tt.wantCode || !strings.Contains(err.Error(), "is not UTF-8") ||
				len(res.Stdout) != 0 {
				t.Fatalf("%v, stdout %q: want %s naming what is not UTF-8, nothing run", err,
					res.Stdout, tt.wantCode)
			}
			if res.Receipt == nil || res.Receipt.Outcome.Code != tt.wantCode {
				t.Fatalf("receipt %+v, want the refusal's", res.Receipt)
			}
		})
	}
}

// TestPoolRefusesAGrantThroughALinkNotUTF8: a pooled run whose budget
// grants a link whose target's path is not UTF-8 is refused before a
// worker takes it, E301 naming where the grant leads, with its receipt,
// and the program writes nothing (Pool.Admits, which a door's audit asks
// too), as a run of the command line's is (TestRunGrantThroughALinkNotUTF8):
// the worker is handed where each grant resolved in a JSON string, which
// holds only UTF-8. The control: the same grant of a link to a directory
// in UTF-8 beyond ASCII (é), where the write lands.
func TestPoolRefusesAGrantThroughALinkNotUTF8(t *testing.T) {
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+root),
		Workers: 1, ImportRoot: root, Receipts: t.TempDir()})
	for _, odd := range []string{"\xff", "\u00e9"} {
		control := odd != "\xff"
		name := "not UTF-8"
		if control {
			name = "the control: in UTF-8"
		}
		t.Run(name, func(t *testing.T) {
			dir, err := os.MkdirTemp(root, "g")
			if err != nil {
				t.Fatal(err)
			}
			target, link := filepath.Join(dir, "t"+odd), filepath.Join(dir, "lnk")
			if err := os.Mkdir(target, 0o700); err != nil {
				t.Skipf("this file system takes no name %q: %v", "t"+odd, err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			b := budget.MustParse(root, "io,fs:write:"+link)
			text := "fs.write(\"" + link + "/f.txt\", \"x\")\nprint(\"wrote\")\n"
			res, err := p.Run(context.Background(), sabline.Source("w.vel", []byte(text)),
				sabline.RunOptions{Budget: &b})
			_, statErr := os.Stat(filepath.Join(target, "f.txt"))
			if control {
				if err != nil || string(res.Stdout) != "wrote\n" || statErr != nil {
					t.Fatalf("the control: %v, stdout %q, the file: %v", err, res.Stdout, statErr)
				}
				return
			}
			if codes.CodeOf(err) != codes.E301 || len(res.Stdout) != 0 ||
				!strings.Contains(fmt.Sprint(err), "a path that is not UTF-8") {
				t.Fatalf("%v, stdout %q: want E301 naming where the grant leads, nothing run", err,
					res.Stdout)
			}
			if res.Receipt == nil || res.Receipt.Outcome.Code != codes.E301 {
				t.Errorf("receipt %+v, want the refusal's", res.Receipt)
			}
			if !os.IsNotExist(statErr) {
				t.Errorf("the file the program writes: %v, want none", statErr)
			}
		})
	}
}
