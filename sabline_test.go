package sabline_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// TestMain hands over first, as every program that embeds Sabline does:
// the workers these tests start are this test binary, started again.
// A run that names no receipts directory keeps its receipt in the default
// store, which the tests point at a directory of their own.
func TestMain(m *testing.M) {
	if err := testkit.StackedExec(); err != nil {
		fmt.Fprintln(os.Stderr, "a process held by stacked Landlock domains:", err)
		os.Exit(1)
	}
	sabline.HandOver()
	os.Exit(testkit.RunApart(m)) // its stores, cache and runs apart from the user's
}

const hello = "print(\"hello\")\n"

// workerStatus reads the fields of /proc/PID/status of the one worker
// this process has started and that is still running, once done says
// the worker got where the test waits for it (or after two seconds).
func workerStatus(t *testing.T, done func(map[string]string) bool) map[string]string {
	t.Helper()
	for i := range 200 {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if !strings.Contains(string(cmdline), "__sabline_worker") {
				continue
			}
			status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
			if err != nil {
				continue
			}
			fields := map[string]string{"pid": strconv.Itoa(pid)}
			for _, line := range strings.Split(string(status), "\n") {
				if k, v, ok := strings.Cut(line, ":"); ok {
					fields[k] = strings.TrimSpace(v)
				}
			}
			if fields["PPid"] == strconv.Itoa(os.Getpid()) && (done(fields) || i == 199) {
				return fields
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no worker of this process found in /proc")
	return nil
}

// TestRunWithTimeoutIsConfined: a run with a timeout is in a worker the
// kernel holds (seen from outside, in /proc), and its receipt says full;
// the same run without limits is in this process, level none.
func TestRunWithTimeoutIsConfined(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the worker's seccomp and no_new_privs are read from Linux's /proc")
	}
	if m := confine.Probe(); m.LandlockABI < 1 {
		t.Skipf("this kernel has no Landlock (%+v): the level cannot be full", m)
	}
	dir := t.TempDir()
	b := budget.MustParse(dir, "io")
	stdinR, stdinW := io.Pipe()
	out := &testkit.LockedBuffer{}
	done := make(chan *sabline.Result, 1)
	go func() {
		res, err := sabline.Run(context.Background(), sabline.Source(filepath.Join(dir, "wait.vel"), []byte("print(io.read_line())\n")),
			sabline.Options{Budget: b, Timeout: 20 * time.Second, Stdin: stdinR, Stdout: out, Cwd: dir})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// The worker confines itself, then blocks reading its input: wait
	// for the filter, then read both fields.
	st := workerStatus(t, func(f map[string]string) bool { return f["Seccomp"] == "2" })
	if st["Seccomp"] != "2" || st["NoNewPrivs"] != "1" {
		t.Errorf("worker %s: Seccomp %q, NoNewPrivs %q; want 2 and 1", st["pid"], st["Seccomp"], st["NoNewPrivs"])
	}
	fmt.Fprintln(stdinW, "went on")
	res := <-done
	if res == nil {
		t.FailNow()
	}
	if got := res.Receipt.RunParameters.Confinement; got != core.Full {
		t.Errorf("level %s (%s), want full", got, res.Receipt.RunParameters.ConfinementReason)
	}
	if out.String() != "went on\n" || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Errorf("output %q, outcome %+v; want the line read back, ok", out.String(), res.Receipt.Outcome)
	}

	// The positive control of the level: the same program asked to run
	// in this process runs here, unconfined, and says so.
	res, err := sabline.Run(context.Background(), sabline.Source(filepath.Join(dir, "hello.vel"), []byte(hello)), sabline.Options{Budget: b, Cwd: dir, InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	if rp := res.Receipt.RunParameters; rp.Confinement != core.None || rp.ConfinementReason != sabline.InProcessReason {
		t.Errorf("in-process level %s (%s), want none (%s)", rp.Confinement, rp.ConfinementReason, sabline.InProcessReason)
	}
	if string(res.Stdout) != "hello\n" {
		t.Errorf("in-process output %q, want hello", res.Stdout)
	}
}

// TestRunRefusals: each setting that cannot be held is refused before the
// program's first statement, with its code and a receipt, and the program
// prints nothing; each has its control that runs.
func TestRunRefusals(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	prog := sabline.Source(filepath.Join(dir, "p.vel"), []byte("fs.write(\""+marker+"\", \"x\")\n"))
	b := budget.MustParse(dir, "fs:write:"+dir)
	tests := []struct {
		name     string
		opts     sabline.Options
		wantCode codes.Code // "" for a run that runs
	}{
		{name: "a required level in this process", opts: sabline.Options{Require: core.Partial, InProcess: true}, wantCode: codes.E326},
		{name: "a timeout in this process", opts: sabline.Options{Timeout: time.Minute, InProcess: true}, wantCode: codes.E301},
		{name: "a memory limit in this process", opts: sabline.Options{MaxMemoryMB: 64, InProcess: true}, wantCode: codes.E301},
		{name: "strict in this process", opts: sabline.Options{Confine: sabline.ConfineStrict, InProcess: true}, wantCode: codes.E301},
		{name: "in this process, confine off", opts: sabline.Options{Confine: sabline.ConfineOff, InProcess: true}},
		{name: "strict in a worker", opts: sabline.Options{Confine: sabline.ConfineStrict}},
		{name: "no confinement and a required level", opts: sabline.Options{Confine: sabline.ConfineOff, Require: core.Partial, Timeout: time.Minute}, wantCode: codes.E301},
		{name: "an unknown setting", opts: sabline.Options{Confine: "loose"}, wantCode: codes.E301},
		{name: "an unknown durability", opts: sabline.Options{Durability: "eventually"}, wantCode: codes.E301},
		{name: "an unknown durability in this process", opts: sabline.Options{Durability: "eventually", InProcess: true}, wantCode: codes.E301},
		{name: "in this process, nothing required", opts: sabline.Options{InProcess: true}},
		{name: "in this process, none required", opts: sabline.Options{Require: core.None, InProcess: true}},
		{name: "in this process, kept with none", opts: sabline.Options{InProcess: true, Durability: receipt.None}},
		{name: "in a worker, kept in the background", opts: sabline.Options{Durability: receipt.Background}},
		{name: "the zero options: a worker", opts: sabline.Options{}},
		{name: "a required level in a worker", opts: sabline.Options{Require: core.Partial}},
		{name: "no confinement, nothing required", opts: sabline.Options{Confine: sabline.ConfineOff, Timeout: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			rc := t.TempDir()
			tt.opts.Budget, tt.opts.Cwd, tt.opts.Receipts = b, dir, rc
			res, err := sabline.Run(context.Background(), prog, tt.opts)
			_, statErr := os.Stat(marker)
			if tt.wantCode == "" {
				if err != nil || statErr != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
					t.Fatalf("err %v, marker %v, outcome %+v: want the program run", err, statErr, res.Receipt.Outcome)
				}
				// The receipt kept says how it was kept: as asked, or the
				// default in a worker's file and the journal alike.
				want := cmp.Or(tt.opts.Durability, receipt.Flush)
				if got, err := receipt.Find(rc, res.Receipt.RunID); err != nil ||
					got.RunParameters.Durability != want {
					t.Errorf("the stored receipt (%v) says durability %q, want %q", err,
						got.RunParameters.Durability, want)
				}
				return
			}
			if codes.CodeOf(err) != tt.wantCode || res.Receipt.Outcome.Code != tt.wantCode {
				t.Errorf("error %v, receipt code %q; want %s", err, res.Receipt.Outcome.Code, tt.wantCode)
			}
			if statErr == nil {
				t.Error("the program ran: its file was written")
			}
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 || runs[0].Outcome.Code != tt.wantCode {
				t.Errorf("stored receipts %d (%v), want one saying %s", len(runs), err, tt.wantCode)
			}
		})
	}
}

// TestRunCancelled: cancelling the context, once the program is running
// (it printed), ends the run as a timeout does, in this process and in a
// worker, with its receipt, within a second of the cancel, and with the
// position the program had reached: its loop, or the print it was
// returning from (never 1:1, where it was not).
func TestRunCancelled(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "loop.vel")
	loop := sabline.Source(name, []byte("print('go')\nwhile True:\n    x = 1\n"))
	for _, tt := range []struct {
		name      string
		inProcess bool
	}{
		{name: "in this process", inProcess: true},
		{name: "in a worker"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var cancelled time.Time
			out := &onWrite{do: func() { cancelled = time.Now(); cancel() }}
			res, err := sabline.Run(ctx, loop, sabline.Options{Cwd: dir, Budget: budget.MustParse(dir, "io"),
				InProcess: tt.inProcess, Stdout: out})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(cancelled)
			o := res.Receipt.Outcome
			if o.Code != codes.E307 || !strings.Contains(o.Message, "cancelled") {
				t.Errorf("outcome %+v, want E307 saying cancelled", o)
			}
			if !wherePrinted(o.Position, name) {
				t.Errorf("position %q, want the loop's (line 2 or 3) or the print's (1:6)", o.Position)
			}
			if cancelled.IsZero() || took > time.Second {
				t.Errorf("the run returned %v after it was cancelled, want within a second", took)
			}
			t.Logf("returned %v after the cancel, at %s", took.Round(time.Millisecond), o.Position)
		})
	}
}

