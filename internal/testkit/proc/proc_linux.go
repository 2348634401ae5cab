// Package proc finds a supervisor's workers among the processes of the
// machine, and reads what a process has cost, for the checks and
// benchmarks that look at a running worker from outside.
package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sabline/sabline/internal/wire"
)

// Worker returns the pid of a child of supervisor that was started with
// the worker's hidden argument, and whether there is one now. It reads
// /proc and signals nothing.
func Worker(supervisor int) (int, bool) {
	pids := Workers(supervisor)
	if len(pids) == 0 {
		return 0, false
	}
	return pids[0], true
}

// Workers returns the pids of every child of supervisor started with the
// worker's hidden argument (a pool's workers), lowest first.
func Workers(supervisor int) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		status, err := os.ReadFile(filepath.Join(dir, "status"))
		if err != nil || !strings.Contains(string(status), "\nPPid:\t"+strconv.Itoa(supervisor)+"\n") {
			continue // gone since the glob, or another's child
		}
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if argv := strings.Split(string(cmdline), "\x00"); err == nil && len(argv) > 1 &&
			argv[1] == wire.WorkerArg {
			if pid, err := strconv.Atoi(filepath.Base(dir)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	sort.Ints(pids)
	return pids
}

// CPUTicks returns the clock ticks of CPU (user and system, fields 14
// and 15 of /proc/PID/stat) the process pid has used, all its threads
// together.
func CPUTicks(pid int) (int64, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return ticks, nil
}

// State returns the state of the process pid, field 3 of /proc/PID/stat
// (proc(5)): 'R' running, 'S' sleeping, 'T' stopped by a signal, 'Z' a
// zombie, and so on.
func State(pid int) (byte, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	return f[0][0], nil
}

// Priority returns the priority of the process pid, field 18 of
// /proc/PID/stat (proc(5)): 20 and its nice value under the default
// scheduling policy, lower while a priority is lent to it.
func Priority(pid int) (int, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 16 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return strconv.Atoi(f[15])
}

// statFields returns the fields of /proc/PID/stat from field 3, the
// state, on: at least 13 of them.
func statFields(pid int) ([]string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields are counted after its closing one.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 || f[0] == "" {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return f, nil
}

// ContextSwitches returns the context switches (voluntary and not) the
// threads of the process pid alive now have made, from
// /proc/PID/task/*/status: a thread that has ended is no longer counted.
func ContextSwitches(pid int) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/status", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("/proc/%d/task: no threads", pid)
	}
	var n int64
	for _, task := range tasks {
		status, err := os.ReadFile(task)
		if err != nil {
			continue // the thread ended since the glob
		}
		for line := range strings.Lines(string(status)) {
			name, value, ok := strings.Cut(line, ":")
			if !ok || (name != "voluntary_ctxt_switches" && name != "nonvoluntary_ctxt_switches") {
				continue
			}
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", task, err)
			}
			n += v
		}
	}
	return n, nil
}
