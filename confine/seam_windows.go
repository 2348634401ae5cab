//go:build windows

package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// containerNotBuilt is why a budget a container could hold runs without
// one in this build: a process enters an AppContainer only at its
// creation (STARTUPINFOEX with PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES),
// which os/exec cannot pass, and the supervisor's own start of the
// worker inside one is not written yet.
const containerNotBuilt = "this build does not yet start the worker inside an AppContainer"

// prepareWorker makes the run's job object, with the limits of the plan
// WindowsPlanFor derives (for a run that enforces nothing, only kill on
// close), labels the private temporary directory low integrity when the
// worker's token will be, and tells the worker, through its environment,
// why its container is off.
func prepareWorker(cmd *exec.Cmd, p Policy, o WorkerOptions) (Started, error) {
	exe, _ := os.Executable()
	plan := WindowsPlanFor(p, Needs{Executable: exe, TempDir: o.TempDir}, countFilesUpTo(WindowsMaxACEFiles+1), o.MaxMemoryMB)
	off := plan.ContainerOffReason
	if plan.AppContainer {
		off = containerNotBuilt
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = withContainerEnv(cmd.Env, "", off)

	s := &jobStarted{cmd: cmd}
	var errs []error
	limits, err := windowsJobLimits(plan)
	if err == nil {
		s.job, err = newJob(limits)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("job object: %w", err))
	}
	if p.Enforced && plan.IntegrityLevel == IntegrityLow && o.TempDir != "" {
		if err := labelLow(o.TempDir); err != nil {
			errs = append(errs, fmt.Errorf("label %s low integrity: %w", o.TempDir, err))
		}
	}
	return s, errors.Join(errs...)
}

// jobStarted is the supervisor's hold on a worker and its job.
type jobStarted struct {
	cmd *exec.Cmd
	job windows.Handle // 0 when it could not be made
}

var procTerminateJobObject = windows.NewLazySystemDLL("kernel32.dll").NewProc("TerminateJobObject")

// AfterStart puts the worker in its job. The worker runs nothing of the
// program before it reads its request, which the supervisor writes after
// this; the worker then reads its job's limits itself.
func (s *jobStarted) AfterStart(pid int) error {
	if s.job == 0 {
		return errors.New("assign the worker to its job: there is no job")
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("OpenProcess(%d): %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(s.job, h); err != nil {
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	return nil
}

// Kill ends every process of the job, and the worker itself in case it
// never joined it.
func (s *jobStarted) Kill() error {
	var errs []error
	if s.job != 0 {
		if r, _, err := procTerminateJobObject.Call(uintptr(s.job), 1); r == 0 {
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

// Close closes the job; with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, that ends
// any process left in it.
func (s *jobStarted) Close() error {
	if s.job == 0 {
		return nil
	}
	err := windows.CloseHandle(s.job)
	s.job = 0
	return err
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
	if err := windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.LABEL_SECURITY_INFORMATION, nil, nil, nil, sacl); err != nil {
		return fmt.Errorf("SetNamedSecurityInfo: %w", err)
	}
	return nil
}

// countFilesUpTo counts the files beneath a path, stopping at limit: more
// than WindowsMaxACEFiles is all the plan needs to know. A path that does
// not exist yet holds none; one that cannot be walked counts as limit, so that the container is left off
// rather than given an ACE nobody counted beneath.
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
