package seccomp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/sabline/sabline/internal/testkit"
	"golang.org/x/sys/unix"
)

// The kernel objects that are not files, and a file's metadata by every
// door, on the live kernel. Each case makes one call in a child process,
// once without a filter (the control) and once under the filter of a
// closed network; this process, which no filter holds, reads the case's
// witness (the kernel object, the file's mode, owner, times, attributes
// or extended attributes) before and after each. A refusal counts only
// when the witness is unchanged; the control must change it, so that the
// call is shown to do what the filter keeps it from doing.

// objectChildEnv names the case and mode of a child: NAME:control or
// NAME:filtered, and objectArgEnv the case's argument (a path or a name).
// A case that works on a descriptor finds it at 3, inherited.
const (
	objectChildEnv = "SABLINE_SECCOMP_OBJECT"
	objectArgEnv   = "SABLINE_SECCOMP_OBJECT_ARG"
)

// objectCase is one call and its witness.
type objectCase struct {
	name string
	// setup makes what the call acts on, in dir, and returns the child's
	// argument, the descriptor it inherits (nil for none), the witness
	// and what removes what setup made. An error skips the case, with
	// its reason: the kernel or file system lacks the object.
	setup func(t *testing.T, dir string) (objectState, error)
	// call makes the call in the child.
	call func(arg string) error
}

// objectState is what setup made.
type objectState struct {
	arg     string
	file    *os.File
	witness func() string
	cleanup func()
}

// sysvKey is a System V IPC key for this process's cases; a child is
// given it as its argument.
func sysvKey() uintptr { return uintptr(0x5ab10000 | os.Getpid()&0xffff) }

func ptr(s string) uintptr {
	p, err := unix.BytePtrFromString(s)
	if err != nil {
		panic(err)
	}
	return uintptr(unsafe.Pointer(p))
}

// mqWitness says whether the POSIX message queue name exists, and how
// many messages it holds, by opening it here.
func mqWitness(name string) string {
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, ptr(name), unix.O_RDONLY, 0, 0, 0, 0)
	if errno != 0 {
		return "absent: " + errno.Error()
	}
	defer unix.Close(int(fd))
	var attr [8]int64 // struct mq_attr: flags, maxmsg, msgsize, curmsgs, reserved
	if _, _, errno := unix.Syscall(unix.SYS_MQ_GETSETATTR, fd, 0, uintptr(unsafe.Pointer(&attr))); errno != 0 {
		return "present, unreadable: " + errno.Error()
	}
	return fmt.Sprintf("present, %d messages", attr[3])
}

// mqMake makes the queue name here, and returns its descriptor.
func mqMake(name string) (*os.File, error) {
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, ptr(name), unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600, 0, 0, 0)
	if errno != 0 {
		return nil, fmt.Errorf("mq_open(O_CREAT) here: %w", errno)
	}
	return os.NewFile(fd, name), nil
}

func mqUnlink(name string) { unix.Syscall(unix.SYS_MQ_UNLINK, ptr(name), 0, 0) }

// sysvWitness says whether the System V object of key exists.
func sysvWitness(get uintptr) func() string {
	return func() string {
		id, _, errno := unix.Syscall(get, sysvKey(), 0, 0)
		if errno != 0 {
			return "absent: " + errno.Error()
		}
		return "present, id " + strconv.Itoa(int(id))
	}
}

// sysvRemove removes the System V object of key, if there is one.
func sysvRemove(get, ctl uintptr) func() {
	return func() {
		id, _, errno := unix.Syscall(get, sysvKey(), 0, 0)
		if errno != 0 {
			return
		}
		if ctl == unix.SYS_SEMCTL {
			unix.Syscall6(ctl, id, 0, unix.IPC_RMID, 0, 0, 0)
		} else {
			unix.Syscall(ctl, id, unix.IPC_RMID, 0)
		}
	}
}

// sysvCase makes a System V object of key with IPC_CREAT in the child.
func sysvCase(name string, get, ctl uintptr, extra uintptr) objectCase {
	return objectCase{
		name: name,
		setup: func(t *testing.T, dir string) (objectState, error) {
			sysvRemove(get, ctl)()
			return objectState{arg: strconv.Itoa(int(sysvKey())), witness: sysvWitness(get), cleanup: sysvRemove(get, ctl)}, nil
		},
		call: func(arg string) error {
			// The key is this test's, named by the parent.
			key, _ := strconv.Atoi(arg)
			args := []uintptr{uintptr(key), extra, unix.IPC_CREAT | unix.IPC_EXCL | 0o600}
			if get == unix.SYS_MSGGET { // msgget(key, flags)
				args = []uintptr{uintptr(key), unix.IPC_CREAT | unix.IPC_EXCL | 0o600, 0}
			}
			_, _, errno := unix.Syscall(get, args[0], args[1], args[2])
			return errnoOf(errno)
		},
	}
}

