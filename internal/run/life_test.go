package run

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// dieEarlyEnv makes the test binary, started as a worker, exit before it
// reads its request: a worker that dies before its first record. It
// reaches a worker whose budget grants env (TestMain).
const dieEarlyEnv = "SABLINE_TEST_WORKER_DIES_EARLY"

// lifeCase is one way a worker's life can end, tried against both users
// of the one life cycle (workerProc): the command line's run and a pool's.
type lifeCase struct {
	name  string
	prog  string
	allow []string // "DIR" in an item is the case's scratch directory
	// setup edits the run before it starts; dir is the scratch directory.
	setup func(t *testing.T, dir string, c *lifeRun)
	// started runs once the pool exists, before the run is sent (and
	// before Supervise for the command line).
	started func(t *testing.T, dir string)
	// during runs beside the run c, from outside it, until the run ends.
	during func(t *testing.T, dir string, c *lifeRun, ended <-chan struct{})
	linux  bool // the program makes raw system calls by their Linux names
	// inBuiltin: the program's blocking builtin marks its start (its
	// child writes startedFile). A run whose timeout came before the
	// worker reached it is skipped: the case is the stop of a worker
	// inside it.
	inBuiltin bool
	// wantCode and wantMsg (a regular expression) are what the receipt
	// says; wantPool, when set, is what a pool's says instead.
	wantCode codes.Code
	wantMsg  string
	wantPool *lifeWant
	wantPos  bool // the outcome says where the program was
	// wantLine, when set, is the line the outcome's position must be on:
	// the statement the program was running when it was stopped.
	wantLine int
	crash    bool // the crash report is kept beside the receipt
	// unstarted: no worker ran the program, and a pool's next run fares
	// no better.
	unstarted bool
	// wantEnd, when set, is how the receipt's observed part says the
	// worker ended ("exit N", "signal NAME"), in both modes: a worker
	// that ran this run alone (a pool's too, under a raw-call grant), so
	// the observed part has the processor time and resident set the
	// kernel counted for it as well.
	wantEnd string
	// wantReported are fields the receipt names as the worker's word,
	// and wantTestimony whether it marks them testimony.
	wantReported  []string
	wantTestimony bool
}

type lifeWant struct {
	code codes.Code
	msg  string
}

// lifeRun is how a case's run is asked for, in both modes.
type lifeRun struct {
	confine  core.Mode
	require  core.Level
	timeout  time.Duration
	memoryMB int
	cwd      string
	ctx      context.Context
	cancel   context.CancelFunc // ctx's, when a case cancels it
	// cancelled, when set, is where a case that cancels ctx notes when
	// it did: the run must return promptly after it (stopBound).
	cancelled *time.Time
}

// stopBound is how long a run may take to return once cancelled: a
// worker asked to stop answers or is killed within stopGrace, and the
// rest is the kill and the receipt's write: a second on a quiet machine,
// scaled by testkit.Bound on a loaded one.
// The receipt's flush to the device is the disk's time, under another
// process's writes hundreds of milliseconds: the command line's run
// does not wait for it, and the pool's here keeps it in the background.
const stopBound = time.Second

// lifeMode is one user of the life cycle.
type lifeMode struct {
	name string
	// run runs prog as c asks and returns the run's receipt, as returned
	// and as stored; then (pool) whether the next run on the same pool
	// ends ok.
	run func(t *testing.T, lc lifeCase, c lifeRun, prog, budgetDir, receipts string) (got, stored *receipt.Receipt, next error)
}

