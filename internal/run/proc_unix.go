//go:build unix

package run

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// passPipes gives the worker the request pipe as descriptor 3, the result
// pipe as 4, the stop pipe as 5, then the tool channel when the host
// passed one, the broker channel when the run has one and the jobs-begun
// page of a pool worker, each named in the worker's arguments by its
// number ("-" for one it has not, before one it has). Its session,
// process group and parent-death signal are confine's (PrepareWorker).
func passPipes(cmd *exec.Cmd, req, res, stop, tool, brokered, began *os.File) {
	cmd.ExtraFiles = []*os.File{req, res, stop}
	cmd.Args = append(cmd.Args, "3", "4", "5")
	var optional []string // "-" for one not passed, before one that is
	for _, f := range []*os.File{tool, brokered, began} {
		if f == nil {
			optional = append(optional, "-")
			continue
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, f)
		optional = append(optional, strconv.Itoa(2+len(cmd.ExtraFiles)))
		cmd.Args, optional = append(cmd.Args, optional...), nil
	}
}

func killedBy(ps *os.ProcessState) (int, bool) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return int(ws.Signal()), true
}

// sentSignal reads, in the crash report a Go runtime wrote, a fatal
// signal another process sent it, and returns its number. The runtime
// catches SIGSEGV, SIGBUS, SIGFPE, SIGQUIT, SIGABRT, SIGILL, SIGTRAP and
// SIGSYS, prints the signal's name on the report's first line and its
// si_code on the next ("PC=0x... m=0 sigcode=0"), and exits 2 rather than
// die by it: SI_USER (0, kill) and SI_TKILL (-6, tgkill) are a signal
// sent, where a fault of the worker's own has a positive code.
func sentSignal(crash string) (int, bool) {
	crash = strings.TrimLeft(crash, " \t\r\n")
	head, rest, _ := strings.Cut(crash, "\n")
	name, _, ok := strings.Cut(head, ":")
	sig := unix.SignalNum(name)
	if !ok || sig == 0 {
		return 0, false
	}
	pc, _, _ := strings.Cut(rest, "\n")
	if !strings.HasPrefix(pc, "PC=") {
		return 0, false
	}
	for _, f := range strings.Fields(pc) {
		if f == "sigcode=0" || f == "sigcode=-6" {
			return int(sig), true
		}
	}
	return 0, false
}

func signalName(sig int) string {
	if s := syscall.Signal(sig).String(); s != "" {
		return s
	}
	return "signal " + strconv.Itoa(sig)
}

// lockDir holds an exclusive lock on dir until unlock: the lock goes when
// the process does, however it ends.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("flock: %w", err)
	}
	return func() { f.Close() }, nil
}

// tryLockDir takes dir's lock if no process holds it; ok is false when one
// does, or when dir cannot be opened as a directory.
func tryLockDir(dir string) (unlock func(), ok bool) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

// removeTree removes a run's private temporary directory, dir, and all it
// holds, as os.RemoveAll does, and what os.RemoveAll leaves: a directory
// beneath it that its owner may not list, search or write, which a run
// that makes raw system calls makes with mkdirat(2)'s mode (0300, a file
// made in it after). A supervisor that is not root could not list it
// (EACCES), and the run's directory stayed, with all it held, for every
// later sweep to fail on too. Such a directory is given its owner's
// rights (openUp), and the removal tried again; it returns the last
// removal's error. It is called once the worker, and what it started,
// has ended: nothing else of this user's changes the directory meanwhile.
func removeTree(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil {
		return nil
	}
	fd, oerr := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return err
	}
	openUp(fd)
	return os.RemoveAll(dir)
}

// openUp gives each directory beneath the directory fd holds that lacks
// one of its owner's rights (read, write, search) those rights, found by
// its parent's descriptor as what it is and changed without following a
// link (ownerRights: a kernel that cannot leaves such a directory), opens
// it without following a link, does the same beneath it, and closes fd.
// Each level holds one descriptor, as os.RemoveAll's walk does.
func openUp(fd int) {
	f := os.NewFile(uintptr(fd), "")
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	for _, name := range names {
		var st unix.Stat_t
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil ||
			st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		if st.Mode&0o700 != 0o700 {
			_ = ownerRights(fd, name, uint32(st.Mode))
		}
		child, err := unix.Openat(fd, name,
			unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			openUp(child)
		}
	}
}