// TestRunContextDoneBefore: a context already done when Run is called
// (cancelled, or its deadline past) runs none of the program's
// statements, in this process and in a worker: the file its first
// statement writes is not there, seen from outside, and Run returns the
// refusal, E307, which the receipt, kept, says too, as a pool's run
// cancelled before a worker took it does. The control is the same run
// under a live context, which writes the file. In this process the stop
// once came from context.AfterFunc's goroutine, after the first
// statements had run: the file was written in 27 of 30 runs, and Run
// said nothing.
func TestRunContextDoneBefore(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	prog := sabline.Source(filepath.Join(dir, "p.vel"),
		[]byte("fs.write(\""+marker+"\", \"x\")\nprint('ran')\n"))
	b := budget.MustParse(dir, "io,fs:write:"+dir)
	done := map[string]func() (context.Context, context.CancelFunc){
		"cancelled": func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		},
		"past its deadline": func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		},
		"live (the control)": func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		},
	}
	for _, inProcess := range []bool{true, false} {
		runs := 2 // a worker's start is some 50 ms
		if inProcess {
			runs = 20 // the race it had was lost most times, not each
		}
		for name, makeCtx := range done {
			t.Run(fmt.Sprintf("%s, in process %v", name, inProcess), func(t *testing.T) {
				live := strings.HasPrefix(name, "live")
				for i := range runs {
					os.Remove(marker)
					rc := t.TempDir()
					ctx, cancel := makeCtx()
					res, err := sabline.Run(ctx, prog, sabline.Options{Budget: b, Cwd: dir,
						Receipts: rc, InProcess: inProcess})
					cancel()
					_, statErr := os.Stat(marker)
					if live {
						if err != nil || statErr != nil ||
							res.Receipt.Outcome.Status != receipt.StatusOK {
							t.Fatalf("run %d: marker %v, outcome %+v: want it written, ok", i,
								statErr, res.Receipt.Outcome)
						}
						continue
					}
					if statErr == nil {
						t.Fatalf("run %d of %d: the program wrote its file under a context done "+
							"before Run", i+1, runs)
					}
					if codes.CodeOf(err) != codes.E307 {
						t.Fatalf("run %d: error %v, want the refusal, E307", i, err)
					}
					stored, err := receipt.Find(rc, res.Receipt.RunID)
					if err != nil || stored.Outcome.Code != codes.E307 {
						t.Fatalf("run %d: stored receipt (%v) %+v, want E307", i, err, stored)
					}
				}
			})
		}
	}
}

