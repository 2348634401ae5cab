package doorcmd

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/internal/brokenpipe"
)

// mcpCmd: sabline mcp --import-root DIR [run flags]: the MCP door on
// standard input and output, until its input ends or SIGINT, SIGTERM or
// SIGHUP, after which it reads no more, refuses the runs still waiting
// and answers those in flight once they end (door.Server.ServeStream).
// Standard output is the protocol's: everything else goes to standard
// error.
func mcpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A client that goes away fails the next answer, not the process: the
	// runs under way finish with their receipts. The store agent, which
	// --store-agent may name, finds SIGPIPE at its default.
	brokenpipe.Catch()
	fs, f := mcpFlagSet()
	positional, rest, err := cmdline.ParseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr) // --help serves no protocol: its help is output
	}
	if extra := append(positional, rest...); len(extra) > 0 {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "sabline mcp takes no program (got %s): clients send them",
				strings.Join(extra, " ")), "")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "working directory: %w", err), "")
	}
	o, err := f.options("mcp", cwd)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	stderr, _, endLog := startLog(stderr, "mcp", false)
	defer endLog()
	enterNodev(stderr, "mcp")
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mcpGCPercent)
	}
	// A client may start a server for each of its sessions: none holds a
	// worker before its first run.
	o.OnDemand = true
	pool, runner, err := startPool(o)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	defer pool.Close()
	if _, err := keepReceipts(o, false); err != nil {
		return cmdline.Report(stderr, err, "")
	}
	srv, err := door.New(door.Config{
		Runner:  runner,
		Workers: o.Workers,
		Queue:   o.Queue,
		Logf:    doorLog(stderr, "mcp"),
	})
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "mcp: %w", err), "")
	}
	fmt.Fprintf(stderr, "sabline mcp: %s\n", codes.TerminalSafe(holdServer(o)))
	// A hangup (the client's terminal gone) stops it as SIGTERM does: the
	// runs in flight end with their receipts, not cut off unfinished.
	ctx, _, release := stopOnSignals("mcp", stderr, srv.Halt,
		os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer release()
	fmt.Fprintf(stderr,
		"sabline mcp: serving on standard input and output (import root %s, budget %s, %d workers, "+
			"queue %d)\n",
		codes.TerminalSafe(o.ImportRoot), codes.TerminalSafe(ceilingText(o.Ceiling)), o.Workers, o.Queue)
	if err := srv.ServeStream(ctx, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "sabline mcp: %s\n", codes.TerminalSafe(err.Error()))
		return codes.ExitFailed
	}
	return 0
}

// mcpGCPercent is the MCP door's collector pace (GOGC) unless its
// environment sets one. The MCP SDK decodes each message it reads with a
// buffer of 32 KiB or more, three on a tool call, so the door's garbage
// grows fast while what it keeps stays small: at Go's default of 100 the
// collector ran every few dozen calls and took a sixth of the server's
// processor time. At 400 the heap may grow to five times what is live
// before a collection (bench/README.md, "The MCP door's collector").
// The HTTP door keeps the default: its garbage is a fraction of this,
// and at 400 it took no more runs a second.
const mcpGCPercent = 400

// mcpFlagSet is the flag set of sabline mcp, and where it puts them:
// the one table of its flags (its help and docs/mcp.md are checked
// against it).
func mcpFlagSet() (*flag.FlagSet, *doorFlags) {
	fs := cmdline.NewFlagSet("mcp")
	f := &doorFlags{}
	f.register(fs)
	return fs, f
}
