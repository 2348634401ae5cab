// Command sabline runs a Sabline program under a budget, confined by the
// operating system where it can be, and leaves a receipt of every run.
//
//	sabline [flags] PROGRAM.vel [-- ARGS...]   run a program
//	sabline audit [--json] PROGRAM.vel         its declared budget and OS policy
//	sabline os-policy [--allow ...] [--json]   the OS policy a budget derives
//	sabline os-policy --enforces [--json]      what each system's kernel holds
//	sabline doctor [--json]                    what this machine offers
//	sabline eval DIR [--allow ...]             grade a directory of programs
//	sabline receipts list|show|diff            read receipts
//	sabline report [--md F] [--html F] R.json  a kernel report for a release
//	sabline report diff OLD.json NEW.json      what changed; exit 1 on a regression
//	sabline serve --import-root DIR            the HTTP door (docs/serve.md)
//	sabline mcp --import-root DIR              the MCP door (docs/mcp.md)
//	sabline modules                            the registered ffi host modules
//	sabline version                            the version and build
//
// `sabline help` prints the flags.
package main

import (
	"os"

	"github.com/sabline/sabline/cli"
	"github.com/sabline/sabline/internal/phase"
	// The code mapped at start: this process is started often.
	_ "github.com/sabline/sabline/internal/prefault"
)

func main() {
	status := cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	phase.Mark("exit")
	phase.Flush()
	os.Exit(status)
}
