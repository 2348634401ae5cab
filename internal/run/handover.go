package run

import (
	"os"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/wire"
)

// handOverCall is the call a program that embeds Sabline makes first in
// its main, so that a worker started from it runs as a worker.
const handOverCall = "sabline.HandOver()"

// refuseInWorker is the error of a run started (by what) in a process
// that was started as a worker and did not become one: E310, naming the
// call its host must make.
func refuseInWorker(what string) error {
	if os.Getenv(wire.WorkerMarker) == "" {
		return nil
	}
	e := codes.Errorf(codes.E310, "%s in a process started as a Sabline worker: this program's "+
		"main did not call %s first, so it ran again in the worker instead of the run",
		what, handOverCall)
	e.Do = "Call " + handOverCall + " (or pass the arguments to cli.Main) at the top of main, " +
		"before anything else; see docs/library.md."
	return e
}

// IsWorker reports whether args (os.Args) start a worker: the hidden first
// argument the supervisor gives it.
func IsWorker(args []string) bool { return len(args) > 1 && args[1] == wire.WorkerArg }
