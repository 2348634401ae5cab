package escape

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit/proc"
)

const oNonblock = syscall.O_NONBLOCK

// describeMore reads what Lstat's portable fields leave out: owner, ctime,
// link count, inode, the attribute flags (FS_IOC_GETFLAGS, as lsattr
// shows them) and the extended attributes.
func describeMore(path string, fi fs.FileInfo) ([]string, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, errors.New("no stat_t")
	}
	words := []string{
		fmt.Sprintf("uid=%d", st.Uid), fmt.Sprintf("gid=%d", st.Gid),
		fmt.Sprintf("ctime=%d", st.Ctim.Nano()),
		fmt.Sprintf("nlink=%d", st.Nlink), fmt.Sprintf("ino=%d", st.Ino),
	}
	if fi.Mode().IsRegular() || fi.IsDir() {
		flags, err := attrFlags(path)
		if err != nil {
			return nil, err
		}
		words = append(words, fmt.Sprintf("flags=%#x", flags))
	}
	xattrs, err := xattrWords(path)
	if err != nil {
		return nil, err
	}
	return append(words, xattrs...), nil
}

// attrFlags reads a file's attribute flags; a file system without them
// reads as 0 (it cannot hold one for a run to set either).
func attrFlags(path string) (uint32, error) {
	fd, err := unix.Open(path,
		unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return 0, fmt.Errorf("open for FS_IOC_GETFLAGS: %w", err)
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EOPNOTSUPP) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("FS_IOC_GETFLAGS: %w", err)
	}
	return flags, nil
}

// xattrWords lists a path's extended attributes, not following a final
// link, as "xattr.NAME=SHA" words, sorted.
func xattrWords(path string) ([]string, error) {
	buf := make([]byte, 64<<10)
	n, err := unix.Llistxattr(path, buf)
	if errors.Is(err, unix.ENOTSUP) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("llistxattr: %w", err)
	}
	var words []string
	for _, name := range strings.Split(string(buf[:n]), "\x00") {
		if name == "" {
			continue
		}
		val := make([]byte, 64<<10)
		m, err := unix.Lgetxattr(path, name, val)
		if err != nil {
			return nil, fmt.Errorf("lgetxattr %s: %w", name, err)
		}
		words = append(words, "xattr."+name+"="+hashOf(val[:m]))
	}
	sort.Strings(words)
	return words, nil
}

// KeptXattr is the extended attribute every scratch world's
// $OUTSIDE/secret.txt carries, for a run to try to remove.
const KeptXattr = "user.sabline-escape-kept"

// markScratch gives $OUTSIDE/secret.txt the attribute KeptXattr.
func markScratch(s *Scratch) error {
	err := unix.Lsetxattr(s.Outside+"/secret.txt", KeptXattr, []byte("kept"), 0)
	if err != nil {
		return fmt.Errorf("setxattr %s: %w", KeptXattr, err)
	}
	return nil
}

// randomName is a name no other run uses.
func randomName() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("sabline-escape-%x", b), nil
}

// makeObject makes what a kernel-object placeholder names, and returns
// its value: $MQ is a queue the harness makes, $MQNEW the name of one
// that does not exist, $IPCKEY a System V key nothing uses, $KEYDESC the
// description of a key that does not exist. Close removes whatever bears
// these names.
func (s *Scratch) makeObject(p string) (string, error) {
	switch p {
	case "$MQ", "$MQNEW":
		name, err := randomName()
		if err != nil {
			return "", err
		}
		s.queues[p] = name
		if p == "$MQNEW" {
			return name, nil
		}
		fd, err := mqOpen(name, unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY)
		if err != nil {
			return "", fmt.Errorf("mq_open %s: %w", name, err)
		}
		unix.Close(fd)
		return name, nil
	case "$IPCKEY":
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		s.ipcKey = int64(binary.LittleEndian.Uint32(b[:])&0x3fffffff | 0x10000000)
		return strconv.FormatInt(s.ipcKey, 10), nil
	case "$KEYDESC":
		name, err := randomName()
		if err != nil {
			return "", err
		}
		s.keyDesc = name
		return name, nil
	}
	return "", errors.New("unknown placeholder")
}

// mqAttr is the kernel's struct mq_attr: four longs, and four reserved.
type mqAttr struct {
	flags, maxMsg, msgSize, curMsgs int
	_                               [4]int
}

// mqSmall is the size of a queue mqOpen makes: one message of one byte.
// Every queue of a user is charged its messages' room against the user's
// RLIMIT_MSGQUEUE (800 KiB by default), which every process of the user
// shares: one of the system's default size (ten messages of 8 KiB) takes
// a tenth of it, and a tenth queue of that size, made while the runs side
// by side (or another process of the user) held nine, was refused with
// EMFILE. One of this size takes about a hundred bytes.
var mqSmall = mqAttr{maxMsg: 1, msgSize: 1}

