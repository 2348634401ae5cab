//go:build linux

package confine

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// prepareWorker starts the worker in a session of its own and has the
// kernel kill it if the supervisor dies without stopping it (kill -9 of
// the supervisor, say). The worker holds itself (Apply); nothing of the
// policy is the supervisor's to do. A memory limit is held by a cgroup of
// the worker's own too, where this machine lets the supervisor make one
// (see planCgroup). A worker held to a policy that enforces something and
// grants a path is started in a mount namespace of its own where this
// process can make one (linux.MountNamespace), in which Apply refuses
// device nodes outside /dev.
func prepareWorker(cmd *exec.Cmd, p core.Policy, o WorkerOptions) (Started, error) {
	s := startSession(cmd)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	s.kill = func(pid int) error {
		// The worker adopts what its descendants leave (AdoptOrphans): a
		// process in a session of its own is still among them while the
		// worker lives, and only then is pid its own (not yet waited
		// for). It is stopped first, so that it starts nothing more, and
		// answers nothing once what it waited for is killed.
		if cmd.Process.Signal(syscall.SIGSTOP) == nil {
			linux.KillDescendants(pid)
		}
		return killGroup(pid)
	}
	s.exited = exitedUnreaped
	s.start = startFromLastingThread
	linux.MountNamespace(cmd, p)
	if o.MaxMemoryMB > 0 {
		if cg, why := linux.NewMemoryCgroup(o.MaxMemoryMB); cg != nil {
			s.cgroup, s.memory = cg, core.MemoryHold{By: linux.CgroupHolds}
		} else {
			s.memory = core.MemoryHold{Why: why}
		}
	}
	return s, nil
}

// exitedUnreaped waits for pid, a child of this process, to exit, and
// leaves it to be reaped (waitid(2) with WNOWAIT): until it is, its pid
// and its group's id are its own, and no other process's.
func exitedUnreaped(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			if err != nil {
				return fmt.Errorf("waitid: %w", err)
			}
			return nil
		}
	}
}

// learnWorkerHolds learns whether this process can start a worker in a
// mount namespace, and where it makes memory cgroups (see
// linux.LearnWorkerHolds), as far as p and memoryMB need them.
func learnWorkerHolds(p core.Policy, memoryMB int) {
	linux.LearnWorkerHolds(p, memoryMB > 0)
}

// startFromLastingThread starts cmd from a thread that lasts as long as
// this process. The kernel sends a worker its parent-death signal when
// the thread that started it ends, not the process (go.dev/issue/27505),
// and a Go process ends threads: one whose goroutine ends locked to it,
// as the try of a mount namespace does (linux.MountNamespace), or as a
// program embedding Sabline may. Started from such a thread, a worker
// would be killed in the middle of its run.
func startFromLastingThread(cmd *exec.Cmd) error {
	s := starters.take()
	defer starters.put(s)
	done := make(chan error, 1)
	s <- func() { done <- cmd.Start() }
	return <-done
}

// starters are the threads workers are started from.
var starters lastingThreads

// lastingThreads are goroutines each locked to a thread of its own and
// never unlocked, so that the thread ends only with the process; an idle
// one waits on its channel, using no processor time. A start takes an
// idle one or makes one: starts run side by side, as forks do, and one
// that hangs (a worker's directory on a mount that does not answer)
// holds up no other. There are never more than the most starts ever
// under way at once.
type lastingThreads struct {
	mu   sync.Mutex
	idle []chan<- func()
}

// take returns an idle thread's channel, or a new thread's: each function
// sent on it runs on that thread.
func (l *lastingThreads) take() chan<- func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.idle); n > 0 {
		s := l.idle[n-1]
		l.idle = l.idle[:n-1]
		return s
	}
	s := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked
		for f := range s {
			f()
		}
	}()
	return s
}

// put gives back a thread take returned, once what was sent on it is done.
func (l *lastingThreads) put(s chan<- func()) {
	l.mu.Lock()
	l.idle = append(l.idle, s)
	l.mu.Unlock()
}