// fileWitness reads what the kernel holds of path: its mode, owner,
// times, inode flags and user.sabline extended attribute.
func fileWitness(path string) func() string {
	return func() string {
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			return "lstat: " + err.Error()
		}
		flags := "?"
		if fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
			if f, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS); err == nil {
				flags = fmt.Sprintf("%#x", f)
			}
			unix.Close(fd)
		}
		buf := make([]byte, 64)
		xattr := "none"
		if n, err := unix.Lgetxattr(path, "user.sabline", buf); err == nil {
			xattr = strconv.Quote(string(buf[:n]))
		}
		return fmt.Sprintf("mode %o, owner %d:%d, mtime %d.%09d, flags %s, user.sabline %s",
			st.Mode, st.Uid, st.Gid, st.Mtim.Sec, st.Mtim.Nsec, flags, xattr)
	}
}

// fileCase acts on a scratch file: by its path (arg), or by a descriptor
// of it the child inherits at 3 when withFD is set. xattr gives the file
// a user.sabline attribute first, for the cases that remove it.
func fileCase(name string, withFD, xattr bool, call func(arg string) error) objectCase {
	return objectCase{
		name: name,
		setup: func(t *testing.T, dir string) (objectState, error) {
			path := filepath.Join(dir, "scratch")
			if err := os.WriteFile(path, []byte("scratch\n"), 0o640); err != nil {
				return objectState{}, err
			}
			if err := unix.Setxattr(path, "user.probe", []byte("1"), 0); err != nil {
				return objectState{}, fmt.Errorf("this file system keeps no user extended attributes: %w", err)
			}
			if xattr {
				if err := unix.Setxattr(path, "user.sabline", []byte("kept"), 0); err != nil {
					return objectState{}, err
				}
			}
			st := objectState{arg: path, witness: fileWitness(path), cleanup: func() {}}
			if withFD {
				f, err := os.OpenFile(path, os.O_RDWR, 0)
				if err != nil {
					return objectState{}, err
				}
				st.file = f
			}
			return st, nil
		},
		call: call,
	}
}

// inherited is the descriptor a child inherits.
const inherited = 3

