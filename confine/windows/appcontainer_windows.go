//go:build windows

package windows

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The system's side of the AppContainer: the machine-wide lock, the ACL
// editor, the record store and the profile, for the protocol of
// appcontainer.go; the short-name probe; and the start of a process
// inside a container. x/sys/windows lacks the userenv calls and a few of
// kernel32's, loaded here.

var (
	userenv                         = windows.NewLazySystemDLL("userenv.dll")
	procCreateAppContainerProfile   = userenv.NewProc("CreateAppContainerProfile")
	procDeleteAppContainerProfile   = userenv.NewProc("DeleteAppContainerProfile")
	procDeriveAppContainerSidFromAC = userenv.NewProc("DeriveAppContainerSidFromAppContainerName")
)

// procGetHandleInformation is kernel32's GetHandleInformation, which
// x/sys/windows does not wrap.
var procGetHandleInformation = windows.NewLazySystemDLL("kernel32.dll").NewProc(
	"GetHandleInformation")

// procThreadAttributeSecurityCapabilities is
// PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES: ProcThreadAttributeValue(9,
// FALSE, TRUE, FALSE).
const procThreadAttributeSecurityCapabilities = 0x00020009

// securityCapabilities is SECURITY_CAPABILITIES (winnt.h).
type securityCapabilities struct {
	AppContainerSid *windows.SID
	Capabilities    *windows.SIDAndAttributes
	CapabilityCount uint32
	Reserved        uint32
}

// aceLockName is the machine-wide mutex held around each ACE write.
const aceLockName = `Global\sabline-ace`

// aceLockWait is how long one ACE write waits for its turn.
const aceLockWait = 10 * time.Second

// mutexLock is the machine-wide named mutex. A mutex is owned by a
// thread, so Lock pins the goroutine to its thread until Unlock.
type mutexLock struct{ h windows.Handle }

func newMutexLock() (*mutexLock, error) {
	name, err := windows.UTF16PtrFromString(aceLockName)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateMutex(nil, false, name)
	if h == 0 { // ERROR_ALREADY_EXISTS comes with the existing mutex
		return nil, fmt.Errorf("CreateMutex(%s): %w", aceLockName, err)
	}
	return &mutexLock{h: h}, nil
}

func (l *mutexLock) Lock(wait time.Duration) error {
	runtime.LockOSThread()
	ev, err := windows.WaitForSingleObject(l.h, uint32(wait/time.Millisecond))
	switch ev {
	case windows.WAIT_OBJECT_0, windows.WAIT_ABANDONED: // a holder that died left it to us
		return nil
	case uint32(windows.WAIT_TIMEOUT):
		runtime.UnlockOSThread()
		return errACELockWait
	}
	runtime.UnlockOSThread()
	return fmt.Errorf("WaitForSingleObject(%s): %w", aceLockName, err)
}

func (l *mutexLock) Unlock() error {
	defer runtime.UnlockOSThread()
	return windows.ReleaseMutex(l.h)
}

func (l *mutexLock) close() { windows.CloseHandle(l.h) }

// fileACL edits a file's DACL: read it (GetNamedSecurityInfo), merge an
// entry (SetEntriesInAcl, through ACLFromEntries), write it back
// (SetNamedSecurityInfo, which also rewrites what inherits from it).
type fileACL struct{}

func (fileACL) edit(path string, ea windows.EXPLICIT_ACCESS) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("GetNamedSecurityInfo(%s): %w", path, err)
	}
	old, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("the DACL of %s: %w", path, err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{ea}, old)
	if err != nil {
		return fmt.Errorf("SetEntriesInAcl(%s): %w", path, err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
		return fmt.Errorf("SetNamedSecurityInfo(%s): %w", path, err)
	}
	return nil
}

func sidTrustee(s string) (windows.TRUSTEE, error) {
	sid, err := windows.StringToSid(s)
	if err != nil {
		return windows.TRUSTEE{}, fmt.Errorf("the SID %s: %w", s, err)
	}
	return windows.TRUSTEE{TrusteeForm: windows.TRUSTEE_IS_SID,
		TrusteeType:  windows.TRUSTEE_IS_WELL_KNOWN_GROUP,
		TrusteeValue: windows.TrusteeValueFromSID(sid)}, nil
}

func (a fileACL) Grant(g aceGrant) error {
	t, err := sidTrustee(g.SID)
	if err != nil {
		return err
	}
	return a.edit(g.Path, windows.EXPLICIT_ACCESS{AccessPermissions: windows.ACCESS_MASK(g.Mask),
		AccessMode: windows.GRANT_ACCESS, Inheritance: g.Inherit, Trustee: t})
}

