package worker

import (
	"fmt"
	"os"
	"strconv"
)

// workerPipes opens the request, result and stop pipes, the tool channel
// when there is one and the broker channel when there is one, whose
// descriptors (or, on Windows, handles) the supervisor passed as the
// worker's arguments, in that order ("-" for a tool channel it has not,
// before a broker channel). The stop pipe is made one the Go runtime
// polls (pollable), so that the goroutine that waits on it holds no
// thread.
func workerPipes(args []string) (req, res, stop, tool, brokered *os.File, err error) {
	if len(args) < 3 || len(args) > 5 || args[0] == "-" || args[1] == "-" || args[2] == "-" {
		return nil, nil, nil, nil, nil, fmt.Errorf("want the request, result and stop "+
			"descriptors, then the tool channel's and the broker channel's, got %q", args)
	}
	names := []string{"request", "result", "stop", "tool", "broker"}
	files := make([]*os.File, 5)
	for i, a := range args {
		if a == "-" {
			continue
		}
		n, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return nil, nil, nil, nil, nil, fmt.Errorf("descriptor %q: %w", a, err)
		}
		closeOnExec(uintptr(n))
		if names[i] == "stop" {
			pollable(uintptr(n))
		}
		files[i] = os.NewFile(uintptr(n), names[i])
	}
	return files[0], files[1], files[2], files[3], files[4], nil
}
