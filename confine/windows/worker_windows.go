//go:build windows

package windows

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sabline/sabline/confine/core"
)

// containerNeedsFiles is why a worker whose standard streams are not
// files runs without its container: a process is put in one only at its
// creation, by a CreateProcess os/exec cannot make, which is given the
// streams' handles.
const containerNeedsFiles = "the worker's standard streams are not files, and a process is " +
	"started inside an AppContainer with its streams' handles"

// PrepareWorker makes the run's job object, with the limits of the plan
// PlanFor derives (for a run that enforces nothing, only kill on
// close); labels the private temporary directory low integrity when the
// worker's token will be; for a budget the plan gives a container, makes
// the run's AppContainer (profile, ACEs, probe), which Start starts the
// worker in; and tells the worker, through its environment, the
// container's SID or why it is off.
//
// runID names the run, and its AppContainer profile; tempDir is the run's
// private temporary directory; maxMemoryMB is its memory limit, 0 for
// none. The Worker it returns is usable even with an error.
func PrepareWorker(cmd *exec.Cmd, p core.Policy, runID, tempDir string,
	maxMemoryMB int) (*Worker, error) {
	exe, _ := os.Executable()
	plan := PlanFor(p, core.Needs{Executable: exe, TempDir: tempDir},
		countFilesUpTo(windowsMaxACEFiles+1), maxMemoryMB)
	s := &Worker{cmd: cmd, memoryMB: plan.JobMemoryLimitMB}
	off := plan.ContainerOffReason
	if p.Enforced && plan.AppContainer {
		if _, ok := stdFiles(cmd); ok {
			s.container, off = openContainer(plan, runID)
		} else {
			off = containerNeedsFiles
		}
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	sid := ""
	if s.container != nil {
		sid = s.container.sid.String()
	}
	cmd.Env = withContainerEnv(cmd.Env, sid, off)

	var errs []error
	limits, err := windowsJobLimits(plan)
	if err == nil {
		s.job, err = newJob(limits)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("job object: %w", err))
	}
	if p.Enforced && plan.IntegrityLevel == integrityLow && tempDir != "" {
		if err := labelLow(tempDir); err != nil {
			errs = append(errs, fmt.Errorf("label %s low integrity: %w", tempDir, err))
		}
	}
	return s, errors.Join(errs...)
}

// Worker is the supervisor's hold on a worker, its job and its
// container.
type Worker struct {
	cmd       *exec.Cmd
	job       windows.Handle // 0 when it could not be made
	container *container     // nil when the worker runs outside one
	assigned  bool           // the worker joined the job before it ran
	memoryMB  int            // the job's per-process memory limit, 0 for none
}

// Memory says what holds the memory limit: the job object, once the
// worker is in it.
func (s *Worker) Memory() core.MemoryHold {
	switch {
	case s.memoryMB == 0:
		return core.MemoryHold{}
	case !s.assigned:
		return core.MemoryHold{Why: "the worker is not in its job object"}
	}
	return core.MemoryHold{By: "the job object's per-process memory limit"}
}

// OutOfMemory is always false: a worker past its job's memory limit is
// refused the allocation, not ended; its own crash report says so.
func (s *Worker) OutOfMemory() bool { return false }

// stdFiles returns cmd's standard streams as files, nil for none, and
// whether each is a file or nil.
func stdFiles(cmd *exec.Cmd) ([3]*os.File, bool) {
	var out [3]*os.File
	for i, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		switch f := v.(type) {
		case nil:
		case *os.File:
			out[i] = f
		default:
			return out, false
		}
	}
	return out, true
}

// Start starts the worker: inside its container, suspended, in its job,
// then resumed; or, outside one, with cmd.Start(). A worker that could
// not be started in its container is started outside it, its ACEs taken
// back, and its environment says why.
func (s *Worker) Start() error {
	if s.container == nil {
		return s.cmd.Start()
	}
	err := s.startContained()
	if err == nil {
		return nil
	}
	s.container.close()
	s.container = nil
	s.cmd.Env = withContainerEnv(s.cmd.Env, "",
		"the worker could not be started in its AppContainer: "+err.Error())
	return s.cmd.Start()
}

func (s *Worker) startContained() error {
	std, _ := stdFiles(s.cmd)
	var extra []windows.Handle
	if a := s.cmd.SysProcAttr; a != nil {
		for _, h := range a.AdditionalInheritedHandles {
			extra = append(extra, windows.Handle(h))
		}
	}
	path := s.cmd.Path
	if s.cmd.Err != nil {
		return s.cmd.Err
	}
	env := withSystemRoot(s.cmd.Env, os.Getenv("SYSTEMROOT"))
	pi, err := startInContainer(s.container, path, s.cmd.Args, env, s.cmd.Dir, std, extra)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(pi.Thread)
	defer windows.CloseHandle(pi.Process)
	if s.job != 0 {
		if err := windows.AssignProcessToJobObject(s.job, pi.Process); err != nil {
			windows.TerminateProcess(pi.Process, 1)
			return fmt.Errorf("AssignProcessToJobObject: %w", err)
		}
		s.assigned = true
	}
	proc, err := os.FindProcess(int(pi.ProcessId))
	if err != nil {
		windows.TerminateProcess(pi.Process, 1)
		return err
	}
	if _, err := windows.ResumeThread(pi.Thread); err != nil {
		windows.TerminateProcess(pi.Process, 1)
		return fmt.Errorf("ResumeThread: %w", err)
	}
	s.cmd.Process = proc
	return nil
}