// Revoke removes every ACE for sid (REVOKE_ACCESS).
func (a fileACL) Revoke(sid, path string) error {
	t, err := sidTrustee(sid)
	if err != nil {
		return err
	}
	err = a.edit(path, windows.EXPLICIT_ACCESS{AccessMode: windows.REVOKE_ACCESS, Trustee: t})
	if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
		return nil // nothing left to hold the ACE
	}
	return err
}

// fileRecords keeps records as files in a machine-wide directory. A run
// holds its record open with no delete sharing, so that no one can claim
// it; when the run dies the system closes it, and the next run can open
// it alone.
type fileRecords struct{ dir string }

type fileRecord struct {
	h    windows.Handle
	path string
	data []byte
}

func (r *fileRecord) Name() string { return filepath.Base(r.path) }
func (r *fileRecord) Data() []byte { return r.data }
func (r *fileRecord) Release(remove bool) error {
	err := windows.CloseHandle(r.h)
	if remove {
		if rerr := os.Remove(r.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

func (s fileRecords) open(path string, access, share, disposition uint32) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	return windows.CreateFile(p, access, share, nil, disposition, windows.FILE_ATTRIBUTE_NORMAL, 0)
}

func (s fileRecords) Hold(name string, data []byte) (heldRecord, error) {
	path := filepath.Join(s.dir, name)
	h, err := s.open(path, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.FILE_SHARE_READ,
		windows.CREATE_NEW)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	var n uint32
	if err := windows.WriteFile(h, data, &n, nil); err == nil && int(n) == len(data) {
		err = windows.FlushFileBuffers(h)
	} else if err == nil {
		err = io.ErrShortWrite
	}
	if err != nil {
		windows.CloseHandle(h)
		os.Remove(path)
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &fileRecord{h: h, path: path}, nil
}

func (s fileRecords) Claim() ([]claimedRecord, error) {
	paths, err := filepath.Glob(filepath.Join(s.dir, "*.ace"))
	if err != nil {
		return nil, err
	}
	var out []claimedRecord
	for _, path := range paths {
		h, err := s.open(path, windows.GENERIC_READ|windows.DELETE, 0, windows.OPEN_EXISTING)
		if err != nil {
			continue // held by a run that lives, or gone already
		}
		f := os.NewFile(uintptr(h), path)
		data, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
		if err != nil {
			f.Close()
			continue
		}
		// The os.File would close h when collected: take the handle back.
		dup, err := dupHandle(h)
		f.Close()
		if err != nil {
			continue
		}
		out = append(out, &fileRecord{h: dup, path: path, data: data})
	}
	return out, nil
}

// dupHandle duplicates h within this process.
func dupHandle(h windows.Handle) (windows.Handle, error) {
	var dup windows.Handle
	self := windows.CurrentProcess()
	err := windows.DuplicateHandle(self, h, self, &dup, 0, false, windows.DUPLICATE_SAME_ACCESS)
	return dup, err
}

// stateDir is the machine-wide directory of records and of the probe's
// remembered no: %ProgramData%\Sabline.
func stateDir() (string, error) {
	base, err := windows.KnownFolderPath(windows.FOLDERID_ProgramData, 0)
	if err != nil {
		return "", fmt.Errorf("the ProgramData folder: %w", err)
	}
	dir := filepath.Join(base, "Sabline", "appcontainer")
	return dir, os.MkdirAll(dir, 0o755)
}

// deleteProfile is DeleteAppContainerProfile.
func deleteProfile(name string) error {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return err
	}
	if hr, _, _ := procDeleteAppContainerProfile.Call(uintptr(unsafe.Pointer(p))); hr != 0 {
		return fmt.Errorf("DeleteAppContainerProfile(%s): HRESULT %#x", name, uint32(hr))
	}
	return nil
}

// createProfile is CreateAppContainerProfile of name with the
// capabilities given as SID strings. A profile of that name left by an
// earlier run is reused (its SID is derived from the name). The SID is
// FreeSid's to free.
func createProfile(name string, caps []string) (*windows.SID, error) {
	n, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	var attrs []windows.SIDAndAttributes
	for _, c := range caps {
		sid, err := windows.StringToSid(c)
		if err != nil {
			return nil, fmt.Errorf("capability %s: %w", c, err)
		}
		attrs = append(attrs, windows.SIDAndAttributes{Sid: sid, Attributes: windows.SE_GROUP_ENABLED})
	}
	var capsPtr *windows.SIDAndAttributes
	if len(attrs) > 0 {
		capsPtr = &attrs[0]
	}
	var sid *windows.SID
	hr, _, _ := procCreateAppContainerProfile.Call(uintptr(unsafe.Pointer(n)),
		uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(n)),
		uintptr(unsafe.Pointer(capsPtr)), uintptr(len(attrs)), uintptr(unsafe.Pointer(&sid)))
	runtime.KeepAlive(attrs)
	const hrAlreadyExists = 0x800700B7 // HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS)
	if uint32(hr) == hrAlreadyExists {
		hr, _, _ = procDeriveAppContainerSidFromAC.Call(uintptr(unsafe.Pointer(n)),
			uintptr(unsafe.Pointer(&sid)))
	}
	if hr != 0 || sid == nil {
		return nil, fmt.Errorf("CreateAppContainerProfile(%s): HRESULT %#x", name, uint32(hr))
	}
	return sid, nil
}

// capabilitySIDs are the SIDs of the plan's capabilities.
var capabilitySIDs = map[string]string{"internetClient": "S-1-15-3-1"}

// container is a run's AppContainer: its profile, SID and ACEs.
type container struct {
	profile string
	sid     *windows.SID
	caps    []windows.SIDAndAttributes
	aces    *grantedACEs
	lock    *mutexLock
}

// openContainer makes the run's profile and gives its SID the plan's
// ACEs, under the machine-wide lock and with a record, after the probe
// says this system's containers resolve paths as their parent does. It
// returns the reason the container is left off when it is, or an error.
func openContainer(plan Plan, runID string) (*container, string) {
	if runID == "" {
		runID = strconv.FormatInt(time.Now().UnixNano(), 36) + strconv.Itoa(os.Getpid())
	}
	name := profileName(runID)
	if name == "" {
		return nil, "the run's id cannot name an AppContainer profile"
	}
	dir, err := stateDir()
	if err != nil {
		return nil, "the machine-wide AppContainer directory: " + err.Error()
	}
	memory := filepath.Join(dir, probeMemoryName(buildVersion()))
	_, statErr := os.Stat(memory)
	if statErr == nil {
		return nil, decideProbe(true, nil).Reason
	}
	var caps []windows.SIDAndAttributes
	var capNames []string
	for _, c := range plan.Capabilities {
		s, ok := capabilitySIDs[c]
		if !ok {
			return nil, "the plan names the capability " + c + ", which this build cannot give"
		}
		capNames = append(capNames, s)
	}
	sid, err := createProfile(name, capNames)
	if err != nil {
		return nil, "the AppContainer profile could not be made: " + err.Error()
	}
	for _, c := range capNames {
		cs, _ := windows.StringToSid(c)
		caps = append(caps, windows.SIDAndAttributes{Sid: cs, Attributes: windows.SE_GROUP_ENABLED})
	}
	c := &container{profile: name, sid: sid, caps: caps}
	fail := func(reason string) (*container, string) {
		c.close()
		return nil, reason
	}
	grants, err := acePlan(plan.ACEs, sid.String(), func(p string) (bool, error) {
		fi, err := os.Stat(p)
		if err != nil {
			return false, err
		}
		return fi.IsDir(), nil
	})
	if err != nil {
		return fail(err.Error())
	}
	c.lock, err = newMutexLock()
	if err != nil {
		return fail("the machine-wide ACE lock: " + err.Error())
	}
	host := aceHost{Lock: c.lock, ACL: fileACL{}, Records: fileRecords{dir: dir},
		DeleteProfile: deleteProfile, LockWait: aceLockWait}
	c.aces, err = grantACEs(host, name, grants)
	if err != nil {
		return fail("the container's ACEs could not be given: " + err.Error())
	}
	verdict := decideProbe(false, probeShortNames(c, grants))
	if verdict.Remember {
		_ = os.WriteFile(memory, []byte(verdict.Reason+"\n"), 0o644)
	}
	if !verdict.Trusted {
		return fail(verdict.Reason)
	}
	return c, ""
}

// close takes the ACEs back, deletes the profile and frees the SID.
func (c *container) close() error {
	var errs []error
	if c.aces != nil {
		errs = append(errs, c.aces.Revoke())
		c.aces = nil
	}
	if c.profile != "" {
		errs = append(errs, deleteProfile(c.profile))
		c.profile = ""
	}
	if c.sid != nil {
		windows.FreeSid(c.sid)
		c.sid = nil
	}
	if c.lock != nil {
		c.lock.close()
		c.lock = nil
	}
	return errors.Join(errs...)
}

// buildVersion keys the probe's remembered no: the module's version and
// the commit it was built from, where the build recorded them.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" && s.Value == "true" {
			v += "-" + s.Value
		}
	}
	return v
}

