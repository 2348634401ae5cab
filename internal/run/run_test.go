package run

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/fault"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/internal/worker"
	"github.com/sabline/sabline/receipt"
)

// beforeWorker is what the test files of one system do to the test
// binary started as a worker, with its arguments, before worker.Main.
var beforeWorker []func(args []string)

// TestMain lets the test binary be its own worker, as the sabline command
// is: Supervise starts os.Executable with wire.WorkerArg.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == wire.WorkerArg {
		if os.Getenv(dieEarlyEnv) != "" {
			os.Exit(3) // a worker that dies before its first record
		}
		for _, f := range beforeWorker {
			f(os.Args[2:])
		}
		os.Exit(worker.Main(os.Args[2:]))
	}
	os.Exit(testkit.RunApart(m)) // its stores and runs join a register of its own
}

// supervised is one run of a program through Supervise, unconfined (the
// test binary is not the command, so its confinement proves nothing; the
// scripts test that), with its receipt reserved in dir/receipts.
type supervised struct {
	rec            *receipt.Receipt
	stdout, stderr string
	dir            string // the program's, where it runs
	receipts       string // beside it: a directory that holds the receipts holds a guarded location
	wall           time.Duration
}

func superviseProgram(t *testing.T, src string, allow []string, edit func(*Run)) supervised {
	t.Helper()
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.vel")
	if err := os.WriteFile(prog, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	receipts := filepath.Join(t.TempDir(), "receipts")
	r := Run{
		Program: prog, Budget: budget.MustParse(dir, allow...), Cwd: dir, Confine: core.ModeOff,
		Timeout: 60 * time.Second, Receipts: receipts,
		Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr,
	}
	if edit != nil {
		edit(&r)
	}
	t0 := time.Now()
	rec := Supervise(r)
	return supervised{rec: rec, stdout: stdout.String(), stderr: stderr.String(), dir: dir, receipts: receipts, wall: time.Since(t0)}
}

// stored reads the receipt Supervise stored.
func (s supervised) stored(t *testing.T) *receipt.Receipt {
	t.Helper()
	path, err := s.rec.Stored()
	if err != nil {
		t.Fatalf("Stored: %v", err)
	}
	r, err := receipt.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func wantCode(t *testing.T, s supervised, code codes.Code, msg string) {
	t.Helper()
	if s.rec.Outcome.Code != code || !strings.Contains(s.rec.Outcome.Message, msg) {
		t.Fatalf("outcome %s %q, want %s containing %q\nstderr: %s", s.rec.Outcome.Code, s.rec.Outcome.Message, code, msg, s.stderr)
	}
	if got := s.stored(t).Outcome.Code; got != code {
		t.Fatalf("the stored receipt says %s, want %s", got, code)
	}
}

// TestReceiptReserved: a run whose receipt cannot be reserved does not
// run; one whose receipt can, runs and finishes it.
func TestReceiptReserved(t *testing.T) {
	const prog = `fs.write("side.txt", "ran")`
	t.Run("under a regular file: nothing runs", func(t *testing.T) {
		var blocker string
		s := superviseProgram(t, prog, []string{"fs:write"}, func(r *Run) {
			blocker = filepath.Join(r.Cwd, "blocker")
			if err := os.WriteFile(blocker, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			r.Receipts = filepath.Join(blocker, "receipts")
		})
		if _, err := s.rec.Stored(); codes.CodeOf(err) != codes.E317 {
			t.Fatalf("Stored error = %v, want E317", err)
		}
		if s.rec.Outcome.Code != codes.E317 || s.rec.Outcome.ExitStatus != codes.ExitUsage {
			t.Fatalf("outcome %+v, want E317 exit %d", s.rec.Outcome, codes.ExitUsage)
		}
		if _, err := os.Stat(filepath.Join(s.dir, "side.txt")); !os.IsNotExist(err) {
			t.Fatalf("side.txt: %v, want it absent: the program ran", err)
		}
	})
	t.Run("on a read-only file system: nothing runs", func(t *testing.T) {
		ro := testkit.MountReadOnlyFS(t)
		s := superviseProgram(t, prog, []string{"fs:write"}, func(r *Run) { r.Receipts = filepath.Join(ro, "receipts") })
		if _, err := s.rec.Stored(); codes.CodeOf(err) != codes.E317 || !strings.Contains(err.Error(), "read-only file system") {
			t.Fatalf("Stored error = %v, want E317 naming the read-only file system", err)
		}
		if _, err := os.Stat(filepath.Join(s.dir, "side.txt")); !os.IsNotExist(err) {
			t.Fatalf("side.txt: %v, want it absent: the program ran", err)
		}
	})
	t.Run("a directory: the program runs and the receipt is finished", func(t *testing.T) {
		s := superviseProgram(t, prog, []string{"fs:write"}, nil)
		if got, err := os.ReadFile(filepath.Join(s.dir, "side.txt")); err != nil || string(got) != "ran" {
			t.Fatalf("side.txt: %q, %v", got, err)
		}
		if st := s.stored(t).Outcome.Status; st != receipt.StatusOK {
			t.Fatalf("stored status %q, want ok", st)
		}
		entries, _ := os.ReadDir(s.receipts)
		if len(entries) != 1 {
			t.Fatalf("receipts directory holds %d entries, want the receipt alone", len(entries))
		}
	})
}

// TestProgramFillsTheReceiptsFileSystem: a program that fills the file
// system its receipts live on ends with its receipt finished, in the space
// reserved for it, saying how the program ended and at which level: at
// its top level, and 3,000 calls deep, whose error's stack made a receipt
// past the reservation (a skeleton, unfinished, level none, was stored).
// The receipt the run returns is the one on the disk: one cut to fit
// there (43 arguments of 1,500 bytes, within what a receipt keeps, past
// the reserved space) says so in both, where the caller once held it
// whole, with no cut, beside a file that kept only the arguments' digest.
func TestProgramFillsTheReceiptsFileSystem(t *testing.T) {
	long := slices.Repeat([]string{strings.Repeat("a", 1500)}, 43)
	for _, tt := range []struct {
		name    string
		depth   int
		args    []string
		wantCut bool
	}{
		{name: "at the top level", depth: 0},
		{name: "3000 calls deep", depth: 3000},
		{name: "with arguments past the reserved space", args: long, wantCut: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mnt := testkit.MountSmallFS(t)
			fill := filepath.Join(mnt, "fill")
			if err := os.Mkdir(fill, 0o700); err != nil {
				t.Fatal(err)
			}
			s := superviseProgram(t, fmt.Sprintf(`chunk = "x" * 65536
def f(n):
    if n == 0:
        for i in range(1000):
            fs.append("%s/big", chunk)
    return f(n - 1)
f(%d)
`, fill, tt.depth), []string{"fs:write:" + fill}, func(r *Run) {
				r.Receipts, r.Confine = filepath.Join(mnt, "receipts"), core.ModeDefault
				r.Args = tt.args
			})
			if path, err := s.rec.Stored(); err != nil {
				t.Fatalf("Stored: %s, %v: want the receipt finished", path, err)
			}
			if probe, err := os.CreateTemp(mnt, "probe-"); err == nil {
				_, werr := probe.Write(bytes.Repeat([]byte("p"), 4096))
				probe.Close()
				os.Remove(probe.Name())
				if werr == nil {
					t.Fatal("the file system still takes 4 KiB after the run: the program did not fill it, and the reserved space was not needed")
				}
			}
			got := s.stored(t)
			if got.Outcome.Status == receipt.StatusUnfinished || got.Outcome.Code != s.rec.Outcome.Code || s.rec.Outcome.Status == receipt.StatusOK ||
				got.RunParameters.Confinement != s.rec.RunParameters.Confinement || len(got.Effects) != 1 {
				t.Fatalf("stored outcome %+v at %s, run outcome %+v at %s: want the run's failure (the file system filled), finished, at its level",
					got.Outcome, got.RunParameters.Confinement, s.rec.Outcome, s.rec.RunParameters.Confinement)
			}
			if tt.depth > 0 && len(got.Outcome.Stack) < 2 {
				t.Errorf("stored stack %q: want more than its innermost frame (it fits)", got.Outcome.Stack)
			}
			if (len(got.Cut) > 0) != tt.wantCut {
				t.Errorf("stored cut %q, want a cut %v", got.Cut, tt.wantCut)
			}
			returned, err := s.rec.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := got.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(returned, stored) {
				t.Errorf("the receipt returned (%d bytes, %d arguments, cut %q) is not the "+
					"one stored (%d bytes, %d arguments, cut %q)", len(returned),
					len(s.rec.Args), s.rec.Cut, len(stored), len(got.Args), got.Cut)
			}
		})
	}
}

// TestSweepTempDirs: a leftover directory whose supervisor is gone is
// removed, and so is one whose modification time is an hour ahead (made
// before the wall clock was stepped back an hour: it stayed until the
// clock caught up); a live run's (its lock held, its time old or ahead),
// a fresh one and another program's are not.
func TestSweepTempDirs(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("no lock on Windows: nothing is swept there")
	}
	parent := t.TempDir()
	old := time.Now().Add(-time.Hour)
	mk := func(name string, mtime time.Time) string {
		d := filepath.Join(parent, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, wire.CrashFile), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return d
	}
	ahead := time.Now().Add(time.Hour)
	stale := mk(tempPrefix+"stale", old)
	staleAhead := mk(tempPrefix+"stale-ahead", ahead)
	live := mk(tempPrefix+"live", old)
	liveAhead := mk(tempPrefix+"live-ahead", ahead)
	fresh := mk(tempPrefix+"fresh", time.Now())
	older := mk("sabline-run-123", old) // an older sabline's: no lock, never swept
	unlock, err := lockDir(live)
	if err != nil {
		t.Fatal(err)
	}
	unlockAhead, err := lockDir(liveAhead)
	if err != nil {
		t.Fatal(err)
	}
	defer unlockAhead()
	removed := sweepTempDirs(parent, time.Now())
	if slices.Sort(removed); !slices.Equal(removed, []string{stale, staleAhead}) {
		t.Fatalf("removed %q, want only %s and %s", removed, stale, staleAhead)
	}
	for _, d := range []string{live, liveAhead, fresh, older} {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("%s: %v, want it kept", d, err)
		}
	}
	unlock() // the live run's supervisor is gone
	if removed := sweepTempDirs(parent, time.Now()); len(removed) != 1 || removed[0] != live {
		t.Fatalf("after its supervisor went, removed %q, want %s", removed, live)
	}
}

