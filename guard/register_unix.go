//go:build !windows

package guard

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// defaultRegisterDir is the register every Sabline on this machine agrees
// on without being told: in /var/tmp, which outlives a reboot and which
// every user may write.
func defaultRegisterDir() string { return "/var/tmp/sabline-guarded" }

// fileOwner is the uid owning the file fi describes.
func fileOwner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// currentUser is the uid Sabline runs as; a test sets another.
var currentUser = os.Geteuid

// linkCount is how many names the file fi describes has.
func linkCount(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 1
}

// viewTag names the view this process has of the machine's paths, as
// "BOOT-NS": the boot it runs in (/proc/sys/kernel/random/boot_id, in
// hexadecimal) and its mount namespace (the number of /proc/self/ns/mnt).
// Two processes of one boot and namespace see the same paths; in another
// namespace, a path may be hidden (a tmpfs over its parent, a private
// /tmp, a container's own root). It is "" where they cannot be read (no
// mount namespaces to tell apart). A test sets another.
var viewTag = func() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return ""
	}
	b := strings.ReplaceAll(strings.TrimSpace(string(boot)), "-", "")
	n, ok := strings.CutPrefix(ns, "mnt:[")
	n, ok2 := strings.CutSuffix(n, "]")
	if !ok || !ok2 || len(b) != 32 || strings.Trim(b, "0123456789abcdef") != "" || n == "" ||
		strings.Trim(n, "0123456789") != "" {
		return ""
	}
	return b + "-" + n
}

// bootTime is when this boot began (the btime of /proc/stat), and
// whether it could be read; read once.
var bootTime = sync.OnceValues(func() (time.Time, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "btime "); ok {
			sec, err := strconv.ParseInt(v, 10, 64)
			if err != nil || sec <= 0 {
				return time.Time{}, false
			}
			return time.Unix(sec, 0), true
		}
	}
	return time.Time{}, false
})

// openNoFollow opens the file at p for reading, refusing a link.
func openNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// readEntry reads at most MaxRegisterEntryBytes+1 bytes of the regular
// file at p owned by owner (as it was listed), opened without following a
// link; nil when it cannot, or when the file is no longer that one. Every
// run reads each entry of the register so, before its worker has its
// request: it makes the system's calls itself, four where the file holds
// what its fstat says (open, fstat, one read, close), not the six of an
// os.File read to its end (the runtime poller's registration, refused for
// a regular file, and a read that finds the end).
func readEntry(p string, owner int) []byte {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|
			syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG ||
		int(st.Uid) != owner {
		return nil
	}
	// What its fstat said it holds, or one byte past the bound, which
	// judgeEntry refuses: only the entry's owner writes in it.
	data := make([]byte, min(max(st.Size, 0), MaxRegisterEntryBytes)+1)
	n := 0
	for n < len(data) {
		m, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		if n += m; int64(n) == st.Size {
			break // all it held when its fstat was read
		}
	}
	return data[:n]
}

// trustRegister checks the register dir is one to rely on: a directory,
// not a link, sticky, owned by root or by this user. It wraps
// fs.ErrNotExist when there is none, and errUntrustedRegister when it is
// not one to trust.
func trustRegister(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	owner := fileOwner(fi)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a link: %s", errUntrustedRegister, dir, registerAdvice)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory: %s", errUntrustedRegister, dir, registerAdvice)
	case fi.Mode()&fs.ModeSticky == 0:
		return fmt.Errorf("%w: %s is not sticky (mode %s), so any user who may write in it may remove "+
			"another's entries: %s",
			errUntrustedRegister, dir, fi.Mode(), registerAdvice)
	case owner != 0 && owner != currentUser():
		return fmt.Errorf("%w: %s is owned by uid %d, neither root nor you (uid %d), who may remove "+
			"any entry in it: %s",
			errUntrustedRegister, dir, owner, currentUser(), registerAdvice)
	}
	return nil
}

// pathOwnersOf reads this machine: whether p exists, and the uids owning
// it as written and with links followed.
func pathOwnersOf(p string) ([]int, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, false
	}
	owners := []int{fileOwner(fi)}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if to, err := os.Stat(p); err == nil {
			owners = append(owners, fileOwner(to))
		}
	}
	return owners, true
}
