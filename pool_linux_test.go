package sabline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// TestPoolGrantSwappedForALink: a pool admits its ceiling when it is
// made, and each run's budget when it comes; its workers hold the
// ceiling. A granted directory swapped afterwards for a link (by another
// run that may write beside it, say), into a credential location or
// anywhere else, does not carry the kernel's rule there: a worker started
// later checks the ceiling again, for a run whose narrower budget names
// no path too (into .ssh: no worker starts, E329), finds the grant
// resolves otherwise than when the pool was admitted, withholds it, says
// so in the receipt, and a module's own write through the link is
// refused, the directory it leads to unchanged as read from outside. The
// control: no swap, and the write lands. (A run of the ceiling's own
// budget: a narrower one granting a module is held by the kernel to its
// own, TestPoolRawCallsHeldToTheirRunsBudget.)
func TestPoolGrantSwappedForALink(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	tests := []struct {
		name         string
		into         string
		wantPlanted  bool
		wantWithheld bool
		wantRefused  bool // no worker starts: the ceiling, checked again, names a guarded location (E329)
	}{
		{name: "into a credential location", into: ".ssh", wantRefused: true},
		{name: "into a plain directory: it resolves otherwise than when admitted", into: "plain", wantWithheld: true},
		{name: "no swap (the control)", wantPlanted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{".ssh", "plain"} {
				if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			cache, err := os.UserCacheDir() // where the runs' own directories stay
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("XDG_CACHE_HOME", cache)
			t.Setenv("HOME", home)
			work, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(work, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			root := importRoot(t)
			p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+work+"/sub,ffi:pathlib"),
				Confine: sabline.ConfineStrict, ImportRoot: root, OnDemand: true, Receipts: t.TempDir()})

			// After the admission, before the first worker: the swap.
			witness := filepath.Join(work, "sub", "planted")
			if tt.into != "" {
				if err := os.Rename(filepath.Join(work, "sub"), filepath.Join(work, "sub.old")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(home, tt.into), filepath.Join(work, "sub")); err != nil {
					t.Fatal(err)
				}
				witness = filepath.Join(home, tt.into, "planted")
			}
			var asked *budget.Budget // the ceiling's own, but where no worker is to start
			if tt.wantRefused {
				narrower := budget.MustParse(root, "io,ffi:pathlib")
				asked = &narrower
			}
			src := "ffi.module(\"pathlib\").write_text(ARGS[0], \"planted\\n\")\nprint(\"RESULT written\")\n"
			res, err := p.Run(context.Background(), sabline.Source("plant.vel", []byte(src)),
				sabline.RunOptions{Args: []string{filepath.Join(work, "sub", "planted")}, Budget: asked})
			if refused := err != nil && strings.Contains(err.Error(), "E329"); refused != tt.wantRefused {
				t.Fatalf("refused %v (%v), want %v", refused, err, tt.wantRefused)
			}
			if tt.wantRefused {
				if _, err := os.Lstat(witness); err == nil {
					t.Errorf("%s exists: the refused run planted it", witness)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			params := res.Receipt.RunParameters
			t.Logf("outcome %s %s %q; %s: %s", res.Receipt.Outcome.Status, res.Receipt.Outcome.Code,
				res.Receipt.Outcome.Message, params.Confinement, params.ConfinementReason)

			// From outside the worker: what is in the directory the link
			// leads to.
			_, err = os.Lstat(witness)
			if planted := err == nil; planted != tt.wantPlanted {
				t.Errorf("%s exists %v, want %v", witness, planted, tt.wantPlanted)
			}
			if written := strings.Contains(string(res.Stdout), "RESULT written"); written != tt.wantPlanted {
				t.Errorf("the program says it wrote %v, want %v: %q", written, tt.wantPlanted, res.Stdout)
			}
			if said := strings.Contains(params.ConfinementReason, "left out of the kernel's ruleset"); said != tt.wantWithheld {
				t.Errorf("the receipt says a grant was withheld %v, want %v", said, tt.wantWithheld)
			}
		})
	}
}

