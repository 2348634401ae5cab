package runtime

import (
	"fmt"
	"os"
	"strconv"
)

// workerPipes opens the request and result pipes whose descriptors (or, on
// Windows, handles) the supervisor passed as the worker's two arguments.
func workerPipes(args []string) (req, res *os.File, err error) {
	if len(args) != 2 {
		return nil, nil, fmt.Errorf("want the request and result descriptors, got %q", args)
	}
	var fds [2]uintptr
	for i, a := range args {
		n, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("descriptor %q: %w", a, err)
		}
		fds[i] = uintptr(n)
		closeOnExec(fds[i])
	}
	return os.NewFile(fds[0], "request"), os.NewFile(fds[1], "result"), nil
}