var lifeModes = []lifeMode{
	{name: "command line", run: func(t *testing.T, lc lifeCase, c lifeRun, prog, dir, rc string) (*receipt.Receipt, *receipt.Receipt, error) {
		if lc.started != nil {
			lc.started(t, dir)
		}
		var stdout, stderr bytes.Buffer
		rec := SuperviseContext(c.ctx, Run{
			Program: prog, Budget: lifeBudget(dir, lc.allow), Cwd: c.cwd, Confine: c.confine, Require: c.require,
			Timeout: c.timeout, MaxMemoryMB: c.memoryMB, Receipts: rc,
			Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr,
		})
		path, err := rec.Stored()
		if err != nil {
			t.Fatalf("the receipt was not stored: %v", err)
		}
		// The supervisor relays these streams: it counts what it relayed.
		o := rec.Observed
		if !lc.unstarted && (o.StdoutBytes == nil || *o.StdoutBytes != int64(stdout.Len()) || o.StderrBytes == nil || *o.StderrBytes != int64(stderr.Len())) {
			t.Errorf("observed output %v and %v bytes, want the %d and %d relayed", o.StdoutBytes, o.StderrBytes, stdout.Len(), stderr.Len())
		}
		stored, err := receipt.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return rec, stored, nil
	}},
	{name: "pool", run: func(t *testing.T, lc lifeCase, c lifeRun, prog, dir, rc string) (*receipt.Receipt, *receipt.Receipt, error) {
		var stderr bytes.Buffer
		p, err := StartPool(PoolConfig{
			Budget: lifeBudget(dir, lc.allow), Workers: 1, Confine: c.confine, Require: c.require, Timeout: c.timeout,
			MaxMemoryMB: c.memoryMB, ImportRoot: dir, Cwd: c.cwd, Receipts: rc, Stderr: &stderr, OnDemand: true,
			// The flush is the disk's time, not the stop's (stopBound); the
			// store is synced below before the receipt is read.
			Durability: receipt.Background,
		})
		if err != nil {
			t.Fatalf("StartPool: %v", err)
		}
		defer p.Close()
		if lc.started != nil {
			lc.started(t, dir)
		}
		res, _ := p.Run(c.ctx, PoolRun{Program: prog})
		if err := p.store.Sync(); err != nil {
			t.Fatal(err)
		}
		stored, err := receipt.Find(rc, res.Receipt.RunID)
		if err != nil {
			t.Fatalf("the receipt was not stored: %v", err)
		}
		next, err := p.Run(context.Background(), PoolRun{Program: "next.vel", Source: []byte("print(1)\n")})
		if err == nil && next.Receipt.Outcome.Status != receipt.StatusOK {
			err = codes.Errorf(next.Receipt.Outcome.Code, "%s", next.Receipt.Outcome.Message)
		}
		return res.Receipt, stored.Receipt, err
	}},
}

func lifeBudget(dir string, allow []string) budget.Budget {
	items := make([]string, len(allow))
	for i, a := range allow {
		items[i] = strings.ReplaceAll(a, "DIR", dir)
	}
	return budget.MustParse(dir, items...)
}

// raisesAFault has the worker's own thread sent SIGABRT with si_code 1,
// as a fault the kernel raised would carry, not SI_USER: a process may
// queue itself any code (rt_tgsigqueueinfo). Its siginfo is 128 bytes:
// si_signo, si_errno, si_code, then nothing.
var raisesAFault = `info = b"\x06\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00` +
	strings.Repeat(`\x00`, 116) + "\"\n" +
	`c.syscall("rt_tgsigqueueinfo", c.syscall("getpid").ret, c.syscall("gettid").ret, 6, info)` +
	"\n"

// pidFile is where a case's program writes its worker's pid.
const pidFile = "worker.pid"

// writesPid is a program's first lines: it writes its worker's pid into
// pidFile (raw system calls: ffi:ctypes, fs:write:DIR).
const writesPid = `c = ffi.module("ctypes")
fs.write("` + pidFile + `", str(c.syscall("getpid").ret))
`

// startedFile is where a case's program says it has started; marksStart
// is a program's first line, which writes it (fs:write:DIR).
const (
	startedFile = "started"
	marksStart  = `fs.write("` + startedFile + `", "yes")` + "\n"
)

// blocksMarked is a program that waits in a builtin (a child process
// that sleeps), the child marking the start first (startedFile).
const blocksMarked = `ffi.module("subprocess").run(["sh", "-c", "echo yes > ` + startedFile +
	`; exec sleep 30"])`

// spin keeps a program busy until it is stopped.
const spin = "for i in range(1000000000):\n    pass\n"

