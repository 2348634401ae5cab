package linux

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/backlog"
)

// olderABIChildEnv carries an olderABIWorker, in JSON, to the test binary
// re-run as a worker held as a kernel of an older Landlock ABI holds it.
const olderABIChildEnv = "SABLINE_TEST_OLDER_ABI_WORKER"

// olderABIWorker is what a child of TestWorkerAtOlderABIs is held to and
// attempts: the budget (BASE standing for Base), the ABI its ruleset is
// planned and applied at, and what the test holds outside it.
type olderABIWorker struct {
	ABI      int
	Allow    string
	Base     string
	Port     int    // a TCP listener on 127.0.0.1 the test holds
	Abstract string // the name of an abstract Unix listener the test holds
	Before   int    // a stopped process the child continues before it is held
	After    int    // a stopped process it tries to continue once held
}

// olderABIReport is what the child prints: the Result its apply gave (what
// a receipt records) and the errno of each attempt made once held.
type olderABIReport struct {
	Result core.Result
	Err    string
	Errnos map[string]string
}

// atABI returns in with the kernel's Landlock ABI read as abi: the ruleset
// is planned for abi and handles only its rights, which is what a kernel
// of that ABI enforces (Landlock's own compatibility rule).
func atABI(in installer, abi int) installer {
	in.landlockABI = func() (int, error) { return abi, nil }
	return in
}

func init() {
	v := os.Getenv(olderABIChildEnv)
	if v == "" {
		return
	}
	var c olderABIWorker
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	report, err := runOlderABIWorker(c)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	line, _ := json.Marshal(report)
	fmt.Printf("older ABI worker: %s\n", line)
	os.Exit(0)
}

// runOlderABIWorker makes the controls (each attempt before the policy,
// where nothing holds it), applies the policy with every layer at c.ABI,
// and attempts the same with raw calls, as ctypes does under --confine
// strict. What became of each is the parent's to read from outside.
func runOlderABIWorker(c olderABIWorker) (olderABIReport, error) {
	path := func(rel string) string { return filepath.Join(c.Base, rel) }
	items := strings.Split(c.Allow, ",")
	for i := range items {
		items[i] = strings.ReplaceAll(items[i], "BASE", c.Base)
	}
	b, err := budget.Parse(items, "/")
	if err != nil {
		return olderABIReport{}, err
	}
	p := core.OSPolicy(b, core.Options{})
	if err := errors.Join(unix.Truncate(path("control/file"), 0), backlog.Connect(c.Port),
		abstractConnect(c.Abstract), unix.Kill(c.Before, unix.SIGCONT)); err != nil {
		return olderABIReport{}, fmt.Errorf("the controls, before the policy: %w", err)
	}
	o := ApplyOptions{TempDir: path("tmp"), CarveOuts: []guard.CarveOut{{Path: path("guarded")}}}
	r, err := applyWith(p, o, atABI(everyLayer(), c.ABI))
	report := olderABIReport{Result: r, Errnos: map[string]string{}}
	if err != nil {
		report.Err = err.Error()
	}
	for _, a := range []struct {
		name string
		err  error
	}{
		{"truncate guarded", unix.Truncate(path("guarded/secret"), 0)},
		{"truncate outside", unix.Truncate(path("outside/file"), 0)},
		{"truncate in the write grant", unix.Truncate(path("write/file"), 0)},
		{"open to write with O_TRUNC in the write grant", openTrunc(path("write/cut"), unix.O_WRONLY)},
		{"open to read with O_TRUNC in the read grant", openTrunc(path("read/file"), unix.O_RDONLY)},
		{"open for no access (O_ACCMODE) with O_TRUNC outside", openTrunc(path("outside/file"), unix.O_ACCMODE)},
		{"open for no access (O_ACCMODE) with O_TRUNC, guarded", openTrunc(path("guarded/secret"), unix.O_ACCMODE)},
		{"rename into another directory", unix.Rename(path("write/a/x"), path("write/b/x"))},
		{"tcp connect", backlog.Connect(c.Port)},
		{"abstract connect", abstractConnect(c.Abstract)},
		{"signal", unix.Kill(c.After, unix.SIGCONT)},
	} {
		report.Errnos[a.name] = errnoName(a.err)
	}
	return report, nil
}

// openTrunc opens the file at p with the access given (O_RDONLY,
// O_WRONLY) and O_TRUNC.
func openTrunc(p string, access int) error {
	fd, err := unix.Open(p, access|unix.O_TRUNC|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// errnoName is "ok" for nil, and the errno's name otherwise.
func errnoName(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

// abstractConnect connects a Unix socket of its own to the abstract name.
func abstractConnect(name string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + name})
}

// stoppedProcess starts a sleep in a process group of its own and stops
// it, waiting (within testkit.Bound) until its /proc status says so.
func stoppedProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to signal: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for !processStopped(t, cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not stop", cmd.Process.Pid)
		}
		time.Sleep(time.Millisecond)
	}
	return cmd.Process.Pid
}

