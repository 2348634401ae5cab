package confine

import (
	"os"
	"os/exec"
	"sync"

	"github.com/sabline/sabline/confine/core"
)

// This file is the supervisor's side of confinement. Holding a run takes
// two steps, one in each process: PrepareWorker, which the supervisor
// runs on the command that starts the worker, and Apply, which the
// worker runs on itself before the program's first statement. On Linux
// and macOS the worker holds itself and the supervisor's step only ties
// the worker's life to the run (a session and process group of its own,
// and on Linux a signal when the supervisor dies). On Windows the
// supervisor's step is where the job object is made, since a process
// joins a job from outside, and where an AppContainer would be chosen,
// since a process cannot enter one once started.

// WorkerOptions are what the supervisor's side of confinement needs
// besides the policy.
type WorkerOptions struct {
	// MaxMemoryMB is the run's memory limit, 0 for none.
	MaxMemoryMB int
	// TempDir is the run's private temporary directory, made by the
	// supervisor (on Windows, labelled low integrity when the worker's
	// token will be).
	TempDir string
	// RunID names the run: an AppContainer profile is named for it.
	RunID string
}

// Started is the supervisor's hold on a worker PrepareWorker prepared.
// The supervisor calls, in order: Start (not cmd.Start), then AfterStart
// with the worker's pid before it writes the request (the worker runs
// nothing of the program before it reads the request), then Wait (not
// cmd.Wait), and, once the worker has exited or must be stopped, Kill if
// it must, and Close always.
type Started interface {
	// Start starts cmd. It is cmd.Start() but where the worker goes into
	// an AppContainer (Windows), whose process is made here and given to
	// cmd.Process, so that cmd.Wait waits for it; cmd's standard streams
	// must then be files, or nil.
	Start() error
	// AfterStart finishes what needs the worker's process: on Windows,
	// it puts the worker in its job object. The worker checks its job
	// itself, so a failure here leaves the layer out of its Result.
	AfterStart(pid int) error
	// Wait waits for the worker to exit, ends what it left in its
	// process group, and reaps it (cmd.Wait), in that order where the
	// system can wait without reaping (Linux): the group's id is the
	// worker's pid, which, once reaped, the kernel may give to any
	// process, and a process that took it and led a group of its own
	// (another worker, in a session of its own) was killed with it. Once
	// the worker is reaped, Kill signals its group no more.
	Wait() error
	// Kill ends the worker and everything it started: its process group
	// on Linux and macOS, its job on Windows; on Linux, first, every
	// descendant of a worker still alive, wherever it went (the worker
	// adopts its descendants' orphans: AdoptOrphans).
	Kill() error
	// Close releases what the supervisor holds for the run: the job
	// object, which ends any process left in it; the worker's cgroup.
	Close() error
	// Memory says what of the supervisor's side holds the worker's
	// memory limit (WorkerOptions.MaxMemoryMB).
	Memory() core.MemoryHold
	// OutOfMemory reports, once the worker has exited and before Close,
	// whether the kernel ended it for passing the memory limit the
	// supervisor's side holds.
	OutOfMemory() bool
}

// PrepareWorker readies cmd, not yet started, to start a worker that will
// be held to p: cmd.SysProcAttr is set (fields already set are kept) and,
// on Windows, cmd.Env gains what the worker needs to check its container.
// Pass the zero Policy for a run that is not to be confined
// (--no-confine): the worker's life is still tied to the run's.
//
// The Started it returns is usable even with an error: the error says
// what of the supervisor's side could not be done (the worker's Result
// then leaves that layer out), or is ErrUnsupported on a system this
// build has no confinement for.
func PrepareWorker(cmd *exec.Cmd, p core.Policy, o WorkerOptions) (Started, error) {
	return prepareWorker(cmd, p, o)
}

// LearnWorkerHolds learns, once for this process and where this system
// has any, what PrepareWorker would learn at its first call of what the
// supervisor can hold a worker with (on Linux: a mount namespace of its
// own, for a policy that enforces something and grants a path; a memory
// cgroup, for a memory limit of memoryMB). A supervisor calls it in a
// goroutine of its own beside what it does before its first worker
// starts, which then starts sooner. It is never needed.
func LearnWorkerHolds(p core.Policy, memoryMB int) { learnWorkerHolds(p, memoryMB) }

// processStarted is a Started for a worker that needs nothing of its
// supervisor after it starts but, for a memory limit, a cgroup to be put
// in (Linux).
type processStarted struct {
	cmd   *exec.Cmd
	start func(*exec.Cmd) error // how cmd is started; nil for cmd.Start
	kill  func(pid int) error   // the group's kill, or nil
	// exited waits for pid to exit without reaping it (waitid(2) with
	// WNOWAIT), nil where the system cannot.
	exited func(pid int) error
	// mu holds the group's kill and the reaping apart: while the worker
	// is not reaped (reaped false, under mu), its pid is its own.
	mu     sync.Mutex
	reaped bool
	cgroup workerCgroup // nil for none
	memory core.MemoryHold
}

// workerCgroup is a worker's own cgroup, which holds its memory limit.
type workerCgroup interface {
	Enter(pid int) error
	OutOfMemory() bool
	Remove()
}

func (s *processStarted) Start() error {
	if s.start != nil {
		return s.start(s.cmd)
	}
	return s.cmd.Start()
}

// AfterStart moves the worker into its cgroup, if it has one; one that
// cannot be entered is removed, and the memory limit is the worker's own.
func (s *processStarted) AfterStart(pid int) error {
	if s.cgroup == nil {
		return nil
	}
	err := s.cgroup.Enter(pid)
	if err != nil {
		s.cgroup.Remove()
		s.cgroup, s.memory = nil, core.MemoryHold{Why: err.Error()}
	}
	return err
}

func (s *processStarted) Memory() core.MemoryHold { return s.memory }

func (s *processStarted) OutOfMemory() bool { return s.cgroup != nil && s.cgroup.OutOfMemory() }

// Wait waits for the worker to exit. Where the system can wait without
// reaping, it kills the worker's group while the worker's pid is still
// its own, then reaps it. Elsewhere it kills the group once the worker is
// reaped, as soon as it can, and never after: a later Kill's signal
// could reach a group another process leads by then.
func (s *processStarted) Wait() error {
	if s.cmd.Process == nil || s.kill == nil {
		return s.cmd.Wait()
	}
	held := s.exited != nil && s.exited(s.cmd.Process.Pid) == nil
	var err error
	if !held {
		err = s.cmd.Wait() // reaped: its group is killed next, and never after
	}
	s.mu.Lock()
	_ = s.kill(s.cmd.Process.Pid) // the group may be gone already
	s.reaped = true
	s.mu.Unlock()
	if held {
		err = s.cmd.Wait()
	}
	return err
}

func (s *processStarted) Kill() error {
	if s.cmd.Process == nil {
		return nil
	}
	if s.kill != nil {
		s.mu.Lock()
		if !s.reaped {
			_ = s.kill(s.cmd.Process.Pid) // the group may be gone already
		}
		s.mu.Unlock()
	}
	if err := s.cmd.Process.Kill(); err != nil && err != os.ErrProcessDone {
		return err
	}
	return nil
}

func (s *processStarted) Close() error {
	if s.cgroup != nil {
		s.cgroup.Remove()
		s.cgroup = nil
	}
	return nil
}
