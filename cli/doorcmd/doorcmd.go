// Package doorcmd is the command line of Sabline's doors: sabline serve,
// the HTTP door (docs/serve.md), and sabline mcp, the MCP door on
// standard input and output (docs/mcp.md).
//
// # A command of their own
//
// The doors need Go's HTTP server and the MCP SDK, whose packages cost
// every process that links them their initialisation at start. Only the
// sabline-door command (cmd/sabline-door) links this package: its Main is
// cli.Main with the doors in it. The sabline command, and each worker it
// starts for a run, links none of it; its serve and mcp start the
// sabline-door beside it (or on PATH) in its place, and that command
// refuses to run for a sabline of another build (E338).
//
// A program that embeds Sabline with host modules of its own, and wants
// its doors, calls this Main from its main where it would call cli.Main:
//
//	func main() {
//		lang.RegisterModule("geo", geoModule)
//		sabline.HandOver()
//		os.Exit(doorcmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
//	}
package doorcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/cli"
	"github.com/sabline/sabline/cli/internal/cmdline"
	"github.com/sabline/sabline/codes"
)

// Main runs the command line args, as cli.Main does, with the doors
// linked, and returns the exit status. Started by a sabline of another
// build (cmdline.BuildEnv, cmdline.SameBuild), it runs nothing and
// returns E338's status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if want, ok := os.LookupEnv(cmdline.BuildEnv); ok {
		if have := build(); !cmdline.SameBuild(want, have) {
			return cmdline.Report(stderr, codes.Errorf(codes.E338,
				"%s is build %q, and the sabline that started it is build %q", cmdline.DoorName, have,
				want), "")
		}
		os.Unsetenv(cmdline.BuildEnv) // the workers it starts are not asked
	}
	cmdline.Linked = doors{}
	return cli.Main(args, stdin, stdout, stderr)
}

// build is cmdline.Build, which a test replaces.
var build = cmdline.Build

// doors are this package's commands, as cmdline.Doors.
type doors struct{}

func (doors) Run(cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch cmd {
	case "serve":
		return serveCmd(args, stdout, stderr)
	case "mcp":
		return mcpCmd(args, stdin, stdout, stderr)
	}
	panic(fmt.Sprintf("doorcmd: no door command %q", cmd))
}

func (doors) FlagSet(cmd string) *flag.FlagSet {
	switch cmd {
	case "serve":
		fs, _ := serveFlagSet()
		return fs
	case "mcp":
		fs, _ := mcpFlagSet()
		return fs
	}
	panic(fmt.Sprintf("doorcmd: no door command %q", cmd))
}

// parseFailed reports an error of cmdline.ParseInterspersed and returns
// the exit status: the command's own help (cli's, with the doors'
// flags) on standard output for --help, E301 otherwise.
func parseFailed(err error, stdout, stderr io.Writer) int {
	if h, ok := errors.AsType[*cmdline.HelpRequest](err); ok {
		return cli.Main([]string{"help", h.Command}, nil, stdout, stderr)
	}
	return cmdline.Report(stderr, err, "")
}

// checkModules refuses a budget given by --allow, or a tenant's, that
// grants a host module this binary does not have.
func checkModules(b budget.Budget) error { return sabline.CheckModules("--allow", b) }
