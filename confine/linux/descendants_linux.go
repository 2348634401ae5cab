package linux

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// AdoptOrphans makes the calling process its descendants' subreaper
// (PR_SET_CHILD_SUBREAPER): a process it started that ends leaves its own
// children to this process, not to init, so that what a run started stays
// among the worker's descendants however it detached itself (a double
// fork, setsid) until KillDescendants ends it.
func AdoptOrphans() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// maxKillRounds bounds KillDescendants' scans: each kills every
// descendant it finds, whose children then come to their subreaper and
// are found by the next.
const maxKillRounds = 64

// KillDescendants kills (SIGKILL) every living process descended from
// pid, not pid itself, scanning /proc again until a scan finds none or
// maxKillRounds have been made, and returns how many it signalled. A
// process that ends leaves its children to its subreaper (AdoptOrphans),
// so that once pid is one, its descendants are those the scan finds. Where
// /proc cannot be read (a worker confined by Landlock, which starts no
// process), it finds none.
func KillDescendants(pid int) int {
	killed := 0
	for range maxKillRounds {
		found := descendants(pid)
		if len(found) == 0 {
			break
		}
		for _, d := range found {
			if syscall.Kill(d, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	return killed
}

// descendants returns the living processes descended from pid, as /proc
// says now: zombies, which have ended, are left out.
func descendants(pid int) []int {
	if none, known := childless(pid); known && none {
		return nil // the common case, told without reading every process's stat
	}
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	children := map[int][]int{}
	for _, name := range names {
		p, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone since it was listed
		}
		if ppid, ok := statParent(stat); ok {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
}

// statParent reads the parent's pid from the text of a /proc/PID/stat
// file, "PID (COMM) STATE PPID ...", and false where it cannot, or the
// process has ended (STATE Z or X). COMM is the process's own to set
// (prctl, a program's name), whatever bytes it likes: spaces and
// parentheses too, so the fields are read after its last ')'.
func statParent(stat []byte) (ppid int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 || f[0][0] == 'Z' || f[0][0] == 'X' {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// childless reports whether pid has no child, zombie or living, as its
// threads' children files say; known is false where they cannot be read
// (a kernel built without them, pid gone).
func childless(pid int) (none, known bool) {
	task := "/proc/" + strconv.Itoa(pid) + "/task"
	d, err := os.Open(task)
	if err != nil {
		return false, false
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	for _, tid := range tids {
		b, err := os.ReadFile(task + "/" + tid + "/children")
		if err != nil {
			return false, false
		}
		if len(bytes.TrimSpace(b)) > 0 {
			return false, true
		}
	}
	return len(tids) > 0, len(tids) > 0
}