// TestPoolMemoryWatchCountsMappings: a strict pool's worker, confined
// once, watches the memory it holds from a file it opened before: a
// program that maps 256 MiB through ctypes and writes them ends with
// E308 at the pool's limit of 64 MB, where it would wait 120 s; the
// control, a pool whose limit is 512, runs the same mapping to its end.
// It maps 32 MiB at a time and stops at the first refusal: the
// address-space limit leaves twice the memory limit and some slack
// above what the worker had mapped when it was set, and a worker
// started on a loaded machine maps more of its own after it (two busy
// loops beside it: 219 MB more, and one map of 256 MiB was refused,
// ENOMEM, and the run waited out its timeout); refused, it ends at once
// and says so.
func TestPoolMemoryWatchCountsMappings(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	const populate = `c = ffi.module("ctypes")
refused = []
for i in range(8):
    m = c.syscall("mmap", 0, 32*1024*1024, 3, 0x22, -1, 0)  # MAP_PRIVATE|MAP_ANONYMOUS
    if m.errno:
        refused.append(m.errno)
        break
    p = c.syscall("madvise", m.ret, 32*1024*1024, 23)  # MADV_POPULATE_WRITE
    if p.errno:
        refused.append(p.errno)
t0 = clock.now()
while not refused and clock.now() - t0 < float(ARGS[0]):
    pass
print("held", refused)
`
	tests := []struct {
		name       string
		limitMB    int
		hold       string
		wantCode   codes.Code
		wantStdout string
	}{
		{name: "past the limit", limitMB: 64, hold: "120", wantCode: codes.E308},
		{name: "under the limit (the control)", limitMB: 512, hold: "0.5", wantStdout: "held []\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := importRoot(t)
			p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,clock,ffi:ctypes"),
				Confine: sabline.ConfineStrict, Workers: 1, MaxMemoryMB: tt.limitMB,
				ImportRoot: root, Timeout: 30 * time.Second})
			res, err := p.Run(context.Background(), sabline.Source("populate.vel", []byte(populate)),
				sabline.RunOptions{Args: []string{tt.hold}})
			if err != nil {
				t.Fatal(err)
			}
			rec := res.Receipt
			if rec.Outcome.Code != tt.wantCode || string(res.Stdout) != tt.wantStdout {
				t.Errorf("outcome %s (%s), output %q; want code %q, output %q",
					rec.Outcome.Code, rec.Outcome.Message, res.Stdout, tt.wantCode, tt.wantStdout)
			}
			if rec.RunParameters.Confinement != core.Full {
				t.Errorf("the run's confinement is %s (%s), want full: the watch's file must be "+
					"opened before it", rec.RunParameters.Confinement, rec.RunParameters.ConfinementReason)
			}
		})
	}
}

// rewindsItsCount is a program that appends to ARGS[0]/ran, finds the page
// its worker counts its jobs begun on (/proc/self/maps, read by raw calls
// into memory of its own and written to ARGS[0]/maps), and, at its first
// run, writes the count back to 0 from /dev/zero and ends its worker
// with exit_group: a job its count says was never begun. ARGS[1] "keep"
// leaves the count and the worker be.
const rewindsItsCount = `c = ffi.module("ctypes")
OUT = ARGS[0]
fs.append(OUT + "/ran", "x")
fd = c.syscall("openat", -100, "/proc/self/maps", 0).ret
o = c.syscall("openat", -100, OUT + "/maps", 577, 420).ret  # O_WRONLY|O_CREAT|O_TRUNC
buf = c.syscall("mmap", 0, 1048576, 3, 0x22, -1, 0).ret  # PROT_READ|WRITE, PRIVATE|ANONYMOUS
got = c.syscall("read", fd, buf, 1048576).ret
c.syscall("write", o, buf, got)
addr = 0
for line in fs.read(OUT + "/maps").split("\n"):
    if "sabline-began" in line:
        addr = int(line.split("-")[0], 16)
if addr and len(fs.read(OUT + "/ran")) == 1 and ARGS[1] != "keep":
    z = c.syscall("openat", -100, "/dev/zero", 0).ret
    c.syscall("read", z, addr, 8)
    c.syscall("exit_group", 0)
print("found", addr != 0)
`

