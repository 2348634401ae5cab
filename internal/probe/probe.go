// Package probe measures what a confined worker can do on this machine:
// it starts one worker under the empty budget, confined as a default run
// is, and has it attempt the fault-injection operations (package
// internal/fault) against targets the probe made itself. `sabline doctor`
// and `sabline eval --probe` print its report; nothing it touches is
// anything but its own.
package probe

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// Report is what a confined worker under the default budget could and
// could not do, measured with the fault-injection hook.
type Report struct {
	Confinement core.Result            `json:"confinement"`
	Attempts    []receipt.FaultAttempt `json:"attempts"`
	Outcome     receipt.Outcome        `json:"outcome"`
}

// defaultProgram is what probes run: a program that does nothing, so that
// everything observed is the hook's and the worker's own.
const defaultProgram = "pass\n"

// Run starts a worker under the empty budget, confined as a
// default run is (or not, with mode core.ModeOff), under a memory limit of
// memoryMB (none for 0), and has it attempt the five fault-injection
// operations against targets the probe itself made: a scratch file to
// read, a scratch path to write, a loopback listener to connect to, a
// program to start, and a process to signal. Nothing it touches is
// anything but its own. With a memory limit, the report's confinement
// says what holds it here (its gap of core.LayerMemory).
func Run(mode core.Mode, memoryMB int) (*Report, error) {
	dir, err := os.MkdirTemp("", "sabline-probe-")
	if err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	defer os.RemoveAll(dir)
	prog := filepath.Join(dir, "probe.vel")
	secret := filepath.Join(dir, "read-me.txt")
	for path, data := range map[string]string{prog: defaultProgram, secret: "probe\n"} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("probe: loopback listener: %w", err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	target, err := harmlessProgram()
	if err != nil {
		return nil, err
	}
	sleeper := sleepCommand()
	if err := sleeper.Start(); err != nil {
		return nil, fmt.Errorf("probe: start a process to signal (sleep, on PATH or in /usr/bin "+
			"or /bin): %w", err)
	}
	defer func() {
		_ = sleeper.Process.Kill() // it may be gone already: that is the signal arriving
		_ = sleeper.Wait()
	}()
	ops := []receipt.FaultOp{
		{Op: "read", Target: secret},
		{Op: "write", Target: filepath.Join(dir, "written.txt")},
		{Op: "connect", Target: ln.Addr().String()},
		{Op: "exec", Target: target},
		{Op: "signal", Target: fmt.Sprint(sleeper.Process.Pid)},
	}
	// The probe reports what is held, however little: it asks for level
	// none. A run that asks for no level is held to this machine's, and
	// a layer that failed to install would refuse it before the attempts
	// that show what the other layers hold.
	rec := run.Supervise(run.Run{
		Program: prog, Budget: budget.Budget{}, Cwd: dir, Confine: mode, Require: core.None,
		Faults:      ops,
		MaxMemoryMB: memoryMB, Timeout: 30 * time.Second, Stdin: bytes.NewReader(nil),
		Stdout: io.Discard, Stderr: io.Discard,
	})
	return &Report{
		Confinement: rec.Confinement(),
		Attempts:    rec.Faults,
		Outcome:     rec.Outcome,
	}, nil
}

// harmlessProgram is a program that exits at once doing nothing: true(1),
// or else this binary's own version command.
func harmlessProgram() (string, error) {
	if p, err := exec.LookPath("true"); err == nil {
		return p, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("probe: no program to start: %w", err)
	}
	return p, nil
}