// TestRunRelativeCwd: Options.Cwd relative to the caller's working
// directory names the same directory as its absolute form, in a worker
// and in this process: the program named relative to it runs, and its
// receipt names it by its absolute path. Before, a worker's run joined
// the relative directory to the program's path twice and was refused
// (E316, "../../tmp/tmp/..."), and an in-process run's receipt named the
// program by a relative path. The control is the absolute directory.
func TestRunRelativeCwd(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.vel"), []byte(hello), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		t.Fatal(err)
	}
	b := budget.MustParse(dir, "io")
	for _, cwd := range []string{dir, rel} {
		for _, inProcess := range []bool{false, true} {
			res, err := sabline.Run(context.Background(), sabline.File("hello.vel"),
				sabline.Options{Budget: b, Cwd: cwd, InProcess: inProcess, Receipts: t.TempDir()})
			if err != nil || string(res.Stdout) != "hello\n" {
				t.Errorf("Cwd %q, in process %v: %v, %q; want hello", cwd, inProcess, err, res.Stdout)
				continue
			}
			if got, want := res.Receipt.Program.Path, filepath.Join(dir, "hello.vel"); got != want {
				t.Errorf("Cwd %q, in process %v: the receipt names %q, want %q", cwd, inProcess,
					got, want)
			}
		}
	}
}

// TestRunRefusesUnregisteredModules: a budget that grants a host module
// this binary has not registered (ffi:jsno, a typo of json) is refused
// (E301) before anything runs, by Run in a worker and in this process,
// with its receipt, and by NewPool, as the command line's --allow is.
// Before, the run went ahead at level none, "the operating system layer
// is off for this run", for a module the program could not even load. The
// control is the module spelled right, whose run is held at full.
func TestRunRefusesUnregisteredModules(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.vel"), []byte(hello), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		allow string
		want  codes.Code
	}{{allow: "io,ffi:jsno", want: codes.E301}, {allow: "io,ffi:json"}} {
		b := budget.MustParse(dir, tt.allow)
		for _, inProcess := range []bool{false, true} {
			rc := t.TempDir()
			res, err := sabline.Run(context.Background(), sabline.File(filepath.Join(dir, "hello.vel")),
				sabline.Options{Budget: b, InProcess: inProcess, Receipts: rc})
			if codes.CodeOf(err) != tt.want {
				t.Errorf("%s, in process %v: %v, want %q", tt.allow, inProcess, err, tt.want)
				continue
			}
			stored, ferr := receipt.Find(rc, res.Receipt.RunID)
			if ferr != nil || stored.Outcome.Code != tt.want {
				t.Errorf("%s, in process %v: stored receipt (%v) %+v, want %q", tt.allow,
					inProcess, ferr, stored, tt.want)
			}
			if tt.want == "" && !inProcess && ferr == nil &&
				stored.RunParameters.Confinement != core.Full && confine.Probe().LandlockABI >= 1 {
				t.Errorf("%s: level %s, want full", tt.allow, stored.RunParameters.Confinement)
			}
		}
		p, err := sabline.NewPool(sabline.PoolOptions{Budget: b, ImportRoot: dir})
		if codes.CodeOf(err) != tt.want {
			t.Errorf("%s: NewPool: %v, want %q", tt.allow, err, tt.want)
		}
		if err == nil {
			p.Close()
		}
	}
}

