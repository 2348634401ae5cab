// Package fault is the worker's fault injection: operations outside the
// budget (read, write, connect, exec, signal) that the worker attempts
// from Go, not from the program, once its policy is applied and before the
// program's first statement. The operator asks for them in [Env]; the
// receipt records each attempt and whether a confinement layer refused
// it, so that the conformance suites can watch the kernel hold what the
// language never got to see. A program cannot set [Env]: the supervisor
// reads it from the operator's environment and hands the operations over
// in the worker's request.
package fault

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// Env is the environment variable that asks the worker to attempt,
// from Go and not from the program, operations outside the budget, after
// the policy is applied and before the first statement. It is read by the
// supervisor from the operator's environment only; a program cannot set it.
//
// Its value is a list of OP=TARGET separated by semicolons:
//
//	read=PATH         read the file PATH
//	write=PATH        create PATH and write a line to it
//	connect=HOST:PORT open a TCP connection and write a line
//	exec=PATH         start PATH with no arguments and wait for it
//	signal=PID[:SIG]  send SIG (default TERM; also INT, HUP, USR1, USR2, KILL, 0) to PID
const Env = "SABLINE_FAULT_INJECT"

var faultSignals = map[string]syscall.Signal{
	"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP,
	"KILL": syscall.SIGKILL, "0": syscall.Signal(0),
}

// Parse reads a SABLINE_FAULT_INJECT value. A malformed value is E311.
func Parse(s string) ([]receipt.FaultOp, error) {
	var ops []receipt.FaultOp
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		op, target, ok := strings.Cut(part, "=")
		if !ok || target == "" {
			return nil, codes.Errorf(codes.E311, "%s: %q is not OP=TARGET", Env, part)
		}
		switch op {
		case "read", "write", "exec":
		case "connect":
			if _, _, err := net.SplitHostPort(target); err != nil {
				return nil, codes.Errorf(codes.E311, "%s: connect=%s: want HOST:PORT", Env, target)
			}
		case "signal":
			pid, sig, _ := strings.Cut(target, ":")
			if n, err := strconv.Atoi(pid); err != nil || n <= 0 {
				return nil, codes.Errorf(codes.E311,
					"%s: signal=%s: want a positive PID (a process you started)", Env, target)
			}
			if _, ok := signalByName(sig); !ok {
				return nil, codes.Errorf(codes.E311, "%s: signal=%s: unknown signal %q", Env, target, sig)
			}
		default:
			return nil, codes.Errorf(codes.E311,
				"%s: unknown operation %q (read, write, connect, exec or signal)", Env, op)
		}
		ops = append(ops, receipt.FaultOp{Op: op, Target: target})
	}
	return ops, nil
}

func signalByName(s string) (syscall.Signal, bool) {
	if s == "" {
		return syscall.SIGTERM, true
	}
	if sig, ok := faultSignals[strings.TrimPrefix(strings.ToUpper(s), "SIG")]; ok {
		return sig, true
	}
	return extraSignal(s)
}

// Attempt attempts each operation and says what became of it. judge names
// an error's errno and the confinement layers that may have refused with
// it (the worker's lang.Config.Refusal with the layers applied): an
// attempt it gives layers for is refused, any other failure is the
// operation's own.
func Attempt(ops []receipt.FaultOp, judge func(error) (string, []string)) []receipt.FaultAttempt {
	out := make([]receipt.FaultAttempt, len(ops))
	for i, op := range ops {
		a := receipt.FaultAttempt{FaultOp: op, Result: receipt.FaultWent}
		if err := doFault(op); err != nil {
			a.Result, a.Error = receipt.FaultFailed, err.Error()
			var by []string
			if a.Errno, by = judge(err); len(by) > 0 {
				a.Result, a.Layers = receipt.FaultRefused, by
			}
		}
		out[i] = a
	}
	return out
}

func doFault(op receipt.FaultOp) error {
	switch op.Op {
	case "read":
		f, err := os.Open(op.Target)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Read(make([]byte, 1))
		if err != nil && err != io.EOF {
			return err
		}
		return nil
	case "write":
		return os.WriteFile(op.Target, []byte("written by the sabline fault-injection hook\n"), 0o644)
	case "connect":
		c, err := net.DialTimeout("tcp", op.Target, 5*time.Second)
		if err != nil {
			return err
		}
		_, err = c.Write([]byte("sabline fault injection\n"))
		if cerr := c.Close(); err == nil {
			err = cerr
		}
		return err
	case "exec":
		return exec.Command(op.Target).Run()
	case "signal":
		pid, sig, _ := strings.Cut(op.Target, ":")
		n, _ := strconv.Atoi(pid)
		s, _ := signalByName(sig)
		return sendSignal(n, s)
	}
	return fmt.Errorf("unknown fault operation %q", op.Op)
}

// Refused returns the refused attempts as one E319, or nil.
func Refused(attempts []receipt.FaultAttempt) error {
	var parts []string
	for _, a := range attempts {
		if a.Result == receipt.FaultRefused {
			parts = append(parts,
				fmt.Sprintf("%s %s (%s, refused by %s)", a.Op, a.Target, a.Errno, lang.LayerList(a.Layers)))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return codes.Errorf(codes.E319, "the kernel refused the fault-injection hook's %s",
		strings.Join(parts, "; "))
}