// TestSweepTempDirsJustMade: a leftover directory is swept only once its
// time is more than staleAfter from now, behind or ahead: one made a
// moment ago by a supervisor whose clock read a little ahead of this
// run's (its time less than staleAfter ahead of now) may not be locked
// yet, and is kept, as one made less than staleAfter ago is. The
// controls: the same directories more than staleAfter behind or ahead of
// now are swept. Now is the sweep's argument: the test waits on no clock.
func TestSweepTempDirsJustMade(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("no lock on Windows: nothing is swept there")
	}
	parent := t.TempDir()
	now := time.Now()
	mk := func(name string, mtime time.Time) string {
		d := filepath.Join(parent, tempPrefix+name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return d
	}
	justAhead := mk("just-ahead", now.Add(staleAfter/2))
	justBehind := mk("just-behind", now.Add(-staleAfter/2))
	farAhead := mk("far-ahead", now.Add(2*staleAfter))
	farBehind := mk("far-behind", now.Add(-2*staleAfter))
	removed := sweepTempDirs(parent, now)
	if slices.Sort(removed); !slices.Equal(removed, []string{farAhead, farBehind}) {
		t.Errorf("removed %q, want only %s and %s", removed, farAhead, farBehind)
	}
	for _, d := range []string{justAhead, justBehind} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v, want it kept", d, err)
		}
	}
}

