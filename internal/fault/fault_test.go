package fault

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// TestParseFaults checks the SABLINE_FAULT_INJECT grammar.
func TestParseFaults(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    []receipt.FaultOp
		wantErr string // part of the E311 message; "" when the value is good
	}{
		{name: "empty", value: "", want: nil},
		{name: "only separators", value: " ; ;", want: nil},
		{name: "one read", value: "read=/etc/hostname", want: []receipt.FaultOp{{Op: "read", Target: "/etc/hostname"}}},
		{name: "every operation", value: "read=/a; write=/b ;connect=127.0.0.1:9;exec=/bin/true;signal=42",
			want: []receipt.FaultOp{{Op: "read", Target: "/a"}, {Op: "write", Target: "/b"}, {Op: "connect", Target: "127.0.0.1:9"}, {Op: "exec", Target: "/bin/true"}, {Op: "signal", Target: "42"}}},
		{name: "signal names", value: "signal=7:TERM;signal=7:sigint;signal=7:HUP;signal=7:KILL;signal=7:0",
			want: []receipt.FaultOp{{Op: "signal", Target: "7:TERM"}, {Op: "signal", Target: "7:sigint"}, {Op: "signal", Target: "7:HUP"}, {Op: "signal", Target: "7:KILL"}, {Op: "signal", Target: "7:0"}}},
		{name: "ipv6 connect", value: "connect=[::1]:80", want: []receipt.FaultOp{{Op: "connect", Target: "[::1]:80"}}},
		{name: "a target holding =", value: "write=/tmp/a=b", want: []receipt.FaultOp{{Op: "write", Target: "/tmp/a=b"}}},

		{name: "no =", value: "read", wantErr: `"read" is not OP=TARGET`},
		{name: "empty target", value: "read=", wantErr: `"read=" is not OP=TARGET`},
		{name: "unknown operation", value: "mkdir=/x", wantErr: `unknown operation "mkdir"`},
		{name: "operation in upper case", value: "READ=/x", wantErr: `unknown operation "READ"`},
		{name: "connect without a port", value: "connect=localhost", wantErr: "want HOST:PORT"},
		{name: "signal to no number", value: "signal=init", wantErr: "want a positive PID"},
		{name: "signal to 0", value: "signal=0", wantErr: "want a positive PID"},
		{name: "signal to a group", value: "signal=-1", wantErr: "want a positive PID"},
		{name: "unknown signal", value: "signal=5:STOP", wantErr: `unknown signal "STOP"`},
		{name: "a bad item after good ones", value: "read=/a;exec", wantErr: `"exec" is not OP=TARGET`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.value)
			if tt.wantErr != "" {
				testkit.WantError(t, err, codes.E311, "", Env, tt.wantErr)
				if got != nil {
					t.Errorf("a malformed value gave %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.value, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.value, got, tt.want)
			}
		})
	}
}

// TestRunFaultsUnconfined attempts every operation on things the test
// made, with no confinement layer: each goes through, or fails for its
// own reasons, and none is counted as refused.
func TestRunFaultsUnconfined(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the signal and exec cases are written for unix")
	}
	dir := testkit.Scratch(t)
	testkit.WriteFile(t, filepath.Join(dir, "in.txt"), "x")
	testkit.WriteFile(t, filepath.Join(dir, "empty.txt"), "")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	lines := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		lines <- line
	}()

	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- sleeper.Wait() }()
	t.Cleanup(func() { _ = sleeper.Process.Kill() }) // it may have ended already

	tests := []struct {
		op        receipt.FaultOp
		want      string
		wantErrno string
	}{
		{op: receipt.FaultOp{Op: "read", Target: filepath.Join(dir, "in.txt")}, want: receipt.FaultWent},
		{op: receipt.FaultOp{Op: "read", Target: filepath.Join(dir, "empty.txt")}, want: receipt.FaultWent},
		{op: receipt.FaultOp{Op: "write", Target: filepath.Join(dir, "out.txt")}, want: receipt.FaultWent},
		{op: receipt.FaultOp{Op: "connect", Target: ln.Addr().String()}, want: receipt.FaultWent},
		{op: receipt.FaultOp{Op: "exec", Target: filepath.Join(dir, "missing")}, want: receipt.FaultFailed, wantErrno: "ENOENT"},
		{op: receipt.FaultOp{Op: "read", Target: filepath.Join(dir, "missing")}, want: receipt.FaultFailed, wantErrno: "ENOENT"},
		{op: receipt.FaultOp{Op: "signal", Target: strconv.Itoa(sleeper.Process.Pid)}, want: receipt.FaultWent},
	}
	ops := make([]receipt.FaultOp, len(tests))
	for i, tt := range tests {
		ops[i] = tt.op
	}
	got := Attempt(ops, errnoOnly)
	if len(got) != len(tests) {
		t.Fatalf("%d attempts for %d operations", len(got), len(tests))
	}
	for i, tt := range tests {
		a := got[i]
		if a.FaultOp != tt.op || a.Result != tt.want || a.Errno != tt.wantErrno || len(a.Layers) != 0 {
			t.Errorf("%s=%s: %+v, want result %s, errno %q, no layers", tt.op.Op, tt.op.Target, a, tt.want, tt.wantErrno)
		}
		if (a.Error == "") != (tt.want == receipt.FaultWent) {
			t.Errorf("%s=%s: error %q with result %s", tt.op.Op, tt.op.Target, a.Error, a.Result)
		}
	}
	if err := Refused(got); err != nil {
		t.Errorf("Refused = %v, want nil: nothing was refused", err)
	}

	data, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	if err != nil || !strings.Contains(string(data), "fault-injection") {
		t.Errorf("the written file holds %q (%v)", data, err)
	}
	select {
	case line := <-lines:
		if line != "sabline fault injection\n" {
			t.Errorf("the listener read %q", line)
		}
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Error("the listener accepted no connection")
	}
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("sleep ended with %v, want a signal", err)
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("sleep ended with %v, want killed by %v (the default signal)", ee, syscall.SIGTERM)
		}
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Error("sleep did not end on the signal")
	}
}

// TestErrnoName checks the names errors are recorded under.
func TestErrnoName(t *testing.T) {
	tests := []struct {
		name string
		e    syscall.Errno
		want string
	}{
		{name: "EACCES", e: syscall.EACCES, want: "EACCES"},
		{name: "EPERM", e: syscall.EPERM, want: "EPERM"},
		{name: "ENOSYS", e: syscall.ENOSYS, want: "ENOSYS"},
		{name: "unnamed", e: syscall.Errno(4095), want: "errno 4095"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lang.ErrnoName(tt.e); got != tt.want {
				t.Errorf("ErrnoName(%d) = %q, want %q", tt.e, got, tt.want)
			}
		})
	}
}

// errnoOnly names an error's errno and no layer: a judge for attempts
// made with nothing applied.
func errnoOnly(err error) (string, []string) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return "", nil
	}
	return lang.ErrnoName(errno), nil
}
