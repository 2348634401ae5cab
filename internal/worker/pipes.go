package worker

import (
	"fmt"
	"os"
	"strconv"
)

// workerPipes opens the request and result pipes, and the tool channel
// when there is one, whose descriptors (or, on Windows, handles) the
// supervisor passed as the worker's arguments.
func workerPipes(args []string) (req, res, tool *os.File, err error) {
	if len(args) != 2 && len(args) != 3 {
		return nil, nil, nil, fmt.Errorf(
			"want the request and result descriptors, and the tool channel's, got %q", args)
	}
	names := []string{"request", "result", "tool"}
	files := make([]*os.File, 3)
	for i, a := range args {
		n, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("descriptor %q: %w", a, err)
		}
		closeOnExec(uintptr(n))
		files[i] = os.NewFile(uintptr(n), names[i])
	}
	return files[0], files[1], files[2], nil
}