// TestTimeoutBeforeTheFirstStatement: a command-line run whose deadline
// passes while its worker starts (a timeout of 1 ms) ends E307 and its
// program never ran: the file its first statement writes is not there,
// and the worker says it stopped there, or, on a loaded machine, while
// it read the program (CI met that once). The control, the same program
// with a minute's timeout, writes it.
func TestTimeoutBeforeTheFirstStatement(t *testing.T) {
	tests := []struct {
		name        string
		timeout     time.Duration
		wantCode    codes.Code
		wantWritten bool
	}{
		{name: "a deadline that passes as the worker starts", timeout: time.Millisecond,
			wantCode: codes.E307},
		{name: "the control: a deadline far off", timeout: time.Minute, wantWritten: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			prog := filepath.Join(dir, "p.vel")
			if err := os.WriteFile(prog, []byte(marksStart+`print("ran")`), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			rec := SuperviseContext(context.Background(), Run{
				Program: prog, Budget: lifeBudget(dir, []string{"io", "fs:write:DIR"}), Cwd: dir,
				Confine: core.ModeOff, Timeout: tt.timeout, Receipts: t.TempDir(),
				Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr,
			})
			o := rec.Outcome
			t.Logf("%s %q at %q", o.Code, o.Message, o.Position)
			_, err = os.Stat(filepath.Join(dir, startedFile))
			if written := err == nil; o.Code != tt.wantCode || written != tt.wantWritten {
				t.Errorf("outcome %s, the first statement's file written %v; want %s and %v",
					o.Code, written, tt.wantCode, tt.wantWritten)
			}
			// Stopped at the first statement, or, where the deadline
			// passed sooner (a loaded machine), while the worker read the
			// program, which the message then says, with no position.
			before := o.Position == "" && strings.Contains(o.Message, "reading its program")
			if o.Code == codes.E307 && !strings.HasSuffix(o.Position, "p.vel:1:1") && !before {
				t.Errorf("stopped at %q (%q), want at the first statement, p.vel:1:1, or "+
					"while reading the program", o.Position, o.Message)
			}
		})
	}
}

