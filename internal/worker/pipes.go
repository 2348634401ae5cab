package worker

import (
	"fmt"
	"os"
	"strconv"
)

// workerPipes opens the request and result pipes, the tool channel when
// there is one and the broker channel when there is one, whose
// descriptors (or, on Windows, handles) the supervisor passed as the
// worker's arguments, in that order ("-" for a tool channel it has not,
// before a broker channel).
func workerPipes(args []string) (req, res, tool, brokered *os.File, err error) {
	if len(args) < 2 || len(args) > 4 || args[0] == "-" || args[1] == "-" {
		return nil, nil, nil, nil, fmt.Errorf("want the request and result descriptors, then "+
			"the tool channel's and the broker channel's, got %q", args)
	}
	names := []string{"request", "result", "tool", "broker"}
	files := make([]*os.File, 4)
	for i, a := range args {
		if a == "-" {
			continue
		}
		n, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("descriptor %q: %w", a, err)
		}
		closeOnExec(uintptr(n))
		files[i] = os.NewFile(uintptr(n), names[i])
	}
	return files[0], files[1], files[2], files[3], nil
}