// objectCases are the calls of this test. Each passes harmless arguments:
// the objects are this test's own, and are removed after.
func objectCases() []objectCase {
	mqName := fmt.Sprintf("sabline-test-%d", os.Getpid())
	return []objectCase{
		{
			name: "mq_open(O_CREAT) makes a queue",
			setup: func(t *testing.T, dir string) (objectState, error) {
				mqUnlink(mqName)
				return objectState{arg: mqName, witness: func() string { return mqWitness(mqName) },
					cleanup: func() { mqUnlink(mqName) }}, nil
			},
			call: func(arg string) error {
				fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, ptr(arg), unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600, 0, 0, 0)
				if errno == 0 {
					unix.Close(int(fd))
				}
				return errnoOf(errno)
			},
		},
		{
			name: "mq_unlink removes a queue this process made",
			setup: func(t *testing.T, dir string) (objectState, error) {
				mqUnlink(mqName)
				f, err := mqMake(mqName)
				if err != nil {
					return objectState{}, err
				}
				f.Close()
				return objectState{arg: mqName, witness: func() string { return mqWitness(mqName) },
					cleanup: func() { mqUnlink(mqName) }}, nil
			},
			call: func(arg string) error {
				_, _, errno := unix.Syscall(unix.SYS_MQ_UNLINK, ptr(arg), 0, 0)
				return errnoOf(errno)
			},
		},
		{
			name: "mq_timedsend on an inherited queue descriptor",
			setup: func(t *testing.T, dir string) (objectState, error) {
				mqUnlink(mqName)
				f, err := mqMake(mqName)
				if err != nil {
					return objectState{}, err
				}
				return objectState{file: f, witness: func() string { return mqWitness(mqName) },
					cleanup: func() { mqUnlink(mqName) }}, nil
			},
			call: func(string) error {
				msg := []byte("x")
				_, _, errno := unix.Syscall6(unix.SYS_MQ_TIMEDSEND, inherited, uintptr(unsafe.Pointer(&msg[0])), 1, 0, 0, 0)
				return errnoOf(errno)
			},
		},
		sysvCase("shmget(IPC_CREAT) makes a shared memory segment", unix.SYS_SHMGET, unix.SYS_SHMCTL, 4096),
		sysvCase("msgget(IPC_CREAT) makes a message queue", unix.SYS_MSGGET, unix.SYS_MSGCTL, 0),
		sysvCase("semget(IPC_CREAT) makes a semaphore set", unix.SYS_SEMGET, unix.SYS_SEMCTL, 1),
		{
			name: "shmctl(IPC_RMID) removes a segment this process made",
			setup: func(t *testing.T, dir string) (objectState, error) {
				remove := sysvRemove(unix.SYS_SHMGET, unix.SYS_SHMCTL)
				remove()
				id, _, errno := unix.Syscall(unix.SYS_SHMGET, sysvKey(), 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
				if errno != 0 {
					return objectState{}, fmt.Errorf("shmget here: %w", errno)
				}
				return objectState{arg: strconv.Itoa(int(id)), witness: sysvWitness(unix.SYS_SHMGET), cleanup: remove}, nil
			},
			call: func(arg string) error {
				id, _ := strconv.Atoi(arg)
				_, _, errno := unix.Syscall(unix.SYS_SHMCTL, uintptr(id), unix.IPC_RMID, 0)
				return errnoOf(errno)
			},
		},
		{
			name: "add_key puts a key on the session keyring",
			setup: func(t *testing.T, dir string) (objectState, error) {
				desc := fmt.Sprintf("sabline-test-%d", os.Getpid())
				witness := func() string {
					id, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", desc, 0)
					if err != nil {
						return "absent: " + err.Error()
					}
					return "present, key " + strconv.Itoa(id)
				}
				if _, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, true); err != nil {
					return objectState{}, fmt.Errorf("no session keyring here: %w", err)
				}
				revoke := func() {
					if id, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", desc, 0); err == nil {
						unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_SESSION_KEYRING, 0, 0)
						unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0)
					}
				}
				revoke()
				return objectState{arg: desc, witness: witness, cleanup: revoke}, nil
			},
			call: func(arg string) error {
				_, err := unix.AddKey("user", arg, []byte("x"), unix.KEY_SPEC_SESSION_KEYRING)
				return err
			},
		},
		fileCase("file_setattr sets FS_XFLAG_NODUMP by path", false, false, func(arg string) error {
			var attr [24]byte // struct file_attr, FILE_ATTR_SIZE_VER0
			*(*uint64)(unsafe.Pointer(&attr[0])) = fsXflagNodump
			_, _, errno := unix.Syscall6(unix.SYS_FILE_SETATTR, atFDCWD, ptr(arg), uintptr(unsafe.Pointer(&attr[0])), 24, 0, 0)
			return errnoOf(errno)
		}),
		fileCase("lsetxattr by path", false, false, func(arg string) error {
			return unix.Lsetxattr(arg, "user.sabline", []byte("set"), 0)
		}),
		fileCase("setxattrat by path", false, false, func(arg string) error {
			v := []byte("set")
			// struct xattr_args: the value's address, its size, flags.
			var args [16]byte
			*(*uint64)(unsafe.Pointer(&args[0])) = uint64(uintptr(unsafe.Pointer(&v[0])))
			*(*uint32)(unsafe.Pointer(&args[8])) = uint32(len(v))
			_, _, errno := unix.Syscall6(unix.SYS_SETXATTRAT, atFDCWD, ptr(arg), 0, ptr("user.sabline"), uintptr(unsafe.Pointer(&args[0])), 16)
			runtime.KeepAlive(v)
			return errnoOf(errno)
		}),
		fileCase("removexattr by path", false, true, func(arg string) error {
			return unix.Removexattr(arg, "user.sabline")
		}),
		fileCase("fsetxattr on an inherited descriptor", true, false, func(string) error {
			return unix.Fsetxattr(inherited, "user.sabline", []byte("set"), 0)
		}),
		fileCase("fremovexattr on an inherited descriptor", true, true, func(string) error {
			return unix.Fremovexattr(inherited, "user.sabline")
		}),
		fileCase("fchmod on an inherited descriptor", true, false, func(string) error {
			return unix.Fchmod(inherited, 0o604)
		}),
		fileCase("fchown on an inherited descriptor", true, false, func(string) error {
			return unix.Fchown(inherited, 65534, -1)
		}),
		fileCase("utimensat on an inherited descriptor", true, false, func(string) error {
			ts := []unix.Timespec{{Sec: 1}, {Sec: 1}}
			_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, inherited, 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
			return errnoOf(errno)
		}),
		fileCase("fchmodat2 by path", false, false, func(arg string) error {
			_, _, errno := unix.Syscall6(unix.SYS_FCHMODAT2, atFDCWD, ptr(arg), 0o604, 0, 0, 0)
			return errnoOf(errno)
		}),
	}
}