// TestWorkerEnv: without the env grant the worker starts with the one list
// of variables alone; with it, the operator's environment; never the
// fault-injection variable; and a GODEBUG ending with madvdontneed=1,
// whatever the operator's says (run_memlimit.txtar shows why).
func TestWorkerEnv(t *testing.T) {
	operator := []string{"PATH=/bin", "AWS_SECRET_ACCESS_KEY=s3cr3t", "GODEBUG=x=1", fault.Env + "=read=/x", "HOME=/root"}
	tests := []struct {
		name     string
		operator []string
		granted  bool
		want     []string
	}{
		{name: "no env grant", operator: operator,
			want: []string{"PATH=/bin", "GODEBUG=x=1,madvdontneed=1"}},
		{name: "env granted", operator: operator, granted: true,
			want: []string{"PATH=/bin", "AWS_SECRET_ACCESS_KEY=s3cr3t", "GODEBUG=x=1,madvdontneed=1", "HOME=/root"}},
		{name: "no GODEBUG", operator: []string{"PATH=/bin"},
			want: []string{"PATH=/bin", "GODEBUG=madvdontneed=1"}},
		{name: "an empty GODEBUG", operator: []string{"GODEBUG="}, want: []string{"GODEBUG=madvdontneed=1"}},
		{name: "madvdontneed=0, twice", operator: []string{"GODEBUG=madvdontneed=0", "GODEBUG=madvdontneed=0"},
			want: []string{"GODEBUG=madvdontneed=0,madvdontneed=1", "GODEBUG=madvdontneed=0,madvdontneed=1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := workerEnv(tc.operator, tc.granted)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("workerEnv = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWorkerEnvOfARun: the variable reaches a program granted env, and a
// worker without the grant does not carry it (read here through ffi:os,
// which the budget does not check).
func TestWorkerEnvOfARun(t *testing.T) {
	t.Setenv("SABLINE_TEST_SECRET", "hunter2")
	t.Setenv(fault.Env, "read=/nonexistent")
	const prog = `o = ffi.module("os")
print("[%s]" % o.getenv("SABLINE_TEST_SECRET"), "[%s]" % o.getenv("` + fault.Env + `"))`
	tests := []struct {
		name  string
		allow []string
		want  string
	}{
		{name: "without env", allow: []string{"io", "ffi:os"}, want: "[] []\n"},
		{name: "with env", allow: []string{"io", "env", "ffi:os"}, want: "[hunter2] []\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := superviseProgram(t, prog, tc.allow, nil)
			if s.stdout != tc.want {
				t.Fatalf("stdout %q, want %q (stderr %s)", s.stdout, tc.want, s.stderr)
			}
			if len(s.rec.Faults) != 0 {
				t.Fatalf("%d fault attempts from a variable Supervise was not given", len(s.rec.Faults))
			}
		})
	}
}

// TestParametersOfARunThatNeverStarted: a run refused before its worker
// starts (here: asked for from inside a worker) still records how it was
// asked for, the digest of the policy its budget derives among it, as a
// run that ran does.
func TestParametersOfARunThatNeverStarted(t *testing.T) {
	edit := func(r *Run) { r.Confine, r.Timeout = core.ModeDefault, 7*time.Second }
	ran := superviseProgram(t, `print("ran")`, []string{"io"}, edit)
	if ran.rec.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the control did not run: %+v\n%s", ran.rec.Outcome, ran.stderr)
	}
	t.Setenv(wire.WorkerMarker, "a-run-id")
	refused := superviseProgram(t, `print("ran")`, []string{"io"}, edit)
	wantCode(t, refused, codes.E310, "Supervise")
	for _, rec := range []*receipt.Receipt{ran.stored(t), refused.stored(t)} {
		p := rec.RunParameters
		if p.OSPolicySHA256 == "" || p.OSPolicySHA256 != ran.rec.RunParameters.OSPolicySHA256 || p.Confine != core.ModeDefault || p.TimeoutMS != 7000 {
			t.Errorf("receipt %s (%s): parameters %+v, want the policy digest %q, confine %q, timeout 7000 ms",
				rec.RunID, rec.Outcome.Status, p, ran.rec.RunParameters.OSPolicySHA256, core.ModeDefault)
		}
	}
}

// TestOperatorCredentialsReachTheWorker: a location the operator names in
// SABLINE_CREDENTIALS is refused to a worker whose budget reads around it
// (E318), though the variable itself never reaches the worker's
// environment; the file beside it is read. The variable is read once per
// process, so the test runs again in a process that has it from the start.
func TestOperatorCredentialsReachTheWorker(t *testing.T) {
	const dirEnv = "SABLINE_TEST_CREDENTIALS_DIR"
	dir := os.Getenv(dirEnv)
	if dir == "" {
		dir = t.TempDir()
		for _, name := range []string{"secret", "beside"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestOperatorCredentialsReachTheWorker$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), dirEnv+"="+dir, guard.CredentialsEnv+"="+filepath.Join(dir, "secret"))
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestOperatorCredentialsReachTheWorker") {
			t.Fatalf("the test in a process with %s set: %v\n%s", guard.CredentialsEnv, err, out)
		}
		return
	}
	secret, beside := filepath.Join(dir, "secret"), filepath.Join(dir, "beside")
	if got := guard.OperatorCredentials(); len(got) != 1 || got[0] != secret {
		t.Fatalf("OperatorCredentials = %q, want %s", got, secret)
	}
	prog := "print(fs.read(ARGS[0]))\n"
	read := func(p string) supervised {
		return superviseProgram(t, prog, []string{"io", "fs:read:" + dir}, func(r *Run) { r.Args = []string{p} })
	}
	if s := read(beside); s.rec.Outcome.Status != receipt.StatusOK || s.stdout != "x\n" {
		t.Fatalf("the file beside: %+v %q", s.rec.Outcome, s.stderr)
	}
	wantCode(t, read(secret), codes.E318, secret)
}