// mqOpen opens a POSIX message queue by its name (no leading slash, as
// the system call takes it); with O_CREAT, one it makes is of mqSmall's
// size.
func mqOpen(name string, flags int) (int, error) {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return -1, err
	}
	attr := mqSmall
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), uintptr(flags), 0o600,
		uintptr(unsafe.Pointer(&attr)), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// kernelObjects adds to st the kernel objects the placeholders named.
func (s *Scratch) kernelObjects(st State) error {
	for p, q := range s.queues {
		fd, err := mqOpen(q, unix.O_RDONLY|unix.O_NONBLOCK)
		switch {
		case err == nil:
			unix.Close(fd)
			st[WitnessMqueue+":"+p] = "exists=yes"
		case errors.Is(err, unix.ENOENT):
			// absent: no entry
		default:
			return fmt.Errorf("witness: mq_open %s: %w", q, err)
		}
	}
	if s.ipcKey != 0 {
		for _, kind := range []string{"shm", "msg", "sem"} {
			ids, err := sysvIDs(kind, s.ipcKey)
			if err != nil {
				return err
			}
			if len(ids) > 0 {
				st[WitnessSysV+":"+kind+":$IPCKEY"] = fmt.Sprintf("ids=%d", len(ids))
			}
		}
	}
	if s.keyDesc != "" {
		ids, err := keyIDs(s.keyDesc)
		if err != nil {
			return err
		}
		if len(ids) > 0 {
			st[WitnessKeys+":$KEYDESC"] = fmt.Sprintf("keys=%d", len(ids))
		}
	}
	return nil
}

// sysvIDs returns the ids of the System V objects of a kind ("shm",
// "msg", "sem") whose key is key, from /proc/sysvipc.
func sysvIDs(kind string, key int64) ([]int, error) {
	data, err := os.ReadFile("/proc/sysvipc/" + kind)
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	var ids []int
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != strconv.FormatInt(key, 10) {
			continue
		}
		id, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("witness: /proc/sysvipc/%s: %q", kind, line)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// keyIDs returns the ids of the keys in /proc/keys described as desc.
func keyIDs(desc string) ([]int, error) {
	data, err := os.ReadFile("/proc/keys")
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	var ids []int
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || strings.TrimSuffix(f[8], ":") != desc {
			continue
		}
		id, err := strconv.ParseInt(f[0], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("witness: /proc/keys: %q", line)
		}
		ids = append(ids, int(id))
	}
	return ids, nil
}

// victimState reads the victim from /proc: its nice value, process group,
// session and resource limits; "gone" once it has exited.
func (s *Scratch) victimState() string {
	select {
	case <-s.exited:
		return "alive=no"
	default:
	}
	pid := s.victim.Process.Pid
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "alive=unreadable"
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil || len(f) < 17 {
		return "alive=unreadable"
	}
	// f[0] is the state (field 3), f[2] the group, f[3] the session,
	// f[16] the nice value (field 19).
	return fmt.Sprintf("alive=yes pgrp=%s sid=%s nice=%s limits=%s", f[2], f[3], f[16],
		hashOf(limits))
}

// watchPriority starts the witness WitnessPriority: it sets the victim
// to nice 19, the lowest priority, so that a priority lent to it shows,
// and reads its priority from outside every priorityEvery until Close.
// The victim's priority is 20 plus its nice value (39) unless a waiter
// lends it its own; a worker is started at this process's, which must
// then be higher (below nice 19) for a lent one to show.
func (s *Scratch) watchPriority() error {
	if s.victim == nil {
		return errors.New("witness: a priority witness needs $VICTIM")
	}
	pid := s.victim.Process.Pid
	if err := unix.Setpriority(unix.PRIO_PROCESS, pid, 19); err != nil {
		return fmt.Errorf("witness: set the victim to nice 19: %w", err)
	}
	own, ok := priorityOf(pid)
	if !ok {
		return fmt.Errorf("witness: no priority in /proc/%d/stat", pid)
	}
	if self, ok := priorityOf(os.Getpid()); !ok || self >= own {
		return fmt.Errorf("witness: this process's priority is %d (nice 19?), not above the "+
			"victim's %d: a worker started at it would lend the victim nothing to see", self, own)
	}
	w := &priorityWatch{stop: make(chan struct{}), done: make(chan struct{})}
	w.lowest.Store(int64(own))
	seen := s.values["$SEEN"]
	go func() {
		defer close(w.done)
		tick := time.NewTicker(priorityEvery)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			p, ok := priorityOf(pid)
			if !ok || int64(p) >= w.lowest.Load() {
				continue
			}
			w.lowest.Store(int64(p))
			if f, err := os.Create(seen); err == nil {
				f.Close()
			}
		}
	}()
	s.priority = w
	return nil
}

// priorityOf reads the priority of the process pid (proc.Priority).
func priorityOf(pid int) (int, bool) {
	p, err := proc.Priority(pid)
	return p, err == nil
}

// victimDying reports whether the victim is on its way out (Dying).
func (s *Scratch) victimDying() bool {
	dying, _ := Dying(s.victim.Process.Pid)
	return dying
}

