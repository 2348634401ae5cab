package worker

import (
	"fmt"
	"os"
	"strconv"
)

// passed is what the supervisor passes a worker besides its standard
// streams: the request, result and stop pipes, and, nil where it passed
// none, the tool channel, the broker channel and a pool worker's
// jobs-begun page (wire.Began).
type passed struct {
	req, res, stop, tool, broker, began *os.File
}

// workerPipes opens what the supervisor passed the worker, whose
// descriptors (or, on Windows, handles) it named as the worker's
// arguments, in the order of passed's fields ("-" for one it has not,
// before one it has). Each is closed on exec. The stop pipe is made one
// the Go runtime polls (pollable), so that the goroutine that waits on it
// holds no thread.
func workerPipes(args []string) (passed, error) {
	if len(args) < 3 || len(args) > 6 || args[0] == "-" || args[1] == "-" || args[2] == "-" {
		return passed{}, fmt.Errorf("want the request, result and stop descriptors, then the "+
			"tool channel's, the broker channel's and the jobs-begun page's, got %q", args)
	}
	names := []string{"request", "result", "stop", "tool", "broker", "began"}
	files := make([]*os.File, len(names))
	for i, a := range args {
		if a == "-" {
			continue
		}
		n, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return passed{}, fmt.Errorf("descriptor %q: %w", a, err)
		}
		closeOnExec(uintptr(n))
		if names[i] == "stop" {
			pollable(uintptr(n))
		}
		files[i] = os.NewFile(uintptr(n), names[i])
	}
	return passed{req: files[0], res: files[1], stop: files[2], tool: files[3], broker: files[4],
		began: files[5]}, nil
}