// TestOneProc: a worker starts on one P and is told to take the
// supervisor's count once confined, two where the supervisor has one,
// unless the operator set GOMAXPROCS, which it keeps.
func TestOneProc(t *testing.T) {
	tests := []struct {
		name      string
		procs     int // the supervisor's GOMAXPROCS for the case
		env       []string
		wantEnv   []string
		wantProcs int
	}{
		{name: "operator set none", procs: 3, env: []string{"PATH=/bin"},
			wantEnv: []string{"PATH=/bin", "GOMAXPROCS=1"}, wantProcs: 3},
		{name: "supervisor on one P", procs: 1, env: []string{"PATH=/bin"},
			wantEnv: []string{"PATH=/bin", "GOMAXPROCS=1"}, wantProcs: 2},
		{name: "operator set it", procs: 1, env: []string{"GOMAXPROCS=3", "PATH=/bin"},
			wantEnv: []string{"GOMAXPROCS=3", "PATH=/bin"}, wantProcs: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(tc.procs))
			env, procs := oneProc(tc.env)
			if strings.Join(env, " ") != strings.Join(tc.wantEnv, " ") || procs != tc.wantProcs {
				t.Fatalf("oneProc(%q) = %q, %d; want %q, %d", tc.env, env, procs, tc.wantEnv, tc.wantProcs)
			}
		})
	}
}

