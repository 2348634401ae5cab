package run

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// threadsOf returns how many threads the process pid runs, the Threads
// line of its status file ([proc_pid_status(5)]), and false where it
// cannot be read (the process gone). A thread is a kernel object no
// memory limit counts: its kernel stack (16 KiB on amd64) is not the
// process's resident memory, and its id is one of the machine's
// (kernel.pid_max, 32,768 here). The filter lets the worker make threads
// (clone with CLONE_THREAD), and a program that makes raw system calls
// makes as many as it likes: each returns into code of its own and waits
// there.
//
// [proc_pid_status(5)]: https://man7.org/linux/man-pages/man5/proc_pid_status.5.html
func threadsOf(pid int) (int, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		value, ok := bytes.CutPrefix(lines.Bytes(), []byte("Threads:"))
		if !ok {
			continue
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		return n, err == nil
	}
	return 0, false
}
