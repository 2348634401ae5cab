//go:build unix

package lang

import "golang.org/x/sys/unix"

func mkfifo(path string) error { return unix.Mkfifo(path, 0o600) }

// mknodNull makes, at path, a character device that is /dev/null's.
func mknodNull(path string) error {
	var st unix.Stat_t
	if err := unix.Stat("/dev/null", &st); err != nil {
		return err
	}
	return unix.Mknod(path, unix.S_IFCHR|0o600, devArg(uint64(st.Rdev)))
}
