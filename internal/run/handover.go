package run

import (
	"os"

	"github.com/sabline/sabline/codes"
)

// workerMarker is set in every worker's environment (to the run id, or
// "pool"). A process that has it and is asked to start a run is a worker
// whose host program never handed control to Sabline: its main ran again
// instead of the worker, and starting a run from there would start
// another worker, and so on without end.
const workerMarker = "SABLINE_WORKER"

// handOverCall is the call a program that embeds Sabline makes first in
// its main, so that a worker started from it runs as a worker.
const handOverCall = "sabline.HandOver()"

// refuseInWorker is the error of a run started (by what) in a process
// that was started as a worker and did not become one: E310, naming the
// call its host must make.
func refuseInWorker(what string) error {
	if os.Getenv(workerMarker) == "" {
		return nil
	}
	e := codes.Errorf(codes.E310, "%s in a process started as a Sabline worker: this program's main did not call %s first, so it ran again in the worker instead of the run", what, handOverCall)
	e.Do = "Call " + handOverCall + " (or pass the arguments to cli.Main) at the top of main, before anything else; see docs/library.md."
	return e
}

// IsWorker reports whether args (os.Args) start a worker: the hidden first
// argument the supervisor gives it.
func IsWorker(args []string) bool { return len(args) > 1 && args[1] == WorkerArg }
