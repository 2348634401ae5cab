package linux

import (
	"slices"
	"sort"
	"strings"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// Landlock cannot tell a device node from a file beneath a granted
// directory: a block device made in a grant, or one a shared directory
// holds, is opened as the file it seems. So on Linux a worker whose policy
// grants a path (ownMountsWanted) is started in a mount namespace of its
// own where the supervisor can make one (it has CAP_SYS_ADMIN), and before
// Landlock it remounts every mount outside /dev with nodev added, its
// other per-mount flags kept (remountPlan): the kernel then refuses to
// open a device node there (EACCES), whatever opens it. A worker granted
// no path remounts nothing (holdDevices), and so is given no namespace:
// making one and tearing it down when the worker ends is work on every
// run's path for nothing. The devices of /dev stay as they are: the table
// of kernel surfaces holds /dev, and Landlock reaches only the few devices
// it allows there. Where no namespace could be made, or a remount failed,
// and a file grant reaches a mount without nodev, the language alone
// refuses the device nodes beneath it, and the level says so.

// mountNamespaceEnv names the variable by which the supervisor tells its
// worker whether it started it in a mount namespace of its own: "own", or
// why not. The worker reads it, and removes it from its environment, in
// Apply: the program never sees it.
const mountNamespaceEnv = "SABLINE_MOUNT_NAMESPACE"

// nodevEnv marks a process that EnterNodevNamespace re-executed in a
// mount namespace of its own, every mount outside /dev nodev.
const nodevEnv = "SABLINE_NODEV_NAMESPACE"

// mountNamespaceOwn is mountNamespaceEnv's value for a worker started in
// a mount namespace of its own.
const mountNamespaceOwn = "own"

// maxMountNamespaceWhy bounds the reason mountNamespaceEnv carries.
const maxMountNamespaceWhy = 512

// Linux's mount flags (mount(2)), written here so that the plan is made,
// and tested, on any system.
const (
	msRDONLY      = 0x1
	msNOSUID      = 0x2
	msNODEV       = 0x4
	msNOEXEC      = 0x8
	msREMOUNT     = 0x20
	msNOSYMFOLLOW = 0x100
	msNOATIME     = 0x400
	msNODIRATIME  = 0x800
	msBIND        = 0x1000
	msRELATIME    = 0x200000
	msSTRICTATIME = 0x1000000
)

// keptMountFlags are the per-mount options a remount keeps, as the mount
// table names them: a remount that dropped one would clear it, and where
// the mount is locked (in a user namespace) be refused.
var keptMountFlags = []struct {
	option string
	flag   uint64
}{
	{"ro", msRDONLY}, {"nosuid", msNOSUID}, {"noexec", msNOEXEC}, {"nosymfollow", msNOSYMFOLLOW},
	{"noatime", msNOATIME}, {"nodiratime", msNODIRATIME}, {"relatime", msRELATIME},
}

// remountStep is one remount of a plan: the mount at Point, with Flags
// (mount(2)'s MS_* bits).
type remountStep struct {
	Point string
	Flags uint64
}

// remountPlan returns the remounts that add nodev to every mount a
// program can reach outside /dev (visibleMounts): MS_REMOUNT|MS_BIND|
// MS_NODEV with the mount's own ro, nosuid, noexec, nosymfollow and atime
// flags kept, strictatime where the table names no atime flag. A mount
// already nodev needs none; a mount at /dev or beneath it is left as it
// is, and so is the mount that holds /dev where /dev is no mount of its
// own (nodev there would refuse the devices Landlock allows).
func remountPlan(mounts []guard.Mount) []remountStep {
	visible := visibleMounts(mounts)
	devHolder := holder(visible, "/dev")
	var out []remountStep
	for i, m := range visible {
		if guard.Within(m.Point, "/dev") || m.Option("nodev") || i == devHolder {
			continue
		}
		flags := uint64(msREMOUNT | msBIND | msNODEV)
		atime := false
		for _, k := range keptMountFlags {
			if m.Option(k.option) {
				flags |= k.flag
				atime = atime || k.flag&(msNOATIME|msNODIRATIME|msRELATIME) != 0
			}
		}
		if !atime {
			flags |= msSTRICTATIME
		}
		out = append(out, remountStep{Point: m.Point, Flags: flags})
	}
	return out
}

// deviceGrants returns the granted paths beneath which a device node
// could be opened: each reaches a data file system (guard.DataFS) outside
// /dev mounted without nodev, the one it lies in or one mounted beneath
// it, sorted. grants are as they resolve; "/" stands for a grant of every
// path. A kernel surface is left out: no grant reaches one (guard). A
// grant within /dev is one of its few devices, which Landlock holds.
func deviceGrants(grants []string, mounts []guard.Mount) []string {
	visible := visibleMounts(mounts)
	var out []string
	for _, g := range grants {
		if guard.Within(g, "/dev") {
			continue
		}
		in := holder(visible, g)
		for i, m := range visible {
			if (i == in || guard.Within(m.Point, g)) && !m.KernelSurface() &&
				!m.Option("nodev") && !guard.Within(m.Point, "/dev") {
				out = append(out, g)
				break
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// visibleMounts are the mounts a path can reach: not mounted over at
// their point, nor beneath a mount that is, in the table's order. A mount
// over another at the same point takes its place.
func visibleMounts(mounts []guard.Mount) []guard.Mount {
	byID := map[int]int{}
	for i, m := range mounts {
		byID[m.ID] = i
	}
	over := map[int]bool{} // by index: mounted over at its own point
	for i, m := range mounts {
		if p, ok := byID[m.Parent]; ok && p != i && mounts[p].Point == m.Point {
			over[p] = true
		}
	}
	// hidden: i is mounted over, or its place is; its place is its
	// parent's place where it is mounted over its parent, and otherwise
	// hidden where its parent is. depth bounds a table whose parents loop.
	memo := map[int]bool{}
	var hidden func(i, depth int) bool
	hidden = func(i, depth int) bool {
		if h, ok := memo[i]; ok {
			return h
		}
		h, at := over[i], i
		for !h && depth <= len(mounts) {
			p, ok := byID[mounts[at].Parent]
			if !ok || p == at {
				break
			}
			if mounts[p].Point != mounts[at].Point {
				h = hidden(p, depth+1)
				break
			}
			at, depth = p, depth+1
		}
		memo[i] = h
		return h
	}
	var out []guard.Mount
	for i := range mounts {
		if !hidden(i, 0) {
			out = append(out, mounts[i])
		}
	}
	return out
}

// holder is the index of the mount p lies in: the deepest mount point
// above it, the later of two at one point; -1 for none.
func holder(mounts []guard.Mount, p string) int {
	at := -1
	for i, m := range mounts {
		if guard.Within(p, m.Point) && (at < 0 || len(m.Point) >= len(mounts[at].Point)) {
			at = i
		}
	}
	return at
}

// ownMountsWanted reports whether a worker held to p has a use for a
// mount namespace of its own: p enforces something and grants a path,
// beneath which a device node could be opened (holdDevices remounts for
// such a policy alone).
func ownMountsWanted(p core.Policy) bool { return p.Enforced && len(grantedPaths(p)) > 0 }

// grantedPaths are the paths p grants, for reading or writing; "/" for a
// grant of every path.
func grantedPaths(p core.Policy) []string {
	if p.Read.Unrestricted || p.Write.Unrestricted {
		return []string{"/"}
	}
	out := append(slices.Clone(p.Read.Paths), p.Write.Paths...)
	sort.Strings(out)
	return slices.Compact(out)
}

// deviceGap is the sentence of a reason for the grants beneath which the
// language alone refuses device nodes, and why.
func deviceGap(grants []string, why string) string {
	return "device nodes beneath " + shortList(grants, 4) + " are refused by the language only: " + why
}

// tableReadInPart is why every grant's device nodes are held by the
// language alone where the mount table was read in part (err, from
// guard.ReadMounts, names the lines not read): a mount on such a line is
// neither remounted nodev nor judged, and may lie beneath any grant. It
// is one line.
func tableReadInPart(err error) string {
	return "the mount table was read in part, and a mount on a line not read is neither remounted " +
		"nodev nor judged (" + strings.ReplaceAll(err.Error(), "\n", "; ") + ")"
}

// mountNamespaceWhy is a reason mountNamespaceEnv carries, on one line and
// bounded.
func mountNamespaceWhy(why string) string {
	why = strings.Join(strings.Fields(why), " ")
	if len(why) > maxMountNamespaceWhy {
		why = why[:maxMountNamespaceWhy]
	}
	return why
}