// TestSeccompKernelObjects runs each case's call in a child, without and
// with the filter, and compares the witness before and after each.
func TestSeccompKernelObjects(t *testing.T) {
	if _, ok := NativeArch(); !ok {
		t.Skipf("no system call table for %s", runtime.GOARCH)
	}
	for _, c := range objectCases() {
		t.Run(c.name, func(t *testing.T) {
			// Credentials, and with them the session keyring, are a
			// thread's: the witness is read, and the child started, from
			// one thread.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			results := map[string]string{}
			for _, mode := range []string{"control", "filtered"} {
				st, err := c.setup(t, t.TempDir())
				if err != nil {
					t.Skipf("cannot be tried here: %v", err)
				}
				before := st.witness()
				out, runErr := runObjectChild(c.name, mode, st)
				after := st.witness()
				st.cleanup()
				if st.file != nil {
					st.file.Close()
				}
				if runErr != nil {
					t.Fatalf("%s child: %v\n%s", mode, runErr, out)
				}
				errno := strings.TrimSpace(out)
				results[mode] = errno
				switch mode {
				case "control":
					if before == after {
						t.Fatalf("control: the witness did not change (%s), call answered %s: the call shows nothing here", before, errno)
					}
					t.Logf("control: %s; witness %q -> %q", errno, before, after)
				case "filtered":
					if before != after {
						t.Errorf("filtered: the witness changed: %q -> %q (call answered %s)", before, after, errno)
					}
					if errno != "EPERM" {
						t.Errorf("filtered: the call answered %s, want EPERM", errno)
					}
					t.Logf("filtered: %s; witness %q unchanged", errno, after)
				}
			}
		})
	}
}

// runObjectChild runs case name in a child in mode and returns what it
// printed: the call's errno name, or "ok".
func runObjectChild(name, mode string, st objectState) (string, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSeccompKernelObjectsChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), objectChildEnv+"="+name+":"+mode, objectArgEnv+"="+st.arg)
	if st.file != nil {
		cmd.ExtraFiles = []*os.File{st.file}
	}
	out, err := cmd.Output()
	s := string(out)
	i := strings.Index(s, "RESULT ")
	if err != nil || i < 0 {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			s += string(ee.Stderr)
		}
		return s, fmt.Errorf("no result: %v", err)
	}
	line, _, _ := strings.Cut(s[i+len("RESULT "):], "\n")
	return line, nil
}

// TestSeccompKernelObjectsChild does the work of TestSeccompKernelObjects
// in the child: it installs the filter when asked, makes the call, and
// prints its errno.
func TestSeccompKernelObjectsChild(t *testing.T) {
	spec := os.Getenv(objectChildEnv)
	if spec == "" {
		t.Skip("run by TestSeccompKernelObjects, in a process of its own")
	}
	testkit.EndChildBeforeCoverage(t)
	name, mode, _ := strings.Cut(spec, ":")
	var c *objectCase
	for _, oc := range objectCases() {
		if oc.name == name {
			c = &oc
		}
	}
	if c == nil {
		t.Fatalf("no case %q", name)
	}
	if mode == "filtered" {
		installFilter(t, Config{Sockets: NoSockets, PID: os.Getpid()})
	}
	result := "ok"
	if err := c.call(os.Getenv(objectArgEnv)); err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			t.Fatalf("%s: %v", name, err)
		}
		result = unix.ErrnoName(errno)
	}
	fmt.Printf("RESULT %s\n", result)
}

// fsXflagNodump is FS_XFLAG_NODUMP of linux/fs.h, which x/sys/unix does
// not name: the "d" lsattr shows, FS_NODUMP_FL among the inode flags.
const fsXflagNodump = 0x80
