package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/run"
)

// execDoor runs the sabline-door at path with args and the build it must
// be: in this process's place where the system can do that and the
// streams are this process's own (execInPlace), else as a child whose
// exit status it returns as an *exitStatus, with SIGINT and SIGTERM
// passed on to it (SIGINT only where this process was not started
// ignoring it: run.Heeded).
func execDoor(path string, args []string, build string, stdin io.Reader,
	stdout, stderr io.Writer) error {
	if stdin == os.Stdin && stdout == os.Stdout && stderr == os.Stderr {
		if err := execInPlace(path, args, doorEnv(build)); !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Env = doorEnv(build)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, run.Heeded(os.Interrupt, syscall.SIGTERM)...)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			cmd.Process.Signal(s)
		case err := <-done:
			if ee, ok := errors.AsType[*exec.ExitError](err); ok {
				return &exitStatus{status: max(ee.ExitCode(), codes.ExitFailed)} // -1: ended by a signal
			}
			return err
		}
	}
}
