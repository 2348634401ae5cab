package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sabline/sabline/cli/internal/cmdline"
	"github.com/sabline/sabline/codes"
)

// The doors, sabline serve and sabline mcp, are linked into the
// sabline-door command alone (cli/doorcmd, cmdline.Doors). Here, without
// them, such a command, or its help, is run by sabline-door: found beside
// this executable, else on PATH, and refused unless it is this build.

// isDoor reports whether the command name is a door's.
func isDoor(name string) bool { return name == "serve" || name == "mcp" }

// doorCmd runs the door command cmd: in this process when it links the
// doors, else by sabline-door in its place (startDoor).
func doorCmd(cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if cmdline.Linked != nil {
		return cmdline.Linked.Run(cmd, args, stdin, stdout, stderr)
	}
	return startDoor(append([]string{cmd}, args...), stdin, stdout, stderr)
}

// doorFlagSet is helpTopic.flags of the door command cmd: its flag set
// where the doors are linked, nil here (its help is sabline-door's).
func doorFlagSet(cmd string) func() *flag.FlagSet {
	return func() *flag.FlagSet {
		if cmdline.Linked == nil {
			return nil
		}
		return cmdline.Linked.FlagSet(cmd)
	}
}

// startDoor runs sabline-door with args in place of this command and
// returns its exit status, or E338 when there is none of this build.
func startDoor(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	path, err := cmdline.Beside(cmdline.DoorName)
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E338, "sabline %s: %w", args[0], err), "")
	}
	if err := execDoor(path, args, cmdline.Build(), stdin, stdout, stderr); err != nil {
		var exit *exitStatus
		if errors.As(err, &exit) {
			return exit.status
		}
		return cmdline.Report(stderr, codes.Errorf(codes.E338, "sabline %s: start %s: %w", args[0],
			path, err), "")
	}
	return 0
}

// exitStatus is the exit status of a sabline-door started as a child
// (execDoor, where the system cannot start it in this process's place).
type exitStatus struct{ status int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.status) }

// doorEnv is this process's environment for sabline-door, with the build
// it must be (cmdline.BuildEnv) in place of any the caller set.
func doorEnv(build string) []string {
	env := []string{cmdline.BuildEnv + "=" + build}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, cmdline.BuildEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}
