package seccomp

import (
	"fmt"
	"slices"
	"strings"
)

// Summary says what the filter holds, in the words of the enforcement
// table: how many calls each architecture allows, the allowed calls by
// group, and what every other call gets. It is made from the rules table,
// so the table and the docs cannot disagree.
func Summary() string {
	archs := []Arch{amd64Arch(), arm64Arch()}
	var b strings.Builder
	b.WriteString("seccomp, an allow-list: ")
	for i, a := range archs {
		if i > 0 {
			b.WriteString(" and ")
		}
		fmt.Fprintf(&b, "%d calls on %s (%d under a network grant)",
			allowedCount(Config{Sockets: NoSockets}, a), a.Name, allowedCount(Config{Sockets: HandedSockets},
				a))
	}
	b.WriteString(", each named in one table with what in the worker needs it: ")
	var groups []string
	for g := groupMemory; g <= groupSockets; g++ {
		var names []string
		for _, r := range rules {
			if r.group != g {
				continue
			}
			name := r.name + restriction(r)
			var only []string
			for _, a := range archs {
				if _, ok := a.Table[r.name]; ok {
					only = append(only, a.Name)
				}
			}
			if len(only) < len(archs) {
				name += " (" + strings.Join(only, " and ") + ")"
			}
			names = append(names, name)
		}
		groups = append(groups, groupTitles[g]+" ("+strings.Join(names, ", ")+")")
	}
	b.WriteString(strings.Join(groups, "; "))
	b.WriteString(". Every other call of the kernel's table is refused (EPERM), whatever it " +
		"reaches: other processes, mounts and namespaces, kernel modules, keyrings, System V IPC and " +
		"POSIX message queues, io_uring, a file's mode, owner, times, attributes and extended " +
		"attributes by path, *at call or descriptor, the worker's identity, priorities and limits, " +
		"locked memory, kernel objects no memory limit counts (an epoll instance, an eventfd or a " +
		"pipe of its own, past the Go runtime's poller, made before the filter), and any call a " +
		"newer kernel adds to the table; a number past the table, or in " +
		"a gap of it, answers ENOSYS, as a kernel without the call does; a " +
		"call through another architecture's entry (i386, x32) is refused")
	return b.String()
}

// allowedCount is how many calls c's filter allows on a, for some
// arguments at least: its rules, but those answered ENOSYS.
func allowedCount(c Config, a Arch) int {
	n := 0
	for _, r := range allowedRules(c, a) {
		if r.args != answerENOSYS {
			n++
		}
	}
	return n
}

// restriction says in words what a rule's arguments are held to, with a
// leading space, or "" for a call allowed whatever its arguments.
func restriction(r rule) string {
	switch r.args {
	case threadOnly:
		return " making a thread that shares the worker's descriptors only"
	case ownProcess:
		return " to the worker only"
	case selfOrOwn:
		return " of the worker only"
	case readLimit:
		return " reading the worker's own limits only"
	case noSetID:
		return " making no set-user-ID or set-group-ID file, for reading or writing only " +
			"(O_ACCMODE refused), and no open with O_TRUNC not to write where Landlock holds no " +
			"truncation (below ABI 3)"
	case mknodNoSetID:
		return " making no set-user-ID or set-group-ID file"
	case noLock:
		return " without MAP_LOCKED"
	case namedCommands:
		var names []string
		for _, c := range subCommands[r.name] {
			names = append(names, c.name)
		}
		return only(names)
	case namedOptions:
		var names []string
		for _, o := range socketOptions[r.name] {
			names = append(names, o.name)
		}
		return only(names)
	case waitWake:
		return " waiting and waking on its own memory only (no shared futex, no " +
			"priority-inheritance lock)"
	case ownClock:
		return " of the machine and of the worker only (no other process's CPU clock)"
	case answerENOSYS:
		return " answered ENOSYS, so the caller falls back"
	case anyArgs:
		if r.truncates {
			return " where Landlock holds truncation (from ABI 3)"
		}
	}
	return ""
}

// only says that a call may use the sub-commands or options named, in
// alphabetical order, and no other.
func only(names []string) string {
	slices.Sort(names)
	return " " + strings.Join(names, ", ") + " only"
}