// TestPoolRawCallsRunOnce: a run that may make raw system calls writes
// its worker's count of jobs begun back to 0 and ends the worker: the
// pool took the job for one never begun and sent it to a second worker,
// so the program ran twice (two appends to its file, read from outside)
// while its receipt said ok, one write, nothing of the first. It runs
// once: its receipt says the worker ended without a result. The
// controls: the program finds the page (the way was tried), and, leaving
// the count be, runs once to its end.
func TestPoolRawCallsRunOnce(t *testing.T) {
	for _, tt := range []struct {
		name, arg string
		want      string
	}{
		{name: "the count written back", arg: "rewind", want: receipt.StatusCrashed},
		{name: "the count left be (the control)", arg: "keep", want: receipt.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, out := importRoot(t), t.TempDir()
			p := newPool(t, sabline.PoolOptions{Workers: 1, ImportRoot: root, Timeout: time.Minute,
				Budget:   budget.MustParse(root, "io,ffi:ctypes,fs:write:"+out, "fs:read:"+out),
				Receipts: t.TempDir()})
			res, err := p.Run(context.Background(), sabline.Source("rewind.vel", []byte(rewindsItsCount)),
				sabline.RunOptions{Args: []string{out, tt.arg}})
			if err != nil {
				t.Fatal(err)
			}
			maps, _ := os.ReadFile(filepath.Join(out, "maps"))
			if !strings.Contains(string(maps), "sabline-began") {
				t.Fatalf("the program did not find its worker's page in %d bytes of its maps", len(maps))
			}
			ran, _ := os.ReadFile(filepath.Join(out, "ran"))
			if string(ran) != "x" {
				t.Errorf("the program ran %d times (its file holds %q), want once", len(ran), ran)
			}
			if o := res.Receipt.Outcome; o.Status != tt.want {
				t.Errorf("its receipt says %s (%s %s), want %s", o.Status, o.Code, o.Message, tt.want)
			}
		})
	}
}

// childCtx is a context that is done once this process has a child: the
// caller's cancel arriving while a pool starts the worker a run waits
// for. Err looks at /proc/self/task/*/children, and so does a goroutine
// that closes Done when it sees one, as a cancel would (until t ends).
type childCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newChildCtx(t *testing.T) *childCtx {
	c := &childCtx{Context: context.Background(), done: make(chan struct{})}
	ended := make(chan struct{})
	t.Cleanup(func() { close(ended) })
	go func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for c.Err() == nil {
			select {
			case <-tick.C:
			case <-ended:
				return
			}
		}
	}()
	return c
}

func (c *childCtx) Done() <-chan struct{} { return c.done }

func (c *childCtx) Err() error {
	lists, _ := filepath.Glob("/proc/self/task/*/children")
	for _, l := range lists {
		if b, err := os.ReadFile(l); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			c.once.Do(func() { close(c.done) })
			return context.Canceled
		}
	}
	return nil
}

// TestPoolRunCancelledWhileItsWorkerStarts: a run whose context is done
// while the worker it waits for starts (an on-demand pool's first run) is
// sent to none, as one cancelled before a worker took it: before, the
// worker, once started, was sent it, and the program wrote its file. It
// is E307 saying nothing ran, writes no file, and the worker started for
// it serves the next run (the control, which writes its file).
func TestPoolRunCancelledWhileItsWorkerStarts(t *testing.T) {
	root, out := importRoot(t), t.TempDir()
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+out),
		Workers: 1, OnDemand: true, ImportRoot: root, Timeout: time.Minute, Receipts: t.TempDir()})
	ctx := newChildCtx(t)
	if ctx.Err() != nil {
		t.Skip("this process has a child already: the context would be done before the run")
	}
	write := func(ctx context.Context, name string) (*sabline.Result, error) {
		src := fmt.Sprintf("fs.write(%q, \"x\")\n", filepath.Join(out, name))
		return p.Run(ctx, sabline.Source("write.vel", []byte(src)), sabline.RunOptions{})
	}
	res, err := write(ctx, "cancelled")
	if codes.CodeOf(err) != codes.E307 || !strings.Contains(res.Receipt.Outcome.Message, "nothing ran") {
		t.Errorf("the run cancelled while its worker started: %v, %+v; want E307, nothing ran",
			err, res.Receipt.Outcome)
	}
	if _, err := os.Stat(filepath.Join(out, "cancelled")); err == nil {
		t.Error("the run cancelled while its worker started wrote its file")
	}
	started := p.Workers()
	if len(started) != 1 {
		t.Fatalf("workers %v after the cancelled run, want the one started for it", started)
	}
	res, err = write(context.Background(), "control")
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the control: %v, %+v", err, res.Receipt.Outcome)
	}
	if _, err := os.Stat(filepath.Join(out, "control")); err != nil {
		t.Errorf("the control wrote no file: %v", err)
	}
	if w := p.Workers(); len(w) != 1 || w[0] != started[0] {
		t.Errorf("workers %v after the control, want %v still", w, started)
	}
}

