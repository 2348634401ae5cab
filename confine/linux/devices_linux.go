//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// MountNamespace has cmd start the worker in a mount namespace of its own
// for a policy that enforces something and grants a path
// (ownMountsWanted), where this process can make one (canUnshareMounts):
// the kernel makes every mount in it private (Go's os/exec does, for
// CLONE_NEWNS), so that what the worker remounts there changes nothing
// outside it. The worker is told which, by mountNamespaceEnv; a value of
// it in cmd's environment is replaced. A worker granted no path shares
// this process's namespace, and is told nothing: it remounts nothing.
func MountNamespace(cmd *exec.Cmd, p core.Policy) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	wanted := ownMountsWanted(p)
	env := cmd.Env
	if env == nil {
		if _, set := os.LookupEnv(mountNamespaceEnv); !set && !wanted {
			return
		}
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != mountNamespaceEnv {
			out = append(out, kv)
		}
	}
	if wanted {
		told := namespaceTold()
		if told == mountNamespaceOwn {
			cmd.SysProcAttr.Unshareflags |= unix.CLONE_NEWNS
		}
		out = append(out, mountNamespaceEnv+"="+told)
	}
	cmd.Env = out
}

// namespaceTold is what MountNamespace tells a worker that wants a mount
// namespace of its own (mountNamespaceEnv's value): mountNamespaceOwn
// where this process can start it in one, else why not.
func namespaceTold() string {
	return namespaceToldBy(guard.ReadMounts())
}

// namespaceToldBy is namespaceTold of this process's mount table as
// mounts, read with err.
func namespaceToldBy(mounts []guard.Mount, err error) string {
	if why := workerNamespaceNeededBy(mounts, err); why != "" {
		return mountNamespaceWhy(why)
	}
	if why := canUnshareMounts(); why != "" {
		return mountNamespaceWhy("the supervisor could not make a mount namespace: " + why)
	}
	return mountNamespaceOwn
}

// DeviceNodesHere returns what a worker held to p and started by this
// process now would find of device nodes (Held.DeviceNodes and why),
// without starting one: the granted paths beneath which a device node
// could still be opened, where this process could not start it in a mount
// namespace of its own (no CAP_SYS_ADMIN: a user who is not root), or
// where it would share this process's namespace; none where it could, and
// would remount every mount outside /dev with nodev there. It is how
// confine.OnThisMachine, which `sabline audit` and a door's audit say as
// the level here, learns what holdDevices would: without it a grant's run
// by a user who is not root is partial where the audit said full. A mount
// table read in part (tableReadInPart) holds every grant's device nodes by
// the language alone, in a namespace of the worker's own too.
func DeviceNodesHere(p core.Policy) ([]string, string) {
	if !ownMountsWanted(p) {
		return nil, ""
	}
	mounts, err := guard.ReadMounts()
	told := namespaceToldBy(mounts, err)
	if told == mountNamespaceOwn && err == nil {
		return nil, "" // the remounts a worker makes are held by its own tests (TestHoldDevices)
	}
	grants := grantedPaths(p)
	for i, g := range grants {
		if r, err := filepath.EvalSymlinks(g); err == nil {
			grants[i] = r
		}
	}
	switch {
	case mounts == nil && err != nil:
		return grants, "the mount table could not be read: " + err.Error()
	case err != nil:
		return grants, tableReadInPart(err)
	}
	if open := deviceGrants(grants, mounts); len(open) > 0 {
		return open, told
	}
	return nil, ""
}

// workerNamespaceNeeded says why a worker is not to be started in a mount
// namespace of its own, "" when it is: none is needed where every mount
// outside /dev is nodev already (a server re-executed in such a namespace,
// EnterNodevNamespace), and none can be made once this process holds
// itself with Landlock, which refuses the mount a new namespace needs.
func workerNamespaceNeeded() string {
	return workerNamespaceNeededBy(guard.ReadMounts())
}