// TestWorkerLifeCycle: each way a worker's life can end, once against
// the command line's run and once against a pool's, each run leaving its
// receipt, which says how it ended. After a run that ended badly a pool
// replaces its worker: the next run on it ends ok.
func TestWorkerLifeCycle(t *testing.T) {
	grows := "rows = []\nwhile True:\n    rows.append(\"x\" * 1000)\n"
	spike := "s = \"x\" * (512 * 1024 * 1024)\nprint(len(s))\n"
	memory := func(confined core.Mode) func(*testing.T, string, *lifeRun) {
		return func(_ *testing.T, _ string, c *lifeRun) { c.memoryMB, c.confine = 64, confined }
	}
	cases := []lifeCase{
		{name: "the worker fails to start", prog: `print("ran")`, allow: []string{"io"},
			setup:    func(_ *testing.T, dir string, c *lifeRun) { c.cwd = filepath.Join(dir, "missing") },
			wantCode: codes.E310, wantMsg: `start the worker: .*no such file or directory`, unstarted: true},
		{name: "the worker dies before its first record", prog: `print("ran")`, allow: []string{"io", "env"},
			setup:    func(t *testing.T, _ string, _ *lifeRun) { t.Setenv(dieEarlyEnv, "1") },
			wantCode: codes.E310, wantMsg: `exited with status 3 before it began`, unstarted: true},
		{name: "its first record says it is below the required level", prog: `print("ran")`, allow: []string{"io", "fs:write:DIR/gone/out"},
			setup: func(t *testing.T, dir string, c *lifeRun) {
				c.confine, c.require = core.ModeDefault, core.Full
				if err := os.MkdirAll(filepath.Join(dir, "gone", "out"), 0o755); err != nil {
					t.Fatal(err)
				}
				p := core.OSPolicy(lifeBudget(dir, []string{"io", "fs:write:DIR/gone/out"}), core.Options{})
				if l := confine.OnThisMachine(p).Level; l != core.Full {
					t.Skipf("this machine holds the budget at %s even with its directory: nothing to fall below", l)
				}
			},
			// Gone by the time the worker applies its policy.
			started:  func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "gone")) },
			wantCode: codes.E326, wantMsg: `required level full: .* partial`, unstarted: true},
		{name: "timeout: the worker answers the stop request", prog: marksStart + spin, allow: []string{"io", "fs:write:DIR"},
			setup:    func(_ *testing.T, _ string, c *lifeRun) { c.timeout = time.Second },
			wantCode: codes.E307, wantMsg: `took longer than its timeout 1s and was stopped`, wantPos: true,
			wantLine: 2},
		{name: "timeout: the worker does not answer", prog: blocksMarked, allow: []string{"io", "ffi:subprocess"},
			setup:     func(_ *testing.T, _ string, c *lifeRun) { c.timeout = time.Second },
			inBuiltin: true,
			wantCode:  codes.E307, wantMsg: `took longer than its timeout 1s and was stopped; ` +
				`the worker did not answer the stop within 500ms and was killed, so where the program was is not known`},
		{name: "the context is cancelled", prog: marksStart + spin, allow: []string{"io", "fs:write:DIR"},
			setup: func(t *testing.T, _ string, c *lifeRun) {
				ctx, cancel := context.WithCancel(context.Background())
				t.Cleanup(cancel)
				c.ctx, c.cancel, c.cancelled = ctx, cancel, new(time.Time)
			},
			// Cancelled once the program spins, past its mark.
			during: func(t *testing.T, dir string, c *lifeRun, ended <-chan struct{}) {
				if waitSpinning(t, dir, ended) {
					*c.cancelled = time.Now()
					c.cancel()
				}
			},
			wantCode: codes.E307, wantMsg: `cancelled and stopped: context canceled`, wantPos: true,
			wantLine: 2},
		// The mark is made by the builtin's own child, so the cancel comes
		// while the worker waits in the builtin, never between statements.
		{name: "the context is cancelled in a blocked builtin", prog: blocksMarked,
			allow: []string{"io", "ffi:subprocess"},
			setup: func(t *testing.T, _ string, c *lifeRun) {
				ctx, cancel := context.WithCancel(context.Background())
				t.Cleanup(cancel)
				c.ctx, c.cancel, c.cancelled = ctx, cancel, new(time.Time)
			},
			during: func(t *testing.T, dir string, c *lifeRun, ended <-chan struct{}) {
				if waitFile(t, filepath.Join(dir, startedFile), ended) != nil {
					*c.cancelled = time.Now()
					c.cancel()
				}
			},
			wantCode: codes.E307, wantMsg: `cancelled and stopped: context canceled; the worker did not answer`},
		{name: "killed by a signal from outside", prog: writesPid + spin, allow: []string{"io", "fs:write:DIR", "ffi:ctypes"}, linux: true,
			during: func(t *testing.T, dir string, _ *lifeRun, ended <-chan struct{}) {
				pid := waitPid(t, dir, ended)
				if pid <= 1 {
					return // never a signal to a process this test did not start
				}
				p, err := os.FindProcess(pid)
				if err == nil {
					err = p.Kill()
				}
				if err != nil {
					t.Errorf("kill the worker: %v", err)
				}
			},
			wantCode: codes.E309, wantMsg: `killed by signal 9`, wantEnd: "signal killed"},
		// A signal the worker raises itself with a fault's si_code (1, as
		// the kernel's own), which its runtime reports and exits 2: a
		// crash. One sent with kill (si_code SI_USER) is a signal from
		// outside, E309 (TestWorkerSentASignal).
		{name: "a crash with its report", prog: writesPid + raisesAFault + spin,
			allow: []string{"io", "fs:write:DIR", "ffi:ctypes"}, linux: true,
			wantCode: codes.E310, wantMsg: `exited with status 2 without a result: "SIGABRT: abort"; the worker's crash report is in `, crash: true,
			wantEnd: "exit 2"},
		// Written until past the bound: one write of a pipe can be cut
		// short by a signal (the runtime's preemption), so the program
		// writes again until its bytes are past it, or the pipe is gone.
		{name: "a result past its bound", prog: "c = ffi.module(\"ctypes\")\nb = \"x\" * (1024 * 1024)\n" +
			"n = 0\nfor i in range(64):\n    r = c.syscall(\"write\", 4, b, len(b))\n" +
			"    if r.errno:\n        break\n    n += r.ret\n    if n > 4 * 1024 * 1024:\n        break\n",
			allow: []string{"io", "ffi:ctypes"}, linux: true,
			wantCode: codes.E310, wantMsg: `more than [0-9]+ bytes on its result pipe`},
		{name: "a forged result record", prog: "c = ffi.module(\"ctypes\")\nr = '{\"outcome\":{\"status\":\"root\",\"exit_status\":0}}\\n'\n" +
			"c.syscall(\"write\", 4, r, len(r))\nfail(\"the real end\")\n",
			allow: []string{"io", "ffi:ctypes"}, linux: true,
			// The command line takes nothing after a record that fails
			// its check; a pool takes its worker's own last result.
			wantCode: codes.E310, wantMsg: `not one it could have sent: unknown status "root"`,
			wantPool: &lifeWant{code: codes.E305, msg: `fail: the real end`}},
		{name: "a forged final record", prog: forgesFinal, allow: []string{"io", "ffi:ctypes"}, linux: true,
			// The outcome and effects are the forger's; how the worker
			// ended, its level and its digest are what the supervisor saw.
			wantMsg: `^$`, wantEnd: "exit 0", wantReported: []string{receipt.FieldOutcome, receipt.FieldEffects}, wantTestimony: true},
		{name: "a forged final record, confined (strict)", prog: forgesFinal, allow: []string{"io", "ffi:ctypes"}, linux: true,
			setup:   func(_ *testing.T, _ string, c *lifeRun) { c.confine = core.ModeStrict },
			wantMsg: `^$`, wantEnd: "exit 0", wantReported: []string{receipt.FieldOutcome, receipt.FieldEffects}, wantTestimony: true},
		// A pool once took the forger's last line for the run's end
		// however its worker then ended: killed (ok, beside an observed
		// SIGKILL), with a status of its own, or not at all (its result
		// pipe closed, the program still running, and killed by the pool
		// 2 s on). Now both take how the worker ended over its word.
		{name: "a forged final record, then killed, confined (strict)", prog: forgesFinalThen("c.syscall(\"kill\", c.syscall(\"getpid\").ret, 9)\n"),
			allow: []string{"io", "ffi:ctypes"}, linux: true,
			setup:    func(_ *testing.T, _ string, c *lifeRun) { c.confine = core.ModeStrict },
			wantCode: codes.E309, wantMsg: `killed by signal 9`, wantEnd: "signal killed",
			wantReported: []string{receipt.FieldEffects}, wantTestimony: true},
		{name: "a forged final record, then a status of its own, confined (strict)", prog: forgesFinalThen("c.syscall(\"exit_group\", 3)\n"),
			allow: []string{"io", "ffi:ctypes"}, linux: true,
			setup:    func(_ *testing.T, _ string, c *lifeRun) { c.confine = core.ModeStrict },
			wantCode: codes.E310, wantMsg: `result says exit status 0, but it exited with 3`, wantEnd: "exit 3",
			wantReported: []string{receipt.FieldEffects}, wantTestimony: true},
		// The command line reads its worker's records to its exit, and
		// stops it at its deadline; a pool stops a worker that has not
		// exited 2 s after its result pipe ended.
		{name: "a forged final record, the pipe closed, then running on, confined (strict)", prog: forgesFinalThen("c.syscall(\"close\", 4)\n" + spin),
			allow: []string{"io", "ffi:ctypes"}, linux: true,
			setup:    func(_ *testing.T, _ string, c *lifeRun) { c.confine, c.timeout = core.ModeStrict, 5*time.Second },
			wantCode: codes.E307, wantMsg: `took longer than its timeout 5s and was stopped`,
			wantPool: &lifeWant{code: codes.E310, msg: `result pipe ended and the worker ran on: it was stopped 2s later`}},
		// Past the lines a pool reads of a run, its worker is stopped: a
		// line not read could be the one the worker ended after.
		{name: "forged final records past the bound on lines, then killed, confined (strict)",
			prog: strings.Replace(forgesFinalThen("c.syscall(\"kill\", c.syscall(\"getpid\").ret, 9)\n"),
				"c.syscall(\"write\", 4, r, len(r))\n", "for i in range(70):\n    c.syscall(\"write\", 4, r, len(r))\n", 1),
			allow: []string{"io", "ffi:ctypes"}, linux: true,
			setup:    func(_ *testing.T, _ string, c *lifeRun) { c.confine = core.ModeStrict },
			wantCode: codes.E309, wantMsg: `killed by signal 9`, wantEnd: "signal killed",
			wantPool: &lifeWant{code: codes.E310, msg: `more than 64 lines on its result pipe`}},
		{name: "a forged final record: the control, without the raw-call grant", prog: forgesFinal, allow: []string{"io"},
			wantCode: codes.E302, wantMsg: `ffi module ctypes: not granted`, wantReported: []string{receipt.FieldOutcome, receipt.FieldEffects}},
		// The crash file is the worker's descriptor 2, in its temporary
		// directory: a program that makes raw system calls writes what
		// the Go runtime writes when the address-space limit stops an
		// allocation, or removes the file, and exits without a result.
		// What the outcome draws from that file is the worker's word.
		{name: "a forged crash report, confined (strict)", prog: forgesCrash, allow: []string{"io", "ffi:ctypes"}, linux: true,
			setup:    func(_ *testing.T, _ string, c *lifeRun) { c.memoryMB, c.confine = 64, core.ModeStrict },
			wantCode: codes.E308, wantMsg: `address-space limit stopped an allocation`, crash: true, wantEnd: "exit 2",
			wantReported: []string{receipt.FieldOutcome}, wantTestimony: true},
		{name: "the crash file removed, confined (strict)", prog: "c = ffi.module(\"ctypes\")\ntmp = ffi.module(\"os\").getenv(\"TMPDIR\")\n" +
			"c.syscall(\"unlinkat\", -100, tmp + \"/worker-crash.txt\", 0)\nc.syscall(\"exit_group\", 1)\n",
			allow: []string{"io", "ffi:ctypes", "ffi:os"}, linux: true,
			setup:    func(_ *testing.T, _ string, c *lifeRun) { c.confine = core.ModeStrict },
			wantCode: codes.E310, wantMsg: `exited with status 1`, wantEnd: "exit 1",
			wantReported: []string{receipt.FieldOutcome}, wantTestimony: true},
		{name: "the temporary directory past its bound", prog: "c = ffi.module(\"ctypes\")\ntmp = ffi.module(\"os\").getenv(\"TMPDIR\")\n" +
			"for i in range(10050):\n    c.syscall(\"mkdirat\", -100, tmp + \"/d\" + str(i), 448)\n" + spin,
			allow: []string{"io", "ffi:ctypes", "ffi:os"}, linux: true,
			wantCode: codes.E330, wantMsg: `more than 10000 entries were made in the run.s private temporary directory`},
		{name: "out of memory: a spike (unconfined)", prog: spike, allow: []string{"io"}, setup: memory(core.ModeOff),
			wantCode: codes.E308, wantMsg: `memory limit of 64 MB`},
		{name: "out of memory: a spike (confined)", prog: spike, allow: []string{"io"}, setup: memory(core.ModeDefault),
			wantCode: codes.E308, wantMsg: `memory limit of 64 MB`},
		{name: "out of memory: slow growth (unconfined)", prog: grows, allow: []string{"io"}, setup: memory(core.ModeOff),
			wantCode: codes.E308, wantMsg: `the run used [0-9]+ MB, over its memory limit of 64 MB`},
		{name: "out of memory: slow growth (confined)", prog: grows, allow: []string{"io"}, setup: memory(core.ModeDefault),
			wantCode: codes.E308, wantMsg: `the run used [0-9]+ MB, over its memory limit of 64 MB`},
	}
	for _, lc := range cases {
		for _, mode := range lifeModes {
			t.Run(lc.name+"/"+mode.name, func(t *testing.T) {
				if lc.linux && goruntime.GOOS != "linux" {
					t.Skip("the program makes raw system calls by their Linux names")
				}
				dir, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				prog := filepath.Join(dir, "p.vel")
				if err := os.WriteFile(prog, []byte(lc.prog), 0o600); err != nil {
					t.Fatal(err)
				}
				c := lifeRun{confine: core.ModeOff, timeout: time.Minute, cwd: dir, ctx: context.Background()}
				if lc.setup != nil {
					lc.setup(t, dir, &c)
				}
				ended, beside := make(chan struct{}), make(chan struct{})
				go func() {
					defer close(beside)
					if lc.during != nil {
						lc.during(t, dir, &c, ended)
					}
				}()
				t0 := time.Now()
				// The receipts lie outside the scratch directory, which a
				// grant may name: no grant reaches a directory that holds them.
				got, stored, next := mode.run(t, lc, c, prog, dir, t.TempDir())
				returned := time.Now()
				close(ended)
				<-beside
				if _, err := os.Stat(filepath.Join(dir, startedFile)); lc.inBuiltin && err != nil {
					t.Skipf("the worker had not reached the builtin when its run was stopped (%v): "+
						"this machine is too loaded for the case's timeout", err)
				}
				want := lifeWant{lc.wantCode, lc.wantMsg}
				if mode.name == "pool" && lc.wantPool != nil {
					want = *lc.wantPool
				}
				o := got.Outcome
				t.Logf("receipt %s: %s %s %q (exit %d), after %s", stored.RunID, o.Status, o.Code, o.Message, o.ExitStatus, time.Since(t0).Round(time.Millisecond))
				if o.Code != want.code || !regexp.MustCompile(want.msg).MatchString(o.Message) {
					t.Errorf("outcome %s %q, want %s matching %q", o.Code, o.Message, want.code, want.msg)
				}
				if s := stored.Outcome; s.Code != o.Code || s.Message != o.Message || s.Status != o.Status {
					t.Errorf("the stored receipt says %s %q, the run %s %q", s.Code, s.Message, o.Code, o.Message)
				}
				if c.cancelled != nil && !c.cancelled.IsZero() {
					// A loaded machine gives the worker's answer, and the
					// kill past stopGrace, their cores later.
					if took, bound := returned.Sub(*c.cancelled), testkit.Bound(stopBound); took > bound {
						t.Errorf("the run returned %v after it was cancelled, want at most %v", took, bound)
					} else {
						t.Logf("returned %v after it was cancelled", took.Round(time.Millisecond))
					}
				}
				if lc.wantLine > 0 && !strings.Contains(o.Position, "p.vel:"+strconv.Itoa(lc.wantLine)+":") {
					t.Errorf("position %q, want on line %d, the statement the program was running", o.Position, lc.wantLine)
				}
				if lc.wantPos && !strings.Contains(o.Position, "p.vel:") {
					t.Errorf("position %q, want where the program was", o.Position)
					if _, err := os.Stat(filepath.Join(dir, startedFile)); err != nil {
						t.Logf("the program had not started when its run was stopped (%v): this machine is too loaded for the timeout", err)
					}
				}
				if lc.crash {
					if _, err := os.Stat(stored.CrashReport); stored.CrashReport == "" || err != nil {
						t.Errorf("crash report %q: %v, want it kept beside the receipt", stored.CrashReport, err)
					}
				}
				if lc.wantEnd != "" && observedEnd(stored.Observed) != lc.wantEnd {
					t.Errorf("observed end %q, want %q", observedEnd(stored.Observed), lc.wantEnd)
				}
				ob := stored.Observed
				if lc.wantEnd != "" && (ob.MaxRSSKB <= 0 || ob.UserMS+ob.SystemMS <= 0) {
					t.Errorf("observed %g ms of user and %g of system time, a resident set "+
						"of %d KiB: want the kernel's count of a worker that ran this run alone",
						ob.UserMS, ob.SystemMS, ob.MaxRSSKB)
				}
				wantParts(t, stored, lc, prog)
				if next != nil && !lc.unstarted {
					t.Errorf("the pool's next run: %v, want it run on a fresh worker", next)
				}
			})
		}
	}
}

