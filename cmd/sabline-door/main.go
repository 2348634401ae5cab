// Command sabline-door is the sabline command with its doors: sabline
// serve, the HTTP door (docs/serve.md), and sabline mcp, the MCP door on
// standard input and output (docs/mcp.md). It is built beside sabline,
// which starts it in its place for those two commands, so that no other
// sabline process links the HTTP server and the MCP SDK:
//
//	go build -o DIR/ ./cmd/sabline ./cmd/sabline-door
//	DIR/sabline serve --import-root ROOT
//
// Every other command line it runs as sabline does.
package main

import (
	"os"

	"github.com/sabline/sabline/cli/doorcmd"
	// The code mapped at start: this process is started often.
	_ "github.com/sabline/sabline/internal/prefault"
)

func main() {
	os.Exit(doorcmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