// workerNamespaceNeededBy is workerNamespaceNeeded of this process's mount
// table as mounts, read with err.
func workerNamespaceNeededBy(mounts []guard.Mount, err error) string {
	if landlocked.Load() {
		return "the supervisor holds itself with Landlock, which refuses the mounts a namespace needs"
	}
	if err == nil && len(remountPlan(mounts)) == 0 {
		return "every mount outside /dev is nodev already: " + sharedNodev
	}
	return ""
}

// sharedNodev is said where a worker needs no namespace of its own.
const sharedNodev = "the worker shares its supervisor's namespace"

// landlocked is set once this process holds itself with Landlock.
var landlocked atomic.Bool

// EnterNodevNamespace re-executes this process, with its arguments and
// environment, in a mount namespace of its own where every mount outside
// /dev is remounted nodev (remountPlan), so that its workers, started
// there, need none of their own: a server that holds itself with Landlock
// cannot make one for them later. The remounts are made on a thread of
// its own before the exec, so that this process's namespace is untouched
// when they fail. It returns nil at once in the process it re-executed
// (nodevEnv, removed from the environment), and where nothing is to be
// remounted; otherwise it returns only with the error that stopped it, and
// the process goes on in the namespace it had.
func EnterNodevNamespace() error {
	if os.Getenv(nodevEnv) != "" {
		os.Unsetenv(nodevEnv)
		return nil
	}
	mounts, err := guard.ReadMounts()
	if err != nil {
		return fmt.Errorf("enter a nodev namespace: %w", err)
	}
	plan := remountPlan(mounts)
	if len(plan) == 0 {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("enter a nodev namespace: %w", err)
	}
	env := append(os.Environ(), nodevEnv+"=1")
	onThreadOfItsOwn(func() {
		if err = unix.Unshare(unix.CLONE_NEWNS); err != nil {
			err = fmt.Errorf("unshare(CLONE_NEWNS): %w", err)
			return
		}
		if err = unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			err = fmt.Errorf("mount(/, MS_REC|MS_PRIVATE): %w", err)
			return
		}
		for _, r := range plan {
			if err = unix.Mount("none", r.Point, "", uintptr(r.Flags), ""); err != nil {
				err = fmt.Errorf("remount %s with nodev: %w", r.Point, err)
				return
			}
		}
		err = fmt.Errorf("exec %s: %w", exe, syscall.Exec(exe, os.Args, env))
	})
	return fmt.Errorf("enter a nodev namespace: %w", err)
}

// LearnWorkerHolds learns, once for this process, what MountNamespace and
// NewMemoryCgroup would learn at their first call for a worker held to p:
// whether this process can start it in a mount namespace of its own, where
// p wants one (ownMountsWanted), and where it makes its workers' memory
// cgroups (cgroup). A supervisor calls it in the background, beside its
// other work before its first worker starts; a later call, theirs
// included, waits for it and learns nothing again. The try's thread ends
// as the try does, which no worker sees: workers are started from a
// thread that never ends (confine's startFromLastingThread).
func LearnWorkerHolds(p core.Policy, cgroup bool) {
	if ownMountsWanted(p) && workerNamespaceNeeded() == "" {
		canUnshareMounts()
	}
	if cgroup {
		thisCgroupPlace()
	}
}

// canUnshareMounts says why this process cannot start a worker in a mount
// namespace of its own, "" when it can: it tries once, on a thread of its
// own that ends with the try, what the start of such a worker does
// (unshare(CLONE_NEWNS), then / made private recursively), so that a
// start never fails for want of it (no CAP_SYS_ADMIN, a filter or a
// security module that refuses it).
var canUnshareMounts = sync.OnceValue(probeMountNamespace)

