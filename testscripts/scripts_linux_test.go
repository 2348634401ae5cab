package testscripts

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/runtime"
)

// landlockABI is the Landlock ABI version this kernel offers, 0 for none.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// cmdKillWorker: killworker
//
// sends SIGKILL to the worker of the one sabline the script started in
// the background: the child process of that sabline whose first argument
// is the hidden worker argument. It waits up to ten seconds for the worker
// to appear and signals nothing else.
func cmdKillWorker(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: killworker")
	}
	bg := ts.BackgroundCmds()
	if len(bg) != 1 {
		ts.Fatalf("killworker: want one background command, have %d", len(bg))
	}
	supervisor := bg[0].Process.Pid
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pid, ok := workerOf(supervisor); ok {
			ts.Check(unix.Kill(pid, unix.SIGKILL))
			return
		}
	}
	ts.Fatalf("killworker: no worker of process %d appeared", supervisor)
}

// workerOf finds, in /proc, the child of parent started with the hidden
// worker argument.
func workerOf(parent int) (int, bool) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil || parentOf(dir) != parent {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil {
			continue // it has exited since the glob
		}
		if argv := bytes.Split(cmdline, []byte{0}); len(argv) > 1 && string(argv[1]) == runtime.WorkerArg {
			return pid, true
		}
	}
	return 0, false
}

// parentOf reads the parent pid from /proc/PID/stat, whose fourth field
// follows the command name in parentheses; -1 if it cannot be read.
func parentOf(dir string) int {
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return -1
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return -1
	}
	return ppid
}