// TestRunOutputRefused: a Stdout whose Write fails ends the run with
// E305 naming the writer's error, in a worker as in this process, with
// its receipt: a program that printed one line, and one that printed
// more than the relay's pipe holds. Before, the worker's one-line run
// said ok, its output lost, and the flood said only "broken pipe". The
// control is the same runs with a Stdout that takes all: ok.
func TestRunOutputRefused(t *testing.T) {
	dir := t.TempDir()
	b := budget.MustParse(dir, "io")
	progs := map[string]string{
		"one line": "print('hi')\n",
		"a flood":  "for i in range(20000):\n    print('line', i, 'x' * 50)\n",
	}
	for name, src := range progs {
		prog := sabline.Source(filepath.Join(dir, "p.vel"), []byte(src))
		for _, inProcess := range []bool{false, true} {
			for _, w := range []struct {
				name string
				out  io.Writer
				err  error // the error E305 names; nil: the run is ok
			}{
				{"refusing", refusing{}, errRefusing},
				// A reader gone, which the command line lets pass, is
				// output lost to a library's caller too.
				{"whose reader went", readerWent{}, syscall.EPIPE},
				{"taking part of a write and saying no error", halfWriter{}, io.ErrShortWrite},
				{"taking all (the control)", io.Discard, nil},
			} {
				out, refuses := w.out, w.err != nil
				rc := t.TempDir()
				res, err := sabline.Run(context.Background(), prog, sabline.Options{Budget: b,
					Cwd: dir, InProcess: inProcess, Stdout: out, Receipts: rc})
				if err != nil {
					t.Fatal(err)
				}
				stored, ferr := receipt.Find(rc, res.Receipt.RunID)
				if ferr != nil {
					t.Fatal(ferr)
				}
				o := stored.Outcome
				at := fmt.Sprintf("%s, in process %v, a Stdout %s", name, inProcess, w.name)
				switch {
				case !refuses && o.Status != receipt.StatusOK:
					t.Errorf("%s: outcome %+v, want ok", at, o)
				case refuses && (o.Code != codes.E305 || !strings.Contains(o.Message, w.err.Error())):
					t.Errorf("%s: outcome %+v, want E305 naming %q", at, o, w.err)
				}
			}
		}
	}
}

// errRefusing is what refusing's Write returns.
var errRefusing = errors.New("the caller's writer refuses")

// refusing is a writer whose every Write fails.
type refusing struct{}

func (refusing) Write([]byte) (int, error) { return 0, errRefusing }

// readerWent is a writer whose every Write fails as a write to a pipe
// whose reader went does.
type readerWent struct{}

func (readerWent) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// halfWriter is a writer that takes half of each Write, and says no error:
// against io.Writer's rule, output lost all the same.
type halfWriter struct{}

func (halfWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

// onWrite calls do at its first write, and takes every write.
type onWrite struct {
	once sync.Once
	do   func()
}

func (w *onWrite) Write(p []byte) (int, error) {
	w.once.Do(w.do)
	return len(p), nil
}

// wherePrinted says whether pos is where a program that prints on its
// line 1 and then loops on lines 2 and 3 can have been stopped.
func wherePrinted(pos, name string) bool {
	for _, at := range []string{name + ":2:", name + ":3:"} {
		if strings.HasPrefix(pos, at) {
			return true
		}
	}
	return pos == name+":1:6"
}

// TestReceiptsDefaultStore: a run that names no receipts directory leaves
// its receipt in the default store, as the command line does, in the
// caller's process, in a worker and in a pool; the control is a run that
// names a directory, whose receipt goes there and not to the default.
func TestReceiptsDefaultStore(t *testing.T) {
	def, named := t.TempDir(), t.TempDir()
	t.Setenv(receipt.DirEnv, def)
	dir := t.TempDir()
	prog := sabline.Source(filepath.Join(dir, "p.vel"), []byte(hello))
	b := budget.MustParse(dir, "io")
	runs := []struct {
		name     string
		receipts string
		run      func(receipts string) (*sabline.Result, error)
	}{
		{name: "in this process", run: func(rc string) (*sabline.Result, error) {
			return sabline.Run(context.Background(), prog, sabline.Options{Budget: b, Cwd: dir, Receipts: rc, InProcess: true})
		}},
		{name: "in a worker", run: func(rc string) (*sabline.Result, error) {
			return sabline.Run(context.Background(), prog, sabline.Options{Budget: b, Cwd: dir, Receipts: rc, Timeout: time.Minute})
		}},
		{name: "in a pool", run: func(rc string) (*sabline.Result, error) {
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: b, ImportRoot: dir, Receipts: rc, Timeout: time.Minute})
			if err != nil {
				return nil, err
			}
			defer p.Close()
			return p.Run(context.Background(), prog, sabline.RunOptions{})
		}},
	}
	for _, tt := range runs {
		for _, rc := range []string{"", named} {
			t.Run(fmt.Sprintf("%s, receipts %q", tt.name, rc), func(t *testing.T) {
				res, err := tt.run(rc)
				if err != nil {
					t.Fatal(err)
				}
				want, other := def, named
				if rc != "" {
					want, other = named, def
				}
				if got, err := receipt.Find(want, res.Receipt.RunID); err != nil || got.RunID != res.Receipt.RunID {
					t.Errorf("receipt %s not in %s: %v", res.Receipt.RunID, want, err)
				}
				if _, err := receipt.Find(other, res.Receipt.RunID); err == nil {
					t.Errorf("receipt %s is in %s too", res.Receipt.RunID, other)
				}
			})
		}
	}
}