// readsItsMemory is a program that writes its worker's memory to
// ARGS[0]/mem and prints its worker's pid: every region /proc/self/maps
// lists as writable (read by raw calls into memory of its own, as
// rewindsItsCount does), or, where that file is out of reach (a strict
// run), the Go heap: each arena of 64 MiB that madvise(2) finds mapped,
// written a piece at a time, the pieces not readable left out.
const readsItsMemory = `c = ffi.module("ctypes")
OUT = ARGS[0]
regions = []
fd = c.syscall("openat", -100, "/proc/self/maps", 0)
if fd.errno == "":
    o = c.syscall("openat", -100, OUT + "/maps", 577, 420).ret  # O_WRONLY|O_CREAT|O_TRUNC
    buf = c.syscall("mmap", 0, 1048576, 3, 0x22, -1, 0).ret  # PROT_READ|WRITE, PRIVATE|ANONYMOUS
    got = c.syscall("read", fd.ret, buf, 1048576).ret
    c.syscall("write", o, buf, got)
    for line in fs.read(OUT + "/maps").split("\n"):
        f = line.split(" ")
        if len(f) > 1 and f[1].startswith("rw"):
            a, b = [int(x, 16) for x in f[0].split("-")]
            regions.append((a, min(b, a + (64 << 20))))
else:
    for i in range(1, 1 << 20):  # 64 MiB apart, beneath 1 << 46
        if c.syscall("madvise", i << 26, 4096, 0).errno == "":  # MADV_NORMAL
            regions.append((i << 26, (i + 1) << 26))
mem = c.syscall("openat", -100, OUT + "/mem", 577, 420).ret
for a, b in regions:
    for at in range(a, b, 65536):
        c.syscall("write", mem, at, min(65536, b - at))
print(c.syscall("getpid").ret)
`

// TestPoolRawCallsReadNoEarlierRun: a run that may make raw system calls
// reads its worker's memory as its own. Sent to a worker that had served
// another caller's run (a door's tenants share one pool), it found that
// run's program and its input there, at level none and at full alike
// (under strict, the Go heap found by madvise(2) and written out). It now
// gets a worker that served no run: the earlier run's marks are nowhere
// in what it read, and its pid is not the earlier worker's. The control:
// its own program and input, which the same read finds. Both at level
// none (the memory /proc/self/maps lists) and under strict, level full
// (the Go heap's arenas, found by madvise).
func TestPoolRawCallsReadNoEarlierRun(t *testing.T) {
	for _, confine := range []sabline.Confine{sabline.ConfineDefault, sabline.ConfineStrict} {
		t.Run(string(confine), func(t *testing.T) { rawCallsReadNoEarlierRun(t, confine) })
	}
}