// forgesFinal prints, then writes on its result pipe (descriptor 4) a
// final record of its own, claiming to have run confined (forgedReason)
// and used nothing, then the same as a pool's job result (which has no
// confinement: the pool refuses a line with fields a result has not),
// and exits 0 before its worker can send its own.
const forgesFinal = `print("forging")
c = ffi.module("ctypes")
r = '{"outcome":{"status":"ok","exit_status":0},"effects":[],"confinement":{"level":"full","reason":"` + forgedReason + `","layers":["seccomp"]},"files":[{"path":"/forged.vel","sha256":"00"}]}\n'
r += '{"outcome":{"status":"ok","exit_status":0},"effects":[],"files":[{"path":"/forged.vel","sha256":"00"}]}\n'
c.syscall("write", 4, r, len(r))
c.syscall("exit_group", 0)
`

// forgesFinalThen is forgesFinal ending with then instead of its exit.
func forgesFinalThen(then string) string {
	return strings.Replace(forgesFinal, "c.syscall(\"exit_group\", 0)\n", then, 1)
}

// forgesCrash writes on its worker's descriptor 2, the crash file, what
// the Go runtime writes when an allocation fails, and exits 2 as a crashed
// worker does, without a result.
const forgesCrash = `c = ffi.module("ctypes")
t = "fatal error: out of memory\n\nruntime stack:\nruntime.throw({0x0, 0x0})\n"
c.syscall("write", 2, t, len(t))
c.syscall("exit_group", 2)
`