// TestRunTextTooLarge: a program given as text past the bound is refused
// naming the text, in a worker and in a pool, with advice about its size;
// the control is the same text within the bound, which runs.
func TestRunTextTooLarge(t *testing.T) {
	dir := t.TempDir()
	b := budget.MustParse(dir, "io")
	pool, err := sabline.NewPool(sabline.PoolOptions{Budget: b, ImportRoot: dir, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, n := range []int{program.MaxBytes, program.MaxBytes + 1} {
		prog := sabline.Source(filepath.Join(dir, "big.vel"), []byte(strings.Repeat("#", n)))
		_, inWorker := sabline.Run(context.Background(), prog, sabline.Options{Budget: b, Cwd: dir, Timeout: time.Minute})
		_, inPool := pool.Run(context.Background(), prog, sabline.RunOptions{})
		for where, err := range map[string]error{"in a worker": inWorker, "in a pool": inPool} {
			var e *codes.Error
			refused := errors.As(err, &e) && e.Code == codes.E316 && strings.Contains(e.Msg, "the program's text (big.vel)") && strings.Contains(e.Hint(), "shorter")
			if refused != (n > program.MaxBytes) || (n <= program.MaxBytes && err != nil) {
				t.Errorf("%d bytes %s: %v; want it refused, naming the text, only past the bound", n, where, err)
			}
		}
	}
}

// TestLibraryMessagesNameNoFlag: a library run stopped at its timeout or
// its memory limit, or refused below its required level, says so without
// naming a command-line flag the caller never gave; each message names
// the setting and its value.
func TestLibraryMessagesNameNoFlag(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		src      string
		opts     sabline.Options
		wantCode codes.Code
		wantMsg  string
	}{
		{name: "timeout", src: "while True:\n    pass\n", opts: sabline.Options{Timeout: 500 * time.Millisecond},
			wantCode: codes.E307, wantMsg: "its timeout 500ms"},
		{name: "memory", src: "rows = []\nwhile True:\n    rows.append(\"x\" * 100000)\n", opts: sabline.Options{MaxMemoryMB: 64, Timeout: time.Minute},
			wantCode: codes.E308, wantMsg: "memory limit of 64 MB"},
		{name: "required level", src: hello, opts: sabline.Options{Budget: budget.MustParse(dir, "io", "fs:write:gone/out"), Require: core.Full, Timeout: time.Minute},
			wantCode: codes.E326, wantMsg: "required level full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Budget.String() == "" {
				tt.opts.Budget = budget.MustParse(dir, "io")
			}
			tt.opts.Cwd = dir
			res, err := sabline.Run(context.Background(), sabline.Source(filepath.Join(dir, tt.name+".vel"), []byte(tt.src)), tt.opts)
			if err == nil {
				err = res.Err()
			}
			var e *codes.Error
			if !errors.As(err, &e) || e.Code != tt.wantCode || !strings.Contains(e.Msg, tt.wantMsg) || strings.Contains(e.Msg, "--") {
				t.Errorf("%v: want %s saying %q, naming no flag", err, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

// TestRunReceiptsUnwritable: a run whose receipt cannot be kept does not
// run (E317), in this process as in a worker, and the receipt it returns
// says so; the control is the same run with a receipts directory it can
// write.
func TestRunReceiptsUnwritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	prog := sabline.Source(filepath.Join(dir, "p.vel"), []byte(hello))
	for _, tt := range []struct {
		name     string
		receipts string
		wantCode codes.Code
	}{
		{name: "beneath a regular file", receipts: filepath.Join(file, "receipts"), wantCode: codes.E317},
		{name: "a directory it can write", receipts: filepath.Join(dir, "receipts")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, inProcess := range []bool{false, true} {
				res, err := sabline.Run(context.Background(), prog, sabline.Options{Budget: budget.MustParse(dir, "io"),
					Cwd: dir, Receipts: tt.receipts, InProcess: inProcess})
				if codes.CodeOf(err) != tt.wantCode {
					t.Fatalf("Run (in process %v): %v, want code %q", inProcess, err, tt.wantCode)
				}
				if ran := len(res.Stdout) > 0; ran != (tt.wantCode == "") {
					t.Errorf("output %q (%+v, in process %v): ran %v, want %v", res.Stdout, res.Receipt.Outcome,
						inProcess, ran, tt.wantCode == "")
				}
				if res.Receipt.Outcome.Code != tt.wantCode {
					t.Errorf("the receipt's outcome %+v (in process %v): want code %q", res.Receipt.Outcome,
						inProcess, tt.wantCode)
				}
			}
		})
	}
}

// TestReceiptsDirectoryMadeIsGuarded: a run whose receipts directory did
// not exist makes it, and a program granted the directory above cannot
// write in what the run made, in this process, in a worker or in a pool;
// the same write beneath a directory beside it goes through.
func TestReceiptsDirectoryMadeIsGuarded(t *testing.T) {
	const prog = "fs.write(ARGS[0], \"forged\")\nprint(\"wrote\")\n"
	type runFunc func(t *testing.T, o sabline.Options) (*sabline.Result, error)
	for _, tc := range []struct {
		name string
		run  runFunc
	}{
		{name: "in this process", run: func(t *testing.T, o sabline.Options) (*sabline.Result, error) {
			o.InProcess = true
			return sabline.Run(context.Background(), sabline.Source("p.vel", []byte(prog)), o)
		}},
		{name: "in a worker", run: func(t *testing.T, o sabline.Options) (*sabline.Result, error) {
			o.Timeout = time.Minute
			return sabline.Run(context.Background(), sabline.Source("p.vel", []byte(prog)), o)
		}},
		{name: "in a pool", run: func(t *testing.T, o sabline.Options) (*sabline.Result, error) {
			t.Chdir(o.Cwd) // a pool's runs are in its caller's directory
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: o.Budget, Receipts: o.Receipts,
				Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			return p.Run(context.Background(), sabline.Source(filepath.Join(o.Cwd, "p.vel"), []byte(prog)),
				sabline.RunOptions{Args: o.Args})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tt := range []struct {
				name        string
				target      string // under the test's directory
				wantWritten bool
			}{
				{name: "the control beside it", target: filepath.Join("beside", "out"), wantWritten: true},
				{name: "in the directory the run made", target: filepath.Join("made", "forged")},
			} {
				t.Run(tt.name, func(t *testing.T) {
					dir := t.TempDir()
					if err := os.Mkdir(filepath.Join(dir, "beside"), 0o700); err != nil {
						t.Fatal(err)
					}
					target := filepath.Join(dir, tt.target)
					res, err := tc.run(t, sabline.Options{Budget: budget.MustParse(dir, "io", "fs:write:"+dir),
						Args: []string{target}, Receipts: filepath.Join(dir, "made", "receipts"), Cwd: dir})
					if err == nil {
						err = res.Err()
					}
					_, statErr := os.Stat(target)
					if written := statErr == nil; written != tt.wantWritten {
						t.Fatalf("%s: written %v, error %v; want written %v", target, written, err, tt.wantWritten)
					}
					if tt.wantWritten && err != nil {
						t.Fatalf("the control: %v", err)
					}
					if !tt.wantWritten && codes.CodeOf(err) != codes.E318 {
						t.Fatalf("error %v, want E318", err)
					}
				})
			}
		})
	}
}

// TestReceiptsAreGuarded: a program granted the directory that holds the
// receipts directory (or a server's token file) cannot write there, in
// this process, in a worker and in a pool, whatever form the path was
// given in, nor make a new entry beside it, in the directory that holds
// it; the same write in a directory beside it goes through.
func TestReceiptsAreGuarded(t *testing.T) {
	const prog = "fs.write(ARGS[0], \"forged\")\nprint(\"wrote\")\n"
	tests := []struct {
		name string
		run  func(t *testing.T, dir string, b budget.Budget, target string) (*sabline.Result, error)
	}{
		{name: "in this process", run: func(t *testing.T, dir string, b budget.Budget, target string) (*sabline.Result, error) {
			return sabline.Run(context.Background(), sabline.Source("p.vel", []byte(prog)),
				sabline.Options{Budget: b, Args: []string{target}, Receipts: filepath.Join(dir, "receipts"), Cwd: dir, InProcess: true})
		}},
		{name: "in a worker", run: func(t *testing.T, dir string, b budget.Budget, target string) (*sabline.Result, error) {
			return sabline.Run(context.Background(), sabline.Source("p.vel", []byte(prog)),
				sabline.Options{Budget: b, Args: []string{target}, Receipts: filepath.Join(dir, "receipts"), Cwd: dir, Timeout: time.Minute})
		}},
		{name: "in a pool with its receipts named relative", run: func(t *testing.T, dir string, b budget.Budget, target string) (*sabline.Result, error) {
			t.Chdir(dir)
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: b, Receipts: "receipts", Guarded: []string{"token"}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			return p.Run(context.Background(), sabline.Source(filepath.Join(dir, "p.vel"), []byte(prog)), sabline.RunOptions{Args: []string{target}})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"receipts", "beside"} {
				if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			b := budget.MustParse(dir, "io", "fs:write:"+dir)
			targets := []struct {
				path    string
				guarded bool
			}{{filepath.Join(dir, "beside", "out"), false}, {filepath.Join(dir, "receipts", "forged.json"), true},
				{filepath.Join(dir, "made-beside-the-receipts"), true}}
			if strings.HasPrefix(tc.name, "in a pool") {
				targets = append(targets, struct {
					path    string
					guarded bool
				}{filepath.Join(dir, "token"), true})
			}
			for _, target := range targets {
				res, err := tc.run(t, dir, b, target.path)
				if err == nil {
					err = res.Err() // the program ran: how it ended
				}
				_, statErr := os.Stat(target.path)
				written := statErr == nil
				if target.guarded {
					if written || codes.CodeOf(err) != codes.E318 {
						t.Errorf("%s: written %v, error %v; want nothing written and E318", target.path, written, err)
					}
					continue
				}
				if !written || err != nil || string(res.Stdout) != "wrote\n" {
					t.Errorf("%s (the control, beside the receipts): written %v, error %v; want it written", target.path, written, err)
				}
			}
		})
	}
}

// TestRunKeepsABoundedOutput: a run's output kept for its caller (Run
// with no Stdout, in a worker and in this process, and a pool's run) is
// its first MiB, and past it the receipt, the one returned and the one on
// the disk alike, says how much the program printed and how much was kept
// (stdout_cut), as the run's messages do, a pool's marking it as its
// worker's word; within the bound it says nothing of a cut. Before, a
// pool's receipt said nothing of it, and a run's messages not how much
// was dropped.
func TestRunKeepsABoundedOutput(t *testing.T) {
	dir := t.TempDir()
	const bound = 1 << 20
	type runFunc func(t *testing.T, receipts, src string) *sabline.Result
	runner := func(inProcess bool) runFunc {
		return func(t *testing.T, receipts, src string) *sabline.Result {
			res, err := sabline.Run(context.Background(), sabline.Source(filepath.Join(dir, "p.vel"),
				[]byte(src)), sabline.Options{Budget: budget.MustParse(dir, "io"), Cwd: dir,
				Receipts: receipts, InProcess: inProcess})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	for _, where := range []struct {
		name string
		run  runFunc
	}{
		{"in this process", runner(true)},
		{"in a worker", runner(false)},
		{"in a pool", func(t *testing.T, receipts, src string) *sabline.Result {
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(dir, "io"),
				ImportRoot: dir, Receipts: receipts})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			res, err := p.Run(context.Background(), sabline.Source("p.vel", []byte(src)),
				sabline.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}},
	} {
		for _, tc := range []struct {
			name       string
			n          int
			wantStdout int
			wantCut    *receipt.StdoutCut
		}{
			{name: "past the bound", n: 3 * bound, wantStdout: bound,
				wantCut: &receipt.StdoutCut{Bytes: 3*bound + 1, KeptBytes: bound}},
			{name: "at the bound", n: bound - 1, wantStdout: bound},
			{name: "within it", n: 1000, wantStdout: 1001},
		} {
			t.Run(where.name+"/"+tc.name, func(t *testing.T) {
				receipts := t.TempDir()
				res := where.run(t, receipts, fmt.Sprintf("print(\"x\" * %d)\n", tc.n))
				if len(res.Stdout) != tc.wantStdout {
					t.Errorf("kept %d bytes of %d; want %d", len(res.Stdout), tc.n+1, tc.wantStdout)
				}
				stored, err := receipt.Find(receipts, res.Receipt.RunID)
				if err != nil {
					t.Fatal(err)
				}
				for _, got := range []struct {
					what string
					cut  *receipt.StdoutCut
				}{{"the receipt returned", res.Receipt.StdoutCut}, {"the receipt stored", stored.StdoutCut}} {
					if !reflect.DeepEqual(got.cut, tc.wantCut) {
						t.Errorf("%s has stdout_cut %+v; want %+v", got.what, got.cut, tc.wantCut)
					}
				}
				// A pool's worker counts what its program printed: its word,
				// marked as the worker's (receipt.FieldStdoutCut); a run of
				// its own the supervisor counts as it relays it.
				marked := stored.Reported != nil &&
					slices.Contains(stored.Reported.Fields, receipt.FieldStdoutCut)
				if want := where.name == "in a pool" && tc.wantCut != nil; marked != want {
					t.Errorf("the receipt stored marks stdout_cut as the worker's %v (%+v); want %v",
						marked, stored.Reported, want)
				}
				said := strings.Contains(string(res.Stderr), "sabline: stdout: CUT: ")
				if tc.wantCut != nil && !strings.Contains(string(res.Stderr),
					fmt.Sprintf("printed %d bytes; the caller was given the first %d", tc.wantCut.Bytes,
						tc.wantCut.KeptBytes)) || tc.wantCut == nil && said {
					t.Errorf("the run's messages are %q; want them to say the cut %+v", res.Stderr,
						tc.wantCut)
				}
			})
		}
	}
}

// TestRunGivenAWriterSaysNoCut: a run whose output goes to its caller's
// own writer (Options.Stdout), which takes all of it, has a receipt, the
// one returned and the one on the disk, that says no cut (stdout_cut)
// however much it printed, and messages that say none, in a worker and in
// this process. The control: the same run with its output kept in its
// Result (no Stdout) says the cut.
func TestRunGivenAWriterSaysNoCut(t *testing.T) {
	dir := t.TempDir()
	const n = 3 << 20
	src := fmt.Sprintf("print(\"x\" * %d)\n", n)
	for _, inProcess := range []bool{true, false} {
		for _, own := range []bool{true, false} {
			t.Run(fmt.Sprintf("in process %v, own writer %v", inProcess, own), func(t *testing.T) {
				receipts := t.TempDir()
				var out, stderr bytes.Buffer
				opts := sabline.Options{Budget: budget.MustParse(dir, "io"), Cwd: dir,
					Receipts: receipts, InProcess: inProcess, Stderr: &stderr}
				if own {
					opts.Stdout = &out
				}
				res, err := sabline.Run(context.Background(), sabline.Source(filepath.Join(dir, "p.vel"),
					[]byte(src)), opts)
				if err != nil {
					t.Fatal(err)
				}
				stored, err := receipt.Find(receipts, res.Receipt.RunID)
				if err != nil {
					t.Fatal(err)
				}
				said := strings.Contains(stderr.String()+string(res.Stderr), "stdout: CUT")
				if own {
					if out.Len() != n+1 || res.Receipt.StdoutCut != nil || stored.StdoutCut != nil || said {
						t.Errorf("given %d bytes of %d; stdout_cut %+v, stored %+v, said %v; want all "+
							"given and no cut said", out.Len(), n+1, res.Receipt.StdoutCut,
							stored.StdoutCut, said)
					}
					return
				}
				if res.Receipt.StdoutCut == nil || stored.StdoutCut == nil || !said {
					t.Errorf("the control: stdout_cut %+v, stored %+v, said %v; want the cut said",
						res.Receipt.StdoutCut, stored.StdoutCut, said)
				}
			})
		}
	}
}

// TestRunSaysHowItFailed: a run that did not end well says so on its
// Stderr, its code and message, in a worker, in this process and in a
// pool alike; a run that ended well says nothing there.
func TestRunSaysHowItFailed(t *testing.T) {
	const failing = "print(\"a\")\nfs.read(\"elsewhere.txt\")\n"
	const want = "sabline: E302: fs read of "
	type runFunc func(t *testing.T, dir, prog string) *sabline.Result
	runner := func(inProcess bool) runFunc {
		return func(t *testing.T, dir, prog string) *sabline.Result {
			res, err := sabline.Run(context.Background(), sabline.Source("p.vel", []byte(prog)),
				sabline.Options{Budget: budget.MustParse(dir, "io"), InProcess: inProcess,
					Receipts: filepath.Join(dir, "receipts"), Cwd: dir})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	for _, tc := range []struct {
		name string
		run  runFunc
	}{
		{name: "in a worker", run: runner(false)},
		{name: "in this process", run: runner(true)},
		{name: "in a pool", run: func(t *testing.T, dir, prog string) *sabline.Result {
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(dir, "io"),
				ImportRoot: dir, Receipts: filepath.Join(dir, "receipts")})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			res, err := p.Run(context.Background(), sabline.Source("p.vel", []byte(prog)),
				sabline.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tt := range []struct {
				name, prog string
				wantSaid   bool
			}{
				{name: "a refused effect", prog: failing, wantSaid: true},
				{name: "the control: ok", prog: "print(\"a\")\n"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					res := tc.run(t, t.TempDir(), tt.prog)
					if said := strings.HasPrefix(string(res.Stderr), want); said != tt.wantSaid ||
						!tt.wantSaid && len(res.Stderr) > 0 {
						t.Errorf("Stderr %q (outcome %s %s), want it to begin %q: %v", res.Stderr,
							res.Receipt.Outcome.Status, res.Receipt.Outcome.Code, want, tt.wantSaid)
					}
				})
			}
		})
	}
}

// TestLendCredentialsBounded: the credential locations a library lends
// are held to a budget's bounds, as the command line's are: Run refuses
// more (E301) with a receipt that stays readable (the locations, which a
// receipt keeps whole, left out of it), and NewPool refuses them. So
// is a location whose path is not UTF-8, cr\xe9d: its receipt kept it in
// a JSON string, as cr\ufffdd, the path a replay then lent. The
// control: one location lent, which runs, its receipt naming it.
func TestLendCredentialsBounded(t *testing.T) {
	dir := t.TempDir()
	many := slices.Repeat([]string{filepath.Join(dir, strings.Repeat("k", 4000))}, 20)
	one := []string{filepath.Join(dir, "key")}
	for _, tc := range []struct {
		name    string
		lend    []string
		wantErr bool
	}{{"past the bound", many, true}, {"not UTF-8", []string{filepath.Join(dir, "cr\xe9d")}, true},
		{"within it", one, false}} {
		t.Run(tc.name, func(t *testing.T) {
			receipts := t.TempDir()
			res, err := sabline.Run(context.Background(), sabline.Source("p.vel", []byte("print(1)\n")),
				sabline.Options{Budget: budget.MustParse(dir, "io"), Cwd: dir, Receipts: receipts,
					LendCredentials: tc.lend})
			if res == nil {
				t.Fatalf("Run: %v, and no result", err)
			}
			if (codes.CodeOf(err) == codes.E301) != tc.wantErr {
				t.Errorf("Run: %v; want E301 %v", err, tc.wantErr)
			}
			stored, ferr := receipt.Find(receipts, res.Receipt.RunID)
			if ferr != nil {
				t.Fatal(ferr)
			}
			wantLent := tc.lend
			if tc.wantErr {
				wantLent = nil
			}
			if !slices.Equal(stored.RunParameters.CredentialsLent, wantLent) {
				t.Errorf("its receipt lends %d locations (%.80q); want %d (%.80q)",
					len(stored.RunParameters.CredentialsLent), stored.RunParameters.CredentialsLent,
					len(wantLent), wantLent)
			}
			p, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(dir, "io"),
				Receipts: receipts, LendCredentials: tc.lend, OnDemand: true})
			if err == nil {
				p.Close()
			}
			if (codes.CodeOf(err) == codes.E301) != tc.wantErr {
				t.Errorf("NewPool: %v; want E301 %v", err, tc.wantErr)
			}
		})
	}
}

// TestRunRefusesAWorkingDirectoryWithANUL: a run whose working directory
// holds a NUL byte is refused, E301 naming it, with the receipt of its
// refusal, and nothing runs: the worker's start failed on it, E310
// ("fork/exec: invalid argument"), whose advice calls that a fault in
// Sabline. The control: the same run in the directory itself runs.
func TestRunRefusesAWorkingDirectoryWithANUL(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, cwd string
		want      codes.Code // "" when it runs
	}{
		{name: "a NUL", cwd: filepath.Join(dir, "a\x00b"), want: codes.E301},
		{name: "control: the directory itself", cwd: dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "receipts")
			res, err := sabline.Run(context.Background(), sabline.Source(filepath.Join(dir, "p.vel"),
				[]byte(hello)), sabline.Options{Budget: budget.MustParse(dir, "io"), Cwd: tc.cwd,
				Receipts: rc})
			if err == nil {
				err = res.Err()
			}
			if tc.want == "" {
				if err != nil || string(res.Stdout) != "hello\n" {
					t.Fatalf("the control: %v, stdout %q", err, res.Stdout)
				}
				return
			}
			if codes.CodeOf(err) != tc.want || !strings.Contains(err.Error(), "holds a NUL") ||
				len(res.Stdout) != 0 {
				t.Fatalf("%v, stdout %q: want %s naming the NUL, nothing run", err, res.Stdout,
					tc.want)
			}
			if runs, err := receipt.List(rc); err != nil || len(runs) != 1 ||
				runs[0].Receipt.Outcome.Code != tc.want {
				t.Fatalf("receipts %+v (%v), want the refusal's, %s", runs, err, tc.want)
			}
		})
	}
}