// processStopped reads, in /proc/PID/status, whether the process is
// stopped. A SIGCONT sent to it wakes it before kill returns.
func processStopped(t *testing.T, pid int) bool {
	t.Helper()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "State:"); ok {
			return strings.HasPrefix(strings.TrimSpace(v), "T")
		}
	}
	t.Fatalf("no State in /proc/%d/status", pid)
	return false
}

// olderABITree makes the files a child attempts, each holding
// olderABIContent, and returns their root.
func olderABITree(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{"control", "guarded", "outside", "write/a", "write/b", "read", "tmp"}
	for _, dir := range dirs {
		if err := os.MkdirAll(filepath.Join(base, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{"control/file", "guarded/secret", "outside/file", "write/file", "write/cut",
		"write/a/x", "read/file"}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(base, f), []byte(olderABIContent), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

const olderABIContent = "sabline\n"

// TestWorkerAtOlderABIs holds a worker, with every layer (Landlock,
// the capability drop, seccomp), as a kernel of each Landlock ABI from 1
// to this kernel's holds it: the ruleset planned for that ABI handles
// only its rights, which is what such a kernel enforces. The worker, a
// re-run copy of the test binary, makes each attempt before the policy
// (the control: it works) and after it, with raw calls; the test reads
// from outside what became of it: a file's size after a truncate, a
// listener's queue after a connect, a stopped process's state in
// /proc/PID/status after a SIGCONT, a file's place after a rename. Where
// an attempt went through that the budget does not allow, the Result (what
// the receipt records) must not be full, and its reason must name it;
// where the budget allows it, it must go through.
func TestWorkerAtOlderABIs(t *testing.T) {
	if _, ok := nativeArch(); !ok {
		t.Skip("no seccomp table for this architecture")
	}
	kernel, err := LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	budgets := []struct {
		allow   string
		granted string // the files the budget may write: "", "write" or "every"
	}{
		{allow: "io"},
		{allow: "io,fs:read:BASE/read"},
		{allow: "io,fs:write:BASE/write", granted: "write"},
		{allow: "io,fs:write:BASE", granted: "every"}, // a write grant above a guarded location
		{allow: "io,fs", granted: "every"},
		{allow: "io,fs:read"},
		{allow: "io,net:127.0.0.1:PORT"},
		{allow: "io,ffi:pathlib", granted: "every"},
		{allow: "io,ffi:socket"},
	}
	for abi := 1; abi <= LandlockMaxABI; abi++ {
		for _, bg := range budgets {
			// No comma in the name: the temporary directory is named
			// after it, and a budget's items are split at commas.
			name := fmt.Sprintf("ABI %d %s", abi, strings.ReplaceAll(bg.allow, ",", "+"))
			t.Run(name, func(t *testing.T) {
				if abi > min(kernel, LandlockMaxABI) {
					t.Skipf("the kernel has Landlock ABI %d", kernel)
				}
				checkOlderABIWorker(t, abi, bg.allow, bg.granted)
			})
		}
	}
}

// checkOlderABIWorker runs one child of TestWorkerAtOlderABIs and judges
// what it did from outside, against the Result it reported.
func checkOlderABIWorker(t *testing.T, abi int, allow, granted string) {
	base := olderABITree(t)
	tcp := backlog.Listen(t, unix.AF_INET, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}, 16)
	sa, err := unix.Getsockname(tcp)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*unix.SockaddrInet4).Port
	abstract := fmt.Sprintf("sabline-older-abi-%d-%d", os.Getpid(), port)
	unixFD := backlog.Listen(t, unix.AF_UNIX, &unix.SockaddrUnix{Name: "@" + abstract}, 16)
	before, after := stoppedProcess(t), stoppedProcess(t)
	allow = strings.ReplaceAll(allow, "PORT", strconv.Itoa(port))
	env, err := json.Marshal(olderABIWorker{ABI: abi, Allow: allow, Base: base, Port: port,
		Abstract: abstract, Before: before, After: after})
	if err != nil {
		t.Fatal(err)
	}
	// Started as a worker of root's is: in a mount namespace of its own,
	// where the mounts are remounted nodev.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), olderABIChildEnv+"="+string(env),
		mountNamespaceEnv+"="+mountNamespaceOwn)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: unix.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("worker: %v\n%s", err, out)
	}
	_, line, ok := strings.Cut(string(out), "older ABI worker: ")
	if !ok {
		t.Fatalf("the worker reported nothing:\n%s", out)
	}
	var rep olderABIReport
	if err := json.Unmarshal([]byte(strings.TrimSpace(line)), &rep); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	r := rep.Result
	t.Logf("at ABI %d under %s: %s (%s): %v", abi, allow, r.Level, r.Reason, rep.Errnos)
	if rep.Err != "" || r.Level == core.None {
		t.Fatalf("the apply at ABI %d: %s, %s", abi, r.Level, rep.Err)
	}

	// The controls, made before the policy: each attempt works.
	size := func(rel string) int64 {
		fi, err := os.Stat(filepath.Join(base, rel))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	if size("control/file") != 0 || processStopped(t, before) {
		t.Fatal("the controls made before the policy did not go through")
	}
	tcpConns, unixConns := backlog.Count(t, tcp), backlog.Count(t, unixFD)
	if tcpConns < 1 || unixConns < 1 {
		t.Fatalf("the controls' connections did not arrive: TCP %d, abstract %d", tcpConns, unixConns)
	}

	// Once held: what went through, read from outside.
	escaped := map[string]bool{
		"a file outside every write grant truncated": size("outside/file") == 0 && granted != "every",
		"a guarded file truncated":                   size("guarded/secret") == 0,
		"a file beneath a read grant truncated":      size("read/file") == 0 && granted != "every",
		"a TCP connection of the worker's own":       tcpConns > 1,
		"an abstract Unix connection":                unixConns > 1,
		"a signal to a process outside the run":      !processStopped(t, after),
	}
	for what, went := range escaped {
		if went && r.Level == core.Full {
			t.Errorf("at ABI %d under %s %s went through (read from outside), and the run is full: %q",
				abi, allow, what, r.Reason)
		}
	}
	if escaped["a guarded file truncated"] &&
		!strings.Contains(r.Reason, "the guarded locations among them") {
		t.Errorf("at ABI %d under %s the kernel let a guarded file be truncated, and the reason does "+
			"not say so: %q", abi, allow, r.Reason)
	}
	if escaped["a file outside every write grant truncated"] &&
		!strings.Contains(r.Reason, "any file the worker's user may write") {
		t.Errorf("at ABI %d under %s the kernel let a file outside every write grant be truncated, "+
			"and the reason does not say so: %q", abi, allow, r.Reason)
	}
	if escaped["a file beneath a read grant truncated"] &&
		!strings.Contains(r.Reason, "opened to be read") {
		t.Errorf("at ABI %d under %s a file beneath a read grant was truncated by opening it to read, "+
			"and the reason does not say so: %q", abi, allow, r.Reason)
	}
	// What `sabline doctor` says a kernel below the truncate right's ABI
	// lacks is what was seen here.
	if lacking := LandlockABIOf(landlockABITruncate).Lacking; (escaped["a guarded file truncated"] ||
		escaped["a file outside every write grant truncated"]) &&
		!strings.Contains(lacking, "any file the worker's user may write") {
		t.Errorf("at ABI %d any file may be truncated, and the doctor says ABI %d lacks only %q", abi,
			landlockABITruncate, lacking)
	}
	// The positive control: what the budget allows goes through, as the
	// language truncates (fs.write opens to write with O_TRUNC). By path
	// (truncate(2)) from the truncate right's ABI only: below it the
	// filter refuses the call, which the kernel checks against no rule.
	if granted != "" && size("write/cut") != 0 {
		t.Errorf("at ABI %d under %s a file the budget may write was not truncated: %s", abi, allow,
			rep.Errnos["open to write with O_TRUNC in the write grant"])
	}
	if cut := size("write/file") == 0; granted != "" && cut != (abi >= landlockABITruncate) {
		t.Errorf("at ABI %d under %s a file the budget may write truncated by path: %v (%s), want %v",
			abi, allow, cut, rep.Errnos["truncate in the write grant"], abi >= landlockABITruncate)
	}
	// No rule grants refer, and below its ABI the kernel refuses every
	// such rename: a file is never renamed into another directory.
	if _, err := os.Stat(filepath.Join(base, "write/b/x")); err == nil {
		t.Errorf("at ABI %d under %s a file was renamed into another directory", abi, allow)
	}
	if granted != "" && rep.Errnos["rename into another directory"] != "EXDEV" {
		t.Errorf("at ABI %d under %s a rename into another directory of a write grant: %s, want EXDEV",
			abi, allow, rep.Errnos["rename into another directory"])
	}
	// Every budget here is held whole at every ABI: from the truncate
	// right's by Landlock, below it by the filter's refusals beside it
	// (Held.SeccompTruncate), which Assess credits.
	if r.Level != core.Full {
		t.Errorf("at ABI %d under %s the run is %s: %q", abi, allow, r.Level, r.Reason)
	}
}