// TestOneProcIsNotTheProgramsEnvironment: the GOMAXPROCS=1 a worker starts
// with is the supervisor's doing and reaches neither the program nor what
// it starts; one the operator set does.
func TestOneProcIsNotTheProgramsEnvironment(t *testing.T) {
	const prog = `o = ffi.module("os")
print("[%s]" % o.getenv("GOMAXPROCS"), "[%s]" % env.get("GOMAXPROCS"))`
	allow := []string{"io", "env", "ffi:os"}
	if old, ok := os.LookupEnv("GOMAXPROCS"); ok {
		os.Unsetenv("GOMAXPROCS")
		t.Cleanup(func() { os.Setenv("GOMAXPROCS", old) })
	}
	if s := superviseProgram(t, prog, allow, nil); s.stdout != "[] [None]\n" {
		t.Fatalf("operator set none: stdout %q, want the variable unset (stderr %s)", s.stdout, s.stderr)
	}
	t.Setenv("GOMAXPROCS", "2")
	if s := superviseProgram(t, prog, allow, nil); s.stdout != "[2] [2]\n" {
		t.Fatalf("operator set 2: stdout %q, want it seen (stderr %s)", s.stdout, s.stderr)
	}
}

// TestToolChannel: a tool call goes on the host's descriptor and its answer
// comes back on it; a line the program prints never reaches the channel,
// however it looks.
func TestToolChannel(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the test host uses a Unix socket pair")
	}
	host := func(t *testing.T, src string, allow []string) (supervised, []string) {
		hostEnd, workerEnd := socketPair(t)
		requests := make(chan []string, 1)
		go func() {
			var seen []string
			rd := bufio.NewReader(hostEnd)
			for {
				line, err := rd.ReadString('\n')
				if err != nil {
					break
				}
				seen = append(seen, strings.TrimSpace(line))
				io.WriteString(hostEnd, `{"sum": 5}`+"\n")
			}
			requests <- seen
		}()
		s := superviseProgram(t, src, allow, func(r *Run) { r.Tool = workerEnd })
		workerEnd.Close()
		hostEnd.SetReadDeadline(time.Now().Add(5 * time.Second))
		seen := <-requests
		return s, seen
	}
	t.Run("a granted call", func(t *testing.T) {
		s, seen := host(t, `print("the tool said", tool.call("add", {"a": 2, "b": 3})["sum"])`, []string{"io", "tool"})
		if s.stdout != "the tool said 5\n" {
			t.Fatalf("stdout %q (stderr %s)", s.stdout, s.stderr)
		}
		if want := `{"args":{"a":2,"b":3},"tool":"add"}`; len(seen) != 1 || seen[0] != want {
			t.Fatalf("the host saw %q, want one request %s", seen, want)
		}
	})
	t.Run("a forged request is output, not a request", func(t *testing.T) {
		s, seen := host(t, `print('{"args":{},"tool":"x"}')`+"\n"+`print(io.read_line())`, []string{"io"})
		if len(seen) != 0 {
			t.Fatalf("the host saw %q on the tool channel, want nothing", seen)
		}
		if !strings.HasPrefix(s.stdout, `{"args":{},"tool":"x"}`+"\n") {
			t.Fatalf("stdout %q: want the forged line printed as output", s.stdout)
		}
	})
	t.Run("no channel", func(t *testing.T) {
		s := superviseProgram(t, `tool.call("add")`, []string{"tool"}, nil)
		wantCode(t, s, codes.E313, "no tool channel")
	})
}

