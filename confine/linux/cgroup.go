package linux

import (
	"path"
	"slices"
	"strings"
)

// A supervisor on Linux holds a worker's memory limit with a cgroup v2 of
// the worker's own, whose memory.max is the limit, where the machine
// lets it make one: beneath its own cgroup when that cgroup already hands
// the memory controller to its children (the root cgroup does), or
// beneath the cgroup a service manager delegated to it, when the
// supervisor runs in a subgroup of that cgroup (systemd: Delegate=yes
// with DelegateSubgroup=), since a cgroup that holds processes gives its
// children no controller. It never moves a process of its own, nor
// writes outside what is its own or delegated to it. Elsewhere the
// worker's own limits hold alone, and the run's reason says why no
// cgroup does. This file derives the place (planCgroup), from what it is
// given of the machine; cgroup_linux.go reads the machine and makes the
// cgroups.

// CgroupHolds is MemoryHold.By for a worker in a cgroup of its own.
const CgroupHolds = "a cgroup v2 of the worker's own (memory.max)"

// cgroupFacts is what planCgroup reads of the machine.
type cgroupFacts struct {
	Self      string // /proc/self/cgroup
	Mountinfo string // /proc/self/mountinfo
	// Read returns the content of a cgroup interface file.
	Read func(file string) (string, error)
	// Delegated reports whether a cgroup directory carries a service
	// manager's delegation mark (the trusted.delegate or user.delegate
	// extended attribute).
	Delegated func(dir string) bool
}

// cgroupPlace is where a supervisor makes its workers' memory cgroups.
type cgroupPlace struct {
	Parent string // the directory they are made in; "" when none is made
	// Enable: memory must first be added to Parent's
	// cgroup.subtree_control.
	Enable bool
	Why    string // why none is made, when Parent is ""
}

// planCgroup finds where this process may make its workers' memory
// cgroups, or says why it may not.
func planCgroup(f cgroupFacts) cgroupPlace {
	rel, ok := "", false
	for _, line := range strings.Split(f.Self, "\n") {
		if after, found := strings.CutPrefix(line, "0::"); found {
			rel, ok = after, true
		}
	}
	if !ok {
		return cgroupPlace{Why: "this process is in no cgroup v2 hierarchy"}
	}
	mount, root, v1memory := cgroupMounts(f.Mountinfo)
	if mount == "" {
		return cgroupPlace{Why: "no cgroup v2 hierarchy is mounted"}
	}
	rest, within := strings.CutPrefix(rel, root)
	if !within || (rest != "" && !strings.HasPrefix(rest, "/") && root != "/") {
		return cgroupPlace{Why: "this process's cgroup " + rel + " lies outside the cgroup " +
			"v2 hierarchy mounted at " + mount}
	}
	own := path.Join(mount, rest)
	if !hasWord(f.Read, path.Join(own, "cgroup.controllers"), "memory") {
		why := "the cgroup v2 hierarchy at " + mount + " offers no memory controller " +
			"to this process's cgroup"
		if v1memory {
			why += ": the memory controller is on a cgroup v1 hierarchy"
		}
		return cgroupPlace{Why: why}
	}
	if hasWord(f.Read, path.Join(own, "cgroup.subtree_control"), "memory") {
		return cgroupPlace{Parent: own}
	}
	if parent := path.Dir(own); own != mount && f.Delegated(parent) {
		return cgroupPlace{Parent: parent, Enable: !hasWord(f.Read, path.Join(parent,
			"cgroup.subtree_control"), "memory")}
	}
	if f.Delegated(own) {
		return cgroupPlace{Why: "this process's cgroup " + own + " is delegated to it but holds it: a " +
			"cgroup with processes gives its children no controller " +
			"(start it in a subgroup: systemd's DelegateSubgroup=)"}
	}
	return cgroupPlace{Why: "this process's cgroup " + own + " does not hand the memory controller " +
		"to its children, and no cgroup is delegated to it"}
}

// cgroupMounts reads mountinfo for the cgroup v2 hierarchy's mount point
// and the root of the hierarchy mounted there, and whether a cgroup v1
// hierarchy holds the memory controller.
func cgroupMounts(mountinfo string) (mount, root string, v1memory bool) {
	for _, line := range strings.Split(mountinfo, "\n") {
		before, after, ok := strings.Cut(line, " - ")
		fields, tail := strings.Fields(before), strings.Fields(after)
		if !ok || len(fields) < 5 || len(tail) < 1 {
			continue
		}
		switch tail[0] {
		case "cgroup2":
			if mount == "" {
				mount, root = fields[4], fields[3]
			}
		case "cgroup":
			if len(tail) >= 3 && slices.Contains(strings.Split(tail[2], ","), "memory") {
				v1memory = true
			}
		}
	}
	return mount, root, v1memory
}

// hasWord reports whether the file holds word among its space-separated
// words.
func hasWord(read func(string) (string, error), file, word string) bool {
	s, err := read(file)
	return err == nil && slices.Contains(strings.Fields(s), word)
}