// forgedReason is the confinement reason forgesFinal's record claims.
const forgedReason = "forged"

// observedEnd is how o says the worker ended: "exit N", "signal NAME",
// or "" when it does not say.
func observedEnd(o receipt.Observed) string {
	switch {
	case o.Signal != "":
		return "signal " + o.Signal
	case o.ExitStatus != nil:
		return "exit " + strconv.Itoa(*o.ExitStatus)
	}
	return ""
}

// wantParts checks that the stored receipt tells its two parts apart and,
// where lc names the fields the worker reported, that the receipt names
// them, marks them testimony or not as lc wants, and keeps what no record
// after the program's first statement can change: its level (none without
// confinement, whatever a forged record claims) and its digest.
func wantParts(t *testing.T, stored *receipt.Receipt, lc lifeCase, prog string) {
	t.Helper()
	if stored.Older() {
		t.Fatal("the receipt does not say which fields the worker reported")
	}
	if lc.wantReported == nil {
		return
	}
	for _, f := range lc.wantReported {
		if !slices.Contains(stored.Reported.Fields, f) {
			t.Errorf("reported fields %q, want %s among them", stored.Reported.Fields, f)
		}
	}
	if got := stored.Testimony() != ""; got != lc.wantTestimony {
		t.Errorf("testimony %q, want it marked: %v", stored.Testimony(), lc.wantTestimony)
	}
	if p := stored.RunParameters; p.ConfinementReason == forgedReason || (p.Confine == core.ModeOff && p.Confinement != core.None) {
		t.Errorf("level %s (%s), want the level the worker reported before the program ran", p.Confinement, p.ConfinementReason)
	}
	src, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(src); stored.Program.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("program digest %s, want the digest of the bytes the supervisor read", stored.Program.SHA256)
	}
}