// ownerRights gives the entry name of the directory fd holds its owner's
// rights (read, write, search) beside those of mode, its mode when it was
// looked at, never through a link: the entry may have been swapped for
// one since, and the mode of what it leads to would change
// (TestOwnerRightsFollowNoLink). On Linux that is fchmodat2, from 6.6;
// an older kernel changes no mode.
func ownerRights(fd int, name string, mode uint32) error {
	return unix.Fchmodat(fd, name, mode&0o7777|0o700, unix.AT_SYMLINK_NOFOLLOW)
}

// ownedPrivate checks that dir, as fi says, belongs to this user, and
// makes it enterable by this user alone.
func ownedPrivate(dir string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// ancestorsOurs checks that no other user can move dir away and put
// another in its place: that every directory above it, as it resolves,
// belongs to this user or root, and that none others may write in but a
// sticky one (/tmp). The owner of a directory, or anyone who may write in
// one that is not sticky, may rename what it holds: another user's
// directory above the runs directory (an XDG_CACHE_HOME at a shared
// place they made first) could swap it, once checked, for one of their
// own, and later runs' directories would be made there.
func ancestorsOurs(dir string) error {
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	me := os.Geteuid()
	for d := filepath.Dir(resolved); ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		switch {
		case !ok:
			return fmt.Errorf("%s: no owner to read", d)
		case int(st.Uid) != me && st.Uid != 0:
			return fmt.Errorf("%s lies in %s, which belongs to another user (uid %d), who could "+
				"move it and put another in its place", dir, d, st.Uid)
		case fi.Mode().Perm()&0o002 != 0 && fi.Mode()&os.ModeSticky == 0:
			return fmt.Errorf("%s lies in %s, which every user may write in (mode %s, not sticky), "+
				"and so move it and put another in its place", dir, d, fi.Mode().Perm())
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// maxRSSKB is the largest resident set the kernel counted for the exited
// process ps, in KiB (macOS counts it in bytes).
func maxRSSKB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if goruntime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}

// toolPair makes the socket pair a tool channel is relayed over: the
// worker's end, and the supervisor's, read through the runtime's poller.
// Both are closed on exec.
func toolPair() (theirs, ours *os.File, err error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	if err := syscall.SetNonblock(fds[1], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "tool"), os.NewFile(uintptr(fds[1]), "tool-relay"), nil
}

// endWrites shuts down the writing half of the socket f, the
// supervisor's end of a tool channel's pair, once the host's channel has
// ended: the worker then reads the end of its channel, and a call waiting
// for an answer fails (E313) instead of waiting for one that cannot come.
// f stays open for reading: what the worker writes still reaches the
// host. A Close of f meanwhile (the worker's retire) makes it a no-op.
func endWrites(f *os.File) {
	raw, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_WR) })
}

// feed copies src, the caller's, to dst until src ends, dst refuses, or
// woken is readable (its other end closed). A file of the caller's is
// polled beside woken and read only once it is ready, so the copy never
// waits in a read past woken, and src's flags stay as the caller set them.
// Both descriptors are reached through SyscallConn, which leaves their
// modes alone and holds each open until the copy ends: a Close of woken
// meanwhile (the worker's retire) closes it only then, so that its number
// is never another file's while it is polled. Any other reader is copied
// until it ends.
func feed(dst io.Writer, src io.Reader, woken *os.File) {
	f, ok := src.(*os.File)
	if !ok {
		_, _ = io.Copy(dst, src)
		return
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return
	}
	wraw, err := woken.SyscallConn()
	if err != nil {
		return
	}
	_ = wraw.Control(func(wfd uintptr) {
		_ = raw.Control(func(fd uintptr) { copyUntilWoken(dst, int32(fd), int32(wfd)) })
	})
}

// copyUntilWoken is feed's copy from the descriptor fd to dst, until fd
// ends, dst refuses, or wfd is readable.
func copyUntilWoken(dst io.Writer, fd, wfd int32) {
	buf := make([]byte, relayBuffer)
	for {
		p := []unix.PollFd{{Fd: fd, Events: unix.POLLIN}, {Fd: wfd, Events: unix.POLLIN}}
		if _, err := unix.Poll(p, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if p[1].Revents != 0 {
			return
		}
		n, err := unix.Read(int(fd), buf)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if n <= 0 {
			return
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}