var procTerminateJobObject = windows.NewLazySystemDLL("kernel32.dll").NewProc("TerminateJobObject")

// AfterStart puts the worker in its job. The worker runs nothing of the
// program before it reads its request, which the supervisor writes after
// this; the worker then reads its job's limits itself.
func (s *Worker) AfterStart(pid int) error {
	if s.assigned {
		return nil
	}
	if s.job == 0 {
		return errors.New("assign the worker to its job: there is no job")
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false,
		uint32(pid))
	if err != nil {
		return fmt.Errorf("OpenProcess(%d): %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(s.job, h); err != nil {
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	s.assigned = true
	return nil
}

// Wait waits for the worker to exit, then ends what is left of its job.
// The job is held by its handle, never by a number another process could
// be given, so the order is the one a wait allows.
func (s *Worker) Wait() error {
	err := s.cmd.Wait()
	_ = s.Kill()
	return err
}

// Kill ends every process of the job, and the worker itself when it
// never joined it.
func (s *Worker) Kill() error {
	var errs []error
	if s.job != 0 {
		r, _, err := procTerminateJobObject.Call(uintptr(s.job), 1)
		if r != 0 && s.assigned {
			return nil
		}
		if r == 0 {
			errs = append(errs, fmt.Errorf("TerminateJobObject: %w", err))
		}
	}
	if s.cmd.Process != nil {
		if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Close closes the job (with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, that
// ends any process left in it), then takes the container's ACEs back and
// deletes its profile. A revoke that fails leaves the run's record for
// the next run's sweep, and the error says which.
func (s *Worker) Close() error {
	var errs []error
	if s.job != 0 {
		errs = append(errs, windows.CloseHandle(s.job))
		s.job = 0
	}
	if s.container != nil {
		errs = append(errs, s.container.close())
		s.container = nil
	}
	return errors.Join(errs...)
}

// newJob makes an unnamed job object with limits.
func newJob(limits jobLimits) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	var ext windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	ext.BasicLimitInformation.LimitFlags = limits.LimitFlags
	ext.BasicLimitInformation.ActiveProcessLimit = limits.ActiveProcessLimit
	ext.ProcessMemoryLimit = uintptr(limits.ProcessMemoryLimit)
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&ext)), uint32(unsafe.Sizeof(ext))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("SetInformationJobObject(extended limits): %w", err)
	}
	if limits.UIRestrictions != 0 {
		ui := windows.JOBOBJECT_BASIC_UI_RESTRICTIONS{UIRestrictionsClass: limits.UIRestrictions}
		if _, err := windows.SetInformationJobObject(job, windows.JobObjectBasicUIRestrictions,
			uintptr(unsafe.Pointer(&ui)), uint32(unsafe.Sizeof(ui))); err != nil {
			windows.CloseHandle(job)
			return 0, fmt.Errorf("SetInformationJobObject(UI restrictions): %w", err)
		}
	}
	return job, nil
}

// labelLow gives dir a low mandatory label that its files and
// directories inherit (SDDL S:(ML;OICI;NW;;;LW)), so that a low
// integrity worker can write there and nowhere else of the user's.
func labelLow(dir string) error {
	sd, err := windows.SecurityDescriptorFromString("S:(ML;OICI;NW;;;LW)")
	if err != nil {
		return fmt.Errorf("SecurityDescriptorFromString: %w", err)
	}
	sacl, _, err := sd.SACL()
	if err != nil {
		return fmt.Errorf("the label's SACL: %w", err)
	}
	if err := windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.LABEL_SECURITY_INFORMATION, nil, nil, nil, sacl); err != nil {
		return fmt.Errorf("SetNamedSecurityInfo: %w", err)
	}
	return nil
}

// countFilesUpTo counts the files beneath a path, stopping at limit: more
// than windowsMaxACEFiles is all the plan needs to know. A path that does
// not exist yet holds none; one that cannot be walked counts as limit, so that
// the container is left off rather than given an ACE nobody counted
// beneath.
func countFilesUpTo(limit int) func(string) int {
	stop := errors.New("enough")
	return func(root string) int {
		n := 0
		err := filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				n++
			}
			if n >= limit {
				return stop
			}
			return nil
		})
		if err != nil && !errors.Is(err, stop) && !errors.Is(err, fs.ErrNotExist) {
			return limit
		}
		return n
	}
}