// waitPid waits for a program to write its worker's pid into pidFile in
// dir, until its run has ended.
func waitPid(t *testing.T, dir string, ended <-chan struct{}) int {
	b := waitFile(t, filepath.Join(dir, pidFile), ended)
	pid, err := strconv.Atoi(string(b))
	if b != nil && err != nil {
		t.Errorf("pid %q: %v", b, err)
	}
	return pid
}

// waitSpinning waits for a program that marks its start and then spins
// (marksStart, spin) to be spinning, until its run has ended: once the
// mark is there, until a worker of this process has used two clock ticks
// of processor time more than when it was first seen after the mark. The
// statement that made the mark takes a fraction of a tick, so a stop then
// finds the program on the spinning line; at the mark alone it may still
// be in the write that made it. It reports whether the program spins;
// where there is no /proc, it returns at the mark.
func waitSpinning(t *testing.T, dir string, ended <-chan struct{}) bool {
	if waitFile(t, filepath.Join(dir, startedFile), ended) == nil {
		return false
	}
	if goruntime.GOOS != "linux" {
		return true
	}
	marked, seen := time.Now(), map[int]int64{}
	for {
		for _, pid := range proc.Workers(os.Getpid()) {
			ticks, err := proc.CPUTicks(pid)
			if first, ok := seen[pid]; err == nil && !ok {
				seen[pid] = ticks
			} else if err == nil && ticks-first >= 2 {
				t.Logf("worker %d spinning %v after the mark", pid,
					time.Since(marked).Round(time.Millisecond))
				return true
			}
		}
		select {
		case <-ended:
			t.Errorf("the run ended before its program spun")
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// waitFile waits for a file a program writes, until its run has ended,
// and returns its bytes; nil when the run ended first.
func waitFile(t *testing.T, path string, ended <-chan struct{}) []byte {
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return b
		}
		select {
		case <-ended:
			t.Errorf("the run ended before its program wrote %s", filepath.Base(path))
			return nil
		case <-time.After(10 * time.Millisecond):
		}
	}
}
