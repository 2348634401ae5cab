package linux

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// thisCgroupPlace is planCgroup of this machine, read once, with the
// memory controller enabled for the children of a delegated cgroup when
// it must be.
var thisCgroupPlace = sync.OnceValue(func() cgroupPlace {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return cgroupPlace{Why: "read /proc/self/cgroup: " + err.Error()}
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return cgroupPlace{Why: "read /proc/self/mountinfo: " + err.Error()}
	}
	place := planCgroup(cgroupFacts{Self: string(self), Mountinfo: string(mounts),
		Read: func(file string) (string, error) {
			b, err := os.ReadFile(file)
			return string(b), err
		},
		Delegated: delegated,
	})
	if place.Enable {
		if err := os.WriteFile(filepath.Join(place.Parent, "cgroup.subtree_control"), []byte("+memory"),
			0); err != nil {
			return cgroupPlace{Why: "hand the memory controller to the children of " + place.Parent + ": " +
				err.Error()}
		}
	}
	return place
})

// WorkerCgroupsWhy is why this process makes its workers no memory
// cgroup, "" where it makes them one in WorkerCgroups.
func WorkerCgroupsWhy() string { return thisCgroupPlace().Why }

// WorkerCgroups is the directory this process makes its workers' memory
// cgroups in, "" when it makes none (see planCgroup).
func WorkerCgroups() string { return thisCgroupPlace().Parent }

// delegated reports whether dir carries a service manager's delegation
// mark: systemd sets trusted.delegate (user.delegate for a user's
// manager) to 1 on the cgroup it delegates.
func delegated(dir string) bool {
	for _, attr := range []string{"trusted.delegate", "user.delegate"} {
		var b [8]byte
		if n, err := unix.Getxattr(dir, attr, b[:]); err == nil && string(b[:n]) == "1" {
			return true
		}
	}
	return false
}

// MemoryCgroup is a worker's own cgroup v2, whose memory.max holds its
// memory limit: made before the worker starts, the worker moved into it
// before it reads its request, removed once it has exited.
type MemoryCgroup struct{ dir string }

// NewMemoryCgroup makes a worker's memory cgroup of mb megabytes (no
// swap; the whole group is killed together when the kernel runs it out
// of memory), or says why none is made.
func NewMemoryCgroup(mb int) (*MemoryCgroup, string) {
	place := thisCgroupPlace()
	if place.Parent == "" {
		return nil, place.Why
	}
	dir, err := os.MkdirTemp(place.Parent, "sabline-worker-")
	if err != nil {
		return nil, "make a cgroup beneath " + place.Parent + ": " + err.Error()
	}
	cg := &MemoryCgroup{dir: dir}
	settings := []struct {
		file, value string
		optional    bool // a kernel without it (no swap accounting) is fine
	}{
		{"memory.max", strconv.FormatInt(int64(mb)<<20, 10), false},
		{"memory.swap.max", "0", true},
		{"memory.oom.group", "1", true},
	}
	for _, s := range settings {
		err := os.WriteFile(filepath.Join(dir, s.file), []byte(s.value), 0)
		if err != nil && !(s.optional && errors.Is(err, fs.ErrNotExist)) {
			cg.Remove()
			return nil, "set " + s.file + " of " + dir + ": " + err.Error()
		}
	}
	return cg, ""
}

// Dir is the cgroup's directory.
func (cg *MemoryCgroup) Dir() string { return cg.dir }

// enter moves the process pid into the cgroup.
func (cg *MemoryCgroup) Enter(pid int) error {
	if err := os.WriteFile(filepath.Join(cg.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)),
		0); err != nil {
		return fmt.Errorf("move the worker into %s: %w", cg.dir, err)
	}
	return nil
}

// outOfMemory reports whether the kernel killed a process of the cgroup
// for passing memory.max.
func (cg *MemoryCgroup) OutOfMemory() bool {
	b, err := os.ReadFile(filepath.Join(cg.dir, "memory.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, n, _ := strings.Cut(line, " ")
		if (name == "oom_kill" || name == "oom_group_kill") && n != "0" && n != "" {
			return true
		}
	}
	return false
}

// remove removes the cgroup once the processes killed in it are gone: a
// process leaves its cgroup as it exits, shortly after its kill.
func (cg *MemoryCgroup) Remove() {
	for range 100 {
		if err := syscall.Rmdir(cg.dir); err != syscall.EBUSY {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
