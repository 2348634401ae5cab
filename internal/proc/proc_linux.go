// Package proc finds a supervisor's worker among the processes of the
// machine, for the checks that look at a running worker from outside.
package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sabline/sabline/run"
)

// Worker returns the pid of the child of supervisor that was started with
// the worker's hidden argument, and whether there is one now. It reads
// /proc and signals nothing.
func Worker(supervisor int) (int, bool) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		status, err := os.ReadFile(filepath.Join(dir, "status"))
		if err != nil || !strings.Contains(string(status), "\nPPid:\t"+strconv.Itoa(supervisor)+"\n") {
			continue // gone since the glob, or another's child
		}
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if argv := strings.Split(string(cmdline), "\x00"); err == nil && len(argv) > 1 && argv[1] == run.WorkerArg {
			pid, err := strconv.Atoi(filepath.Base(dir))
			return pid, err == nil
		}
	}
	return 0, false
}