// probeMountNamespace is canUnshareMounts' try, made each time it is
// called.
func probeMountNamespace() string {
	var why string
	onThreadOfItsOwn(func() {
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			why = "unshare(CLONE_NEWNS): " + err.Error()
			return
		}
		// Only in the namespace just made, never in this process's own.
		if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			why = "mount(/, MS_REC|MS_PRIVATE): " + err.Error()
		}
	})
	return why
}

// onThreadOfItsOwn runs f on a thread that ends when f returns, and
// returns then: what f changes of its thread (its mount namespace) goes
// with it. Never the main thread, which the Go runtime keeps when a
// goroutine locked to it ends, and whose namespace /proc/self shows: a
// goroutine that lands there holds it while another runs f.
func onThreadOfItsOwn(f func()) {
	done := make(chan struct{})
	go func() {
		goruntime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			onThreadOfItsOwn(f) // not here: this goroutine holds the main thread meanwhile
			goruntime.UnlockOSThread()
			close(done)
			return
		}
		f()
		close(done)
		// Never unlocked: the thread ends with this goroutine.
	}()
	<-done
}

// takeMountNamespace reads mountNamespaceEnv and removes it from the
// environment: the program never sees it.
func takeMountNamespace() string {
	told := os.Getenv(mountNamespaceEnv)
	os.Unsetenv(mountNamespaceEnv)
	return told
}

// ownMountNamespace reports whether this process is in a mount namespace
// of its own, as its supervisor told it (told is mountNamespaceEnv's
// value) and as the kernel shows: its namespace is not its parent's. It
// says why not otherwise. Nothing is remounted unless both say so.
func ownMountNamespace(told string) (bool, string) {
	switch {
	case told == "":
		return false, "the worker was not started in a mount namespace of its own"
	case told != mountNamespaceOwn:
		return false, mountNamespaceWhy(told)
	}
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return false, "the worker's mount namespace could not be read: " + err.Error()
	}
	parent, err := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/ns/mnt")
	if err != nil {
		return false, "the mount namespace of the worker's parent could not be read: " + err.Error()
	}
	if self == parent {
		return false, "the worker shares its parent's mount namespace"
	}
	return true, ""
}

// holdDevices adds nodev, in the worker's own mount namespace, to every
// mount outside /dev (remountPlan), and returns the granted paths beneath
// which a device node could still be opened (deviceGrants, on the mount
// table as it is after), and why. told is mountNamespaceEnv's value. A
// table read in part (a line guard.ParseMountInfo refused: an overlay's
// options past its bound of a line) leaves every grant open: a mount on a
// line not read is neither remounted nor judged (tableReadInPart).
func holdDevices(p core.Policy, told string) ([]string, string) {
	grants := grantedPaths(p)
	for i, g := range grants {
		if r, err := filepath.EvalSymlinks(g); err == nil {
			grants[i] = r
		}
	}
	if len(grants) == 0 {
		return nil, ""
	}
	own, why := ownMountNamespace(told)
	mounts, err := guard.ReadMounts()
	if mounts == nil && err != nil {
		return grants, "the mount table could not be read: " + err.Error()
	}
	if own {
		var failed []error
		for _, r := range remountPlan(mounts) {
			if err := unix.Mount("none", r.Point, "", uintptr(r.Flags), ""); err != nil {
				failed = append(failed, fmt.Errorf("remount %s with nodev: %w", r.Point, err))
			}
		}
		if mounts, err = guard.ReadMounts(); mounts == nil && err != nil {
			return grants, "the mount table could not be read again: " + err.Error()
		}
		why = "mounts without nodev remain in the worker's own mount namespace"
		if len(failed) > 0 {
			if len(failed) > 4 {
				failed = append(failed[:4], fmt.Errorf("and %d more", len(failed)-4))
			}
			why += " (" + strings.ReplaceAll(errors.Join(failed...).Error(), "\n", "; ") + ")"
		}
	}
	if err != nil {
		return grants, tableReadInPart(err)
	}
	open := deviceGrants(grants, mounts)
	if len(open) == 0 {
		return nil, ""
	}
	return open, why
}