// TestWorkerBounds: a worker that breaks a bound fails its own run, with a
// receipt that names the bound, and the supervisor keeps its own bounds.
func TestWorkerBounds(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the hostile programs use Linux system call numbers through ffi:ctypes")
	}
	ctypes := []string{"io", "ffi:ctypes", "ffi:os", "ffi:subprocess"}
	t.Run("a huge record on the result pipe", func(t *testing.T) {
		s := superviseProgram(t, `c = ffi.module("ctypes")
b = "x" * (4 * 1024 * 1024)
c.syscall("write", 4, b, len(b))
`, ctypes, nil)
		wantCode(t, s, codes.E310, "more than 1048576 bytes on its result pipe")
	})
	t.Run("a record the worker could not have sent", func(t *testing.T) {
		s := superviseProgram(t, `c = ffi.module("ctypes")
r = '{"outcome":{"status":"ok","exit_status":0},"confinement":{"level":"full"}}\n{"outcome":{"status":"root","exit_status":0}}\n'
c.syscall("write", 4, r, len(r))
`, ctypes, nil)
		wantCode(t, s, codes.E310, `unknown status "root"`)
	})
	t.Run("a crash report grown past its bound", func(t *testing.T) {
		s := superviseProgram(t, `c = ffi.module("ctypes")
b = "y" * (1024 * 1024)
c.syscall("write", 2, b, len(b))
c.syscall("kill", c.syscall("getpid").ret, 11)
while True:  # the signal is asynchronous: wait for it here (the run's timeout bounds it)
    pass
`, ctypes, nil)
		wantCode(t, s, codes.E310, "without a result")
		r := s.stored(t)
		fi, err := os.Stat(r.CrashReport)
		if err != nil {
			t.Fatalf("crash report %q: %v", r.CrashReport, err)
		}
		if fi.Size() > MaxCrashReportBytes {
			t.Fatalf("the kept crash report is %d bytes, more than %d", fi.Size(), MaxCrashReportBytes)
		}
		// and it says it was cut: before, it ended in the middle of the
		// program's bytes, saying nothing of the rest.
		kept, err := os.ReadFile(r.CrashReport)
		if want := fmt.Sprintf(crashReportCut, MaxCrashReportBytes); err != nil ||
			!strings.HasSuffix(string(kept), want) {
			t.Fatalf("the kept crash report ends %q (%v); want it to end %q",
				kept[max(0, len(kept)-80):], err, want)
		}
		if strings.Contains(s.stderr, "goroutine ") || strings.Contains(s.stderr, "yyyy") {
			t.Fatalf("the crash report reached standard error: %.200s", s.stderr)
		}
	})
	t.Run("many files in the temporary directory", func(t *testing.T) {
		s := superviseProgram(t, `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
for i in range(10050):
    c.syscall("mkdirat", -100, tmp + "/d" + str(i), 448)
while True:  # until the watch stops it (the run's timeout bounds it)
    pass
`, ctypes, nil)
		wantCode(t, s, codes.E330, "more than 10000 entries were made in the run's private temporary directory")
	})
	t.Run("a huge file in the temporary directory", func(t *testing.T) {
		s := superviseProgram(t, `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
fd = c.syscall("openat", -100, tmp + "/big", 65, 384).ret
c.syscall("ftruncate", fd, 1024 * 1024 * 1024)
while True:  # until the watch stops it (the run's timeout bounds it)
    pass
`, ctypes, nil)
		wantCode(t, s, codes.E330, "temporary directory grew past 512 MB")
	})
	t.Run("the result pipe held open by a descendant", func(t *testing.T) {
		s := superviseProgram(t, `c = ffi.module("ctypes")
c.syscall("fcntl", 4, 2, 0)
r = ffi.module("subprocess").run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"])
print(r.stdout.strip())
`, ctypes, nil)
		if s.rec.Outcome.Status != receipt.StatusOK {
			t.Fatalf("outcome %+v (stderr %s)", s.rec.Outcome, s.stderr)
		}
		if s.wall > 10*time.Second {
			t.Fatalf("the run took %s: the supervisor waited for the descendant", s.wall)
		}
		if pid := strings.TrimSpace(s.stdout); pid != "" && processExists(t, pid) {
			t.Fatalf("the descendant %s outlived the run", pid)
		}
	})
}