func rawCallsReadNoEarlierRun(t *testing.T, confine sabline.Confine) {
	root, out := importRoot(t), t.TempDir()
	ceiling := budget.MustParse(root, "io,ffi:ctypes,fs:write:"+out, "fs:read:"+out)
	p := newPool(t, sabline.PoolOptions{Workers: 1, ImportRoot: root,
		Timeout: testkit.Bound(time.Minute), Budget: ceiling, Receipts: t.TempDir(), Confine: confine})
	// Made here, so that no worker holds them but through a job.
	mark := func(what string) string { return fmt.Sprintf("%s-%d-mark", what, time.Now().UnixNano()) }
	theirs, theirInput := mark("their-program"), mark("their-input")
	src := fmt.Sprintf("secret = %q\nprint(len(io.read_all()), len(secret))\n", theirs)
	if err := os.WriteFile(filepath.Join(root, "theirs.vel"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	narrow := budget.MustParse(root, "io")
	res, err := p.Run(context.Background(), sabline.File("theirs.vel"),
		sabline.RunOptions{Budget: &narrow, Tenant: "acme", Stdin: strings.NewReader(theirInput)})
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the earlier run: %v, %+v", err, res.Receipt.Outcome)
	}
	earlier := p.Workers()
	if len(earlier) != 1 {
		t.Fatalf("workers after the earlier run: %v, want one", earlier)
	}
	own, ownInput := mark("own-program"), mark("own-input")
	reads := sabline.Source("reads.vel", []byte(fmt.Sprintf("MARK = %q\n", own)+readsItsMemory))
	res, err = p.Run(context.Background(), reads, sabline.RunOptions{Tenant: "beta",
		Args: []string{out}, Stdin: strings.NewReader(ownInput)})
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the run with raw calls: %v, %+v", err, res.Receipt.Outcome)
	}
	mem, err := os.ReadFile(filepath.Join(out, "mem"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{own, ownInput} {
		if !strings.Contains(string(mem), m) {
			t.Fatalf("the control: %s is not in the %d bytes of memory the run read: the way was "+
				"not tried", m, len(mem))
		}
	}
	for _, m := range []string{theirs, theirInput} {
		if strings.Contains(string(mem), m) {
			t.Errorf("%s, the earlier run's, is in the memory the run with raw calls read", m)
		}
	}
	if pid := strings.TrimSpace(string(res.Stdout)); pid == fmt.Sprint(earlier[0]) {
		t.Errorf("the run with raw calls ran in worker %s, which had served the earlier run", pid)
	}
}

// TestPoolRawCallsHeldToTheirRunsBudget: a run that may make raw system
// calls, under --confine strict, whose budget narrows the pool's, is held
// by the kernel to its own budget, not the pool's. Its worker was one of
// the pool's, held to the pool's grants: a door's tenant whose ceiling
// granted ffi:ctypes and a directory of its own (shared/b) created a file
// in another tenant's beside it (shared/a) with openat(2), the receipt
// saying level full. It now gets a worker held to its own budget: the
// plant into shared/a is refused, nothing there as read from outside, and
// the receipt's level is full with no word of a budget the language
// holds. The controls: the same run plants into its own directory, and a
// run with the pool's whole budget plants into shared/a; a narrower run
// without ffi after them is served as before (the pool's worker).
func TestPoolRawCallsHeldToTheirRunsBudget(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	root := importRoot(t)
	shared, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(shared, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,ffi:ctypes,fs:write:"+shared),
		Confine: sabline.ConfineStrict, Workers: 1, ImportRoot: root, Receipts: t.TempDir(),
		Timeout: testkit.Bound(time.Minute)})
	const plants = `r = ffi.module("ctypes").syscall("openat", -100, ARGS[0], 65, 420)  # O_WRONLY|O_CREAT
print("RESULT", r.ret >= 0, r.errno)
`
	ownB := budget.MustParse(root, "io,ffi:ctypes,fs:write:"+filepath.Join(shared, "b"))
	tests := []struct {
		name        string
		budget      *budget.Budget // nil: the pool's
		into        string
		wantPlanted bool
	}{
		{name: "a narrower run into another's directory", budget: &ownB, into: "a"},
		{name: "a narrower run into its own (the control)", budget: &ownB, into: "b", wantPlanted: true},
		{name: "the pool's budget into that directory (the control)", into: "a", wantPlanted: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			witness := filepath.Join(shared, tt.into, fmt.Sprintf("planted-%d", i))
			res, err := p.Run(context.Background(), sabline.Source("plant.vel", []byte(plants)),
				sabline.RunOptions{Args: []string{witness}, Budget: tt.budget, Tenant: "beta"})
			if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
				t.Fatalf("run: %v, %+v", err, res.Receipt.Outcome)
			}
			params := res.Receipt.RunParameters
			t.Logf("%s; %s: %s", strings.TrimSpace(string(res.Stdout)), params.Confinement,
				params.ConfinementReason)
			// From outside the worker: what is in the directory.
			_, err = os.Lstat(witness)
			if planted := err == nil; planted != tt.wantPlanted {
				t.Errorf("%s exists %v, want %v (the program said %q)", witness, planted,
					tt.wantPlanted, res.Stdout)
			}
			if params.Confinement != core.Full {
				t.Errorf("level %s (%s), want full", params.Confinement, params.ConfinementReason)
			}
			if strings.Contains(params.ConfinementReason, "held by the language") {
				t.Errorf("the reason says the language holds the run's budget, where nothing holds "+
					"a raw call but the kernel: %s", params.ConfinementReason)
			}
		})
	}
	// A narrower run that makes no raw call still goes to the pool's own
	// worker, which holds the pool's budget, and says so.
	narrow := budget.MustParse(root, "io")
	res, err := p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{Budget: &narrow})
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the narrower run without ffi: %v, %+v", err, res.Receipt.Outcome)
	}
	if !strings.Contains(res.Receipt.RunParameters.ConfinementReason, "held by the language") {
		t.Errorf("the narrower run without ffi: the reason does not say the language holds its "+
			"budget: %s", res.Receipt.RunParameters.ConfinementReason)
	}
}

