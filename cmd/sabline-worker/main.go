// Command sabline-worker is the worker of a command-line run in a binary
// of its own: it links what a worker runs (the language, confinement, the
// worker's records) and none of what the sabline command links beside
// them (the doors' HTTP and MCP stacks, the reports), so that its process
// initialises less at start. The sabline command starts it in place of
// itself when it lies beside the sabline executable and is the same build
// (see package run); it is never looked for on PATH. A pool's workers,
// and those of a program that embeds Sabline, are started as before.
// Started any other way, it says so and exits 2.
//
// Build both with one build stamp, so that sabline knows them as one
// build (docs/platforms.md, "The worker's executable"):
//
//	stamp=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
//	go build -ldflags "-X main.buildStamp=$stamp" -o DIR/ ./cmd/sabline ./cmd/sabline-worker
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/sabline/sabline/internal/phase"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/internal/worker"
)

// buildStamp names the build this binary was made in, set at link time
// (-X main.buildStamp=...): the sabline command reads it, with the rest
// of this binary's build settings, before it starts this binary as its
// worker. Nothing here reads it.
//
//lint:ignore U1000 set by the linker, read from the build settings
var buildStamp string

// usage is what it says when it is not started by sabline.
const usage = "sabline-worker is started by sabline as the worker of a run; " +
	"run programs with sabline (sabline --help)"

func main() {
	phase.Mark("main")
	if len(os.Args) < 2 || os.Args[1] != wire.WorkerArg {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	// As in the sabline command, whose worker this is: a write to a
	// standard stream whose reader went away fails with EPIPE rather than
	// ending the process with SIGPIPE.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	status := worker.Main(os.Args[2:])
	phase.Mark("exit")
	phase.Flush()
	os.Exit(status)
}
