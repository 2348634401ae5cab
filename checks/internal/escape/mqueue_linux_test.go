package escape

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
)

// TestMessageQueueTakesLittle: the queue $MQ names is made under a
// limit of its user's message queues (RLIMIT_MSGQUEUE) that one queue of
// the system's default size exceeds, as nine such queues, held by runs
// side by side or by another process of the user, leave the default
// limit; and so is the queue kern-mq-open-create makes in its control.
// Before, both were of that size and refused with EMFILE: the sandbox
// suite, its runs sixteen at a time, failed with "scratch: $MQ: mq_open
// ...: too many open files", and the control would have met EMFILE. The
// test runs in a process of its own, in a user and an IPC namespace of
// its own, so that no other process's queues count against it. The
// control: a queue of the default size is refused under that limit.
func TestMessageQueueTakesLittle(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) != "mqueue" {
		apart := &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWIPC,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		}
		probe := exec.Command("true")
		probe.SysProcAttr = apart
		if err := probe.Run(); err != nil {
			t.Skipf("no user and IPC namespace of the test's own: %v", err)
		}
		bins, _ := knockoutTarget(t, "kern-mq-open-create")
		testkit.Rerun(t, "mqueue", func(cmd *exec.Cmd) {
			cmd.Env = append(cmd.Env, knockoutEnv+"="+bins.Knockout)
			cmd.SysProcAttr = apart
		})
		return
	}
	// Below the room of one queue of the default size: its messages alone.
	msgMax, msgSize := readInt(t, "/proc/sys/fs/mqueue/msg_default"),
		readInt(t, "/proc/sys/fs/mqueue/msgsize_default")
	limit := uint64(msgMax*msgSize - 1)
	if err := unix.Setrlimit(unix.RLIMIT_MSGQUEUE, &unix.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	name, err := randomName()
	if err != nil {
		t.Fatal(err)
	}
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		t.Fatal(err)
	}
	_, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)),
		unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY, 0o600, 0, 0, 0)
	if !errors.Is(errno, unix.EMFILE) {
		t.Fatalf("a queue of the default size (%d messages of %d bytes) under a limit of %d "+
			"bytes: %v, want EMFILE", msgMax, msgSize, limit, errno)
	}
	s, err := NewScratch(t.TempDir(), "mqueue")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Expand("$MQ"); err != nil {
		t.Fatalf("under a limit of %d bytes: %v", limit, err)
	}
	st, err := s.Witness()
	if err != nil {
		t.Fatal(err)
	}
	if st[WitnessMqueue+":$MQ"] != "exists=yes" {
		t.Errorf("the witness does not see $MQ: %q", st)
	}
	// The target that makes a queue of its own makes it of that size too:
	// its control goes through under the limit.
	var target Target
	for _, tg := range Catalogue {
		if tg.ID == "kern-mq-open-create" {
			target = tg
		}
	}
	bin := os.Getenv(knockoutEnv)
	control, err := Execute(Binaries{Normal: bin, Knockout: bin}, target, Unconfined, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !target.UnconfinedAllows(control.Attempt()) || len(control.Witnessed) == 0 {
		t.Errorf("under a limit of %d bytes, the control met %q (want %s), witness %q\n%s%s",
			limit, control.Attempt(), target.Unconfined, control.Witnessed, control.Stdout,
			control.Stderr)
	}
}

// knockoutEnv names, to the test's own process, the knock-out build the
// test built.
const knockoutEnv = "SABLINE_TEST_KNOCKOUT"

// readInt reads a file that holds one number.
func readInt(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n
}
