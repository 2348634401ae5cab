package testkit

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxLandlockDomains is the most Landlock domains a Linux kernel stacks on
// a thread (LANDLOCK_MAX_NUM_LAYERS): one more is refused with E2BIG.
const maxLandlockDomains = 16

// stackLandlock holds the calling thread with maxLandlockDomains Landlock
// domains, as a process inside other sandboxes may be held, so that the
// kernel refuses any ruleset a process started from it restricts itself
// with. Each domain refuses the making of block devices alone (REFER,
// which a domain that does not handle it refuses across directories, is
// allowed beneath the root). It locks the goroutine to its thread, whose
// alone the domains are: a process this thread executes holds them on
// every thread. It checks that the kernel refuses one more domain, and
// needs Landlock ABI 2 and later.
func stackLandlock() error {
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	attr := [1]uint64{unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_REFER}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET,
		uintptr(unsafe.Pointer(&attr[0])), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	root, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /: %w", err)
	}
	defer unix.Close(root)
	rule := unix.LandlockPathBeneathAttr{Allowed_access: unix.LANDLOCK_ACCESS_FS_REFER,
		Parent_fd: int32(root)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd,
		unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule: %w", errno)
	}
	restrict := func() error {
		if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
			return errno
		}
		return nil
	}
	for i := range maxLandlockDomains {
		if err := restrict(); err != nil {
			return fmt.Errorf("landlock_restrict_self, domain %d: %w", i+1, err)
		}
	}
	if err := restrict(); !errors.Is(err, syscall.E2BIG) {
		return fmt.Errorf("landlock_restrict_self past %d domains: %v, want E2BIG",
			maxLandlockDomains, err)
	}
	return nil
}

// StackedExec, where StackedExecEnv names a binary, holds this process
// with maxLandlockDomains Landlock domains (stackLandlock) and executes
// that binary in its place, with this one's arguments and environment,
// the variable left out; it returns only to say why it could not. Where
// the variable is unset it returns nil at once. Call it first thing in
// TestMain.
func StackedExec() error {
	bin := os.Getenv(StackedExecEnv)
	if bin == "" {
		return nil
	}
	if err := os.Unsetenv(StackedExecEnv); err != nil {
		return err
	}
	if err := stackLandlock(); err != nil {
		return err
	}
	return syscall.Exec(bin, append([]string{bin}, os.Args[1:]...), os.Environ())
}