// The probe: the worker binary, started inside the container with
// probeArg and the short spellings, prints what each resolves to there.
const (
	probeArg  = "__sabline_container_probe"
	probeEnv  = "SABLINE_CONTAINER_PROBE"
	probeWait = 10 * time.Second
)

// init answers the probe, before main runs, when this binary was started
// as one: both the argument and the variable say so.
func init() {
	if len(os.Args) < 2 || os.Args[1] != probeArg || os.Getenv(probeEnv) != "1" {
		return
	}
	for _, short := range os.Args[2:] {
		if long, err := finalPath(short); err != nil {
			fmt.Println("ERR " + strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Println("OK " + long)
		}
	}
	os.Exit(0)
}

// finalPath opens path and returns the name the system gives what it
// opened (GetFinalPathNameByHandle), without the \\?\ prefix.
func finalPath(path string) (string, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return "", err
	}
	h, err := windows.CreateFile(p, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", path, err)
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), 0)
	if err != nil {
		return "", fmt.Errorf("GetFinalPathNameByHandle(%s): %w", path, err)
	}
	s := windows.UTF16ToString(buf[:n])
	if rest, ok := strings.CutPrefix(s, `\\?\UNC\`); ok {
		return `\\` + rest, nil
	}
	return strings.TrimPrefix(s, `\\?\`), nil
}

// shortName is GetShortPathName of path, "" when the volume keeps no
// short name for it.
func shortName(path string) string {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return ""
	}
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetShortPathName(p, &buf[0], uint32(len(buf)))
	if err != nil || n == 0 || int(n) > len(buf) {
		return ""
	}
	s := windows.UTF16ToString(buf[:n])
	if strings.EqualFold(s, path) {
		return ""
	}
	return s
}

// probeShortNames asks a process inside c what the short spelling of each
// granted path resolves to, beside what it resolves to here.
func probeShortNames(c *container, grants []aceGrant) []probeAnswer {
	var answers []probeAnswer
	var shorts []string
	for _, g := range grants {
		short := shortName(g.Path)
		if short == "" {
			answers = append(answers, probeAnswer{Path: g.Path})
			continue
		}
		here, err := finalPath(g.Path)
		a := probeAnswer{Path: here, Short: short}
		if err != nil {
			a.Path, a.Err = g.Path, err.Error()
		}
		answers = append(answers, a)
		shorts = append(shorts, short)
	}
	if len(shorts) == 0 {
		return answers
	}
	exe, err := os.Executable()
	if err != nil {
		return withProbeErr(answers, "find the sabline executable: "+err.Error())
	}
	r, w, err := os.Pipe()
	if err != nil {
		return withProbeErr(answers, err.Error())
	}
	defer r.Close()
	env := append(os.Environ(), probeEnv+"=1")
	pi, err := startInContainer(c, exe, append([]string{exe, probeArg}, shorts...), env, "",
		[3]*os.File{nil, w, nil}, nil)
	w.Close()
	if err != nil {
		return withProbeErr(answers, "start the probe in the container: "+err.Error())
	}
	defer windows.CloseHandle(pi.Process)
	windows.ResumeThread(pi.Thread)
	windows.CloseHandle(pi.Thread)
	outc := make(chan []byte, 1)
	go func() {
		out, _ := io.ReadAll(io.LimitReader(r, 1<<20))
		outc <- out
	}()
	var out []byte
	select {
	case out = <-outc:
	case <-time.After(probeWait):
		windows.TerminateProcess(pi.Process, 1)
		return withProbeErr(answers, "the probe gave no answer in "+probeWait.String())
	}
	windows.WaitForSingleObject(pi.Process, uint32(probeWait/time.Millisecond))
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(out), "\r\n", "\n")), "\n")
	i := 0
	for k := range answers {
		if answers[k].Short == "" || answers[k].Err != "" {
			continue
		}
		switch {
		case i >= len(lines):
			answers[k].Err = "the probe gave no answer"
		case strings.HasPrefix(lines[i], "OK "):
			answers[k].Resolved = strings.TrimPrefix(lines[i], "OK ")
		default:
			answers[k].Err = strings.TrimPrefix(lines[i], "ERR ")
		}
		i++
	}
	return answers
}

func withProbeErr(answers []probeAnswer, msg string) []probeAnswer {
	for k := range answers {
		if answers[k].Short != "" && answers[k].Err == "" {
			answers[k].Err = msg
		}
	}
	return answers
}

// startInContainer creates a process, suspended, inside c: CreateProcess
// with STARTUPINFOEX carrying PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES
// and a PROC_THREAD_ATTRIBUTE_HANDLE_LIST of exactly the standard handles
// and extra. A nil standard file is NUL. The caller resumes the thread.
func startInContainer(c *container, exe string, args, env []string, dir string, std [3]*os.File,
	extra []windows.Handle) (*windows.ProcessInformation, error) {
	for i, f := range std {
		if f == nil {
			null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				return nil, err
			}
			defer null.Close()
			std[i] = null
		}
	}
	handles := []windows.Handle{windows.Handle(std[0].Fd()), windows.Handle(std[1].Fd()),
		windows.Handle(std[2].Fd())}
	handles = append(handles, extra...)
	handles = uniqueHandles(handles)

	attrs, err := windows.NewProcThreadAttributeList(2)
	if err != nil {
		return nil, fmt.Errorf("InitializeProcThreadAttributeList: %w", err)
	}
	defer attrs.Delete()
	sc := securityCapabilities{AppContainerSid: c.sid, CapabilityCount: uint32(len(c.caps))}
	if len(c.caps) > 0 {
		sc.Capabilities = &c.caps[0]
	}
	if err := attrs.Update(procThreadAttributeSecurityCapabilities, unsafe.Pointer(&sc),
		unsafe.Sizeof(sc)); err != nil {
		return nil, fmt.Errorf("UpdateProcThreadAttribute(security capabilities): %w", err)
	}
	if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST, unsafe.Pointer(&handles[0]),
		uintptr(len(handles))*unsafe.Sizeof(handles[0])); err != nil {
		return nil, fmt.Errorf("UpdateProcThreadAttribute(handle list): %w", err)
	}

	si := windows.StartupInfoEx{ProcThreadAttributeList: attrs.List()}
	si.Cb = uint32(unsafe.Sizeof(si))
	si.Flags = windows.STARTF_USESTDHANDLES
	si.StdInput, si.StdOutput, si.StdErr = windows.Handle(std[0].Fd()), windows.Handle(std[1].Fd()),
		windows.Handle(std[2].Fd())

	exeP, err := windows.UTF16PtrFromString(exe)
	if err != nil {
		return nil, err
	}
	cmdLine, err := windows.UTF16PtrFromString(windows.ComposeCommandLine(args))
	if err != nil {
		return nil, err
	}
	var dirP *uint16
	if dir != "" {
		if dirP, err = windows.UTF16PtrFromString(dir); err != nil {
			return nil, err
		}
	}
	block, err := envBlock(env)
	if err != nil {
		return nil, err
	}

	// Handles are inherited only when marked so; mark them for the
	// length of the call, under the lock the os package holds for the
	// same reason, and give each its own mark back after.
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	was := make([]uint32, len(handles))
	defer func() {
		for i, h := range handles {
			windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, was[i]&windows.HANDLE_FLAG_INHERIT)
		}
	}()
	for i, h := range handles {
		if r, _, err := procGetHandleInformation.Call(uintptr(h),
			uintptr(unsafe.Pointer(&was[i]))); r == 0 {
			return nil, fmt.Errorf("GetHandleInformation: %w", err)
		}
		if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT,
			windows.HANDLE_FLAG_INHERIT); err != nil {
			return nil, fmt.Errorf("SetHandleInformation: %w", err)
		}
	}
	pi := new(windows.ProcessInformation)
	flags := uint32(windows.CREATE_SUSPENDED | windows.EXTENDED_STARTUPINFO_PRESENT |
		windows.CREATE_UNICODE_ENVIRONMENT)
	if err := windows.CreateProcess(exeP, cmdLine, nil, nil, true, flags, &block[0], dirP,
		&si.StartupInfo, pi); err != nil {
		return nil, fmt.Errorf("CreateProcess in the AppContainer: %w", err)
	}
	return pi, nil
}

// uniqueHandles drops repeats: a handle list may not name one twice.
func uniqueHandles(hs []windows.Handle) []windows.Handle {
	var out []windows.Handle
	for _, h := range hs {
		if h != 0 && h != windows.InvalidHandle && !containsHandle(out, h) {
			out = append(out, h)
		}
	}
	return out
}

func containsHandle(hs []windows.Handle, h windows.Handle) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// envBlock is env as CreateProcess takes it: NAME=VALUE strings, each
// NUL-terminated, then a NUL.
func envBlock(env []string) ([]uint16, error) {
	if len(env) == 0 {
		return []uint16{0, 0}, nil
	}
	var b []uint16
	for _, kv := range env {
		u, err := windows.UTF16FromString(kv)
		if err != nil {
			return nil, fmt.Errorf("environment: %w", err)
		}
		b = append(b, u...)
	}
	return append(b, 0), nil
}