// Dying reports whether the process pid, one that handles no signal (as
// sleep), has a signal pending that ends it (any signal but the few whose
// default is to be ignored or to stop), or is already on its way out
// (PF_EXITING), or is gone: it will have exited when it is next scheduled,
// however loaded the machine. known is true: /proc says it.
func Dying(pid int) (dying, known bool) {
	return pendingEnd(pid), true
}

func pendingEnd(pid int) bool {
	stat, err1 := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	status, err2 := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err1 != nil || err2 != nil {
		return true // gone from /proc: it has exited, and Wait will say so
	}
	// f[6] is the flags (field 9).
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) > 6 {
		if flags, err := strconv.ParseUint(f[6], 10, 64); err == nil && flags&pfExiting != 0 {
			return true
		}
	}
	for _, line := range strings.Split(string(status), "\n") {
		name, mask, _ := strings.Cut(line, ":")
		if name != "SigPnd" && name != "ShdPnd" {
			continue
		}
		pending, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
		if err == nil && pending&^harmlessSignals != 0 {
			return true
		}
	}
	return false
}

// pfExiting is the task flag of a process on its way out (PF_EXITING in
// <linux/sched.h>).
const pfExiting = 0x4

// harmlessSignals are the signals whose default action neither ends nor
// stops a process that handles none (SIGCHLD, SIGCONT, SIGURG, SIGWINCH),
// and the stop signals, as a mask of /proc's pending sets.
const harmlessSignals = 1<<(unix.SIGCHLD-1) | 1<<(unix.SIGCONT-1) | 1<<(unix.SIGURG-1) |
	1<<(unix.SIGWINCH-1) | 1<<(unix.SIGSTOP-1) | 1<<(unix.SIGTSTP-1) | 1<<(unix.SIGTTIN-1) |
	1<<(unix.SIGTTOU-1)

// removeObjects removes whatever bears the names the placeholders made:
// the queues, the System V objects of the key, the keys of the
// description.
func (s *Scratch) removeObjects() {
	for _, q := range s.queues {
		if p, err := unix.BytePtrFromString(q); err == nil {
			_, _, _ = unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0) // it may not exist
		}
	}
	if s.ipcKey != 0 {
		rm := map[string]func(int){
			"shm": func(id int) { _, _, _ = unix.Syscall(unix.SYS_SHMCTL, uintptr(id), unix.IPC_RMID, 0) },
			"msg": func(id int) { _, _, _ = unix.Syscall(unix.SYS_MSGCTL, uintptr(id), unix.IPC_RMID, 0) },
			"sem": func(id int) {
				_, _, _ = unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, unix.IPC_RMID, 0, 0, 0)
			},
		}
		for kind, f := range rm {
			ids, _ := sysvIDs(kind, s.ipcKey)
			for _, id := range ids {
				f(id)
			}
		}
	}
	if s.keyDesc != "" {
		ids, _ := keyIDs(s.keyDesc)
		for _, id := range ids {
			_, _ = unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0)
		}
	}
}

// inodeOf is the inode of an open file: for a pipe, what /proc/PID/fd
// shows as pipe:[INODE].
// It reads through SyscallConn, since Fd would make the pipe blocking and
// its read deadline of no effect.
func inodeOf(f *os.File) uint64 {
	var st unix.Stat_t
	c, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	if err := c.Control(func(fd uintptr) { err = unix.Fstat(int(fd), &st) }); err != nil {
		return 0
	}
	return st.Ino
}

// killHolders kills every other process that holds one of the pipes
// named by their inodes, and its process group unless it is this
// process's own: a descendant of a run that outlived it.
func killHolders(inodes ...uint64) {
	want := map[string]bool{}
	for _, ino := range inodes {
		if ino != 0 {
			want[fmt.Sprintf("pipe:[%d]", ino)] = true
		}
	}
	self, own := os.Getpid(), unix.Getpgrp()
	dirs, _ := filepath.Glob("/proc/[0-9]*/fd")
	for _, dir := range dirs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		if err != nil || pid == self {
			continue
		}
		fds, _ := os.ReadDir(dir) // gone since the glob, or unreadable: not a holder
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && want[link] {
				if pgid, err := unix.Getpgid(pid); err == nil && pgid > 1 && pgid != own {
					_ = unix.Kill(-pgid, unix.SIGKILL)
				}
				_ = unix.Kill(pid, unix.SIGKILL)
				break
			}
		}
	}
}

// shareable sets SO_REUSEADDR and SO_REUSEPORT on the socket of $SHARED's
// receiver, so that a run that sets either may bind the port beside it:
// what the escape targets that try it need to see, unconfined.
func shareable(_, _ string, c syscall.RawConn) error {
	var err error
	cerr := c.Control(func(fd uintptr) {
		if err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err == nil {
			err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		}
	})
	if cerr != nil {
		return cerr
	}
	return err
}