// TestPoolNarrowerRunGetsNoEnvironment: a pool whose budget grants env
// starts its workers with the operator's whole environment; a run that
// may reach it without the language (a host module's own getenv, raw
// calls that write out its worker's memory) but whose narrower budget
// does not grant env got it all the same: a door's tenant whose ceiling
// left env out read the operator's variables. It now gets a worker of its
// own, started with the environment of its own budget: the variable is
// not there. The control: a run of the pool's budget reads it.
func TestPoolNarrowerRunGetsNoEnvironment(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	mark := fmt.Sprintf("operator-%d-mark", time.Now().UnixNano())
	t.Setenv("SABLINE_TEST_OPERATOR_MARK", mark)
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,env,ffi:os"),
		Confine: sabline.ConfineStrict, Workers: 1, ImportRoot: root, Receipts: t.TempDir(),
		Timeout: testkit.Bound(time.Minute)})
	src := sabline.Source("getenv.vel",
		[]byte(`print("RESULT", ffi.module("os").getenv("SABLINE_TEST_OPERATOR_MARK"))`+"\n"))
	narrower := budget.MustParse(root, "io,ffi:os")
	for _, tt := range []struct {
		name     string
		budget   *budget.Budget
		wantSeen bool
	}{
		{name: "a narrower run without env", budget: &narrower},
		{name: "the pool's budget (the control)", wantSeen: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), src, sabline.RunOptions{Budget: tt.budget})
			if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
				t.Fatalf("run: %v, %+v", err, res.Receipt.Outcome)
			}
			if seen := strings.Contains(string(res.Stdout), mark); seen != tt.wantSeen {
				t.Errorf("the operator's variable seen %v, want %v: %q", seen, tt.wantSeen, res.Stdout)
			}
		})
	}
}

// TestPoolKeepsNoDirectoryOfAnEarlierRun: the directories a pooled run
// walks its file effects from (one held open for each directory its
// budget grants) are closed as it ends, not left to the next collection
// of the worker's garbage: a run granted 500 directories left its worker
// holding 500 descriptors of them while it waited (read from
// /proc/PID/fd), and one granted 1,500 held them through the next
// caller's run there. The control: the run reads a file beneath its
// last grant, and the next run on the same worker runs.
func TestPoolKeepsNoDirectoryOfAnEarlierRun(t *testing.T) {
	const grants = 500
	root := importRoot(t)
	granted := filepath.Join(t.TempDir(), "g")
	items := []string{"io"}
	for i := range grants {
		dir := filepath.Join(granted, fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		items = append(items, "fs:read:"+dir)
	}
	last := filepath.Join(granted, fmt.Sprint(grants-1), "f.txt")
	if err := os.WriteFile(last, []byte("last"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:read:"+granted),
		Workers: 1, ImportRoot: root, Timeout: time.Minute, Receipts: t.TempDir(),
		Durability: receipt.None})
	pids := p.Workers()
	if len(pids) != 1 {
		t.Fatalf("workers %v, want one", pids)
	}
	held := func() (n int) {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pids[0]))
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range fds {
			to, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pids[0], fd.Name()))
			if strings.HasPrefix(to, granted+string(filepath.Separator)) {
				n++
			}
		}
		return n
	}
	many := budget.MustParse(root, strings.Join(items, ","))
	res, err := p.Run(context.Background(), sabline.Source("read.vel",
		fmt.Appendf(nil, "print(fs.read(%q))\n", last)), sabline.RunOptions{Budget: &many})
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK ||
		string(res.Stdout) != "last\n" {
		t.Fatalf("a run granted %d directories, reading beneath the last: %v, %+v, output %q",
			grants, err, res.Receipt.Outcome, res.Stdout)
	}
	if n := held(); n != 0 {
		t.Errorf("the worker holds %d descriptors of the %d directories the run it ended was "+
			"granted, want none", n, grants)
	}
	res, err = p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
	if err != nil || string(res.Stdout) != "hello\n" {
		t.Errorf("the next run: %v, output %q", err, res.Stdout)
	}
	if after := p.Workers(); !slices.Equal(pids, after) {
		t.Errorf("workers %v, then %v: the runs did not share their worker", pids, after)
	}
}
