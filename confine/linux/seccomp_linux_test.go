package linux

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
)

// workerChildEnv makes the test binary a child that holds itself to a
// worker's whole confinement (Apply of the policy of the budget io) when
// its value is "confined", or nothing when it is "control", then makes
// the calls of workerCalls and prints each one's errno.
const workerChildEnv = "SABLINE_WORKER_FILTER_CHILD"

// workerCalls are calls with harmless arguments: a number past the
// kernel's table, and calls of the table the filter does not allow, on a
// path that does not exist.
var workerCalls = []struct {
	name        string
	nr          uintptr
	path        bool // the first argument after AT_FDCWD (or the first) is the missing path
	at          bool
	wantControl string
	wantWorker  string
}{
	{name: "number 1000", nr: 1000, wantControl: "ENOSYS", wantWorker: "ENOSYS"},
	{name: "number 100000", nr: 100000, wantControl: "ENOSYS", wantWorker: "ENOSYS"},
	{name: "acct(missing path)", nr: unix.SYS_ACCT, path: true, wantControl: "ENOENT", wantWorker: "EPERM"},
	{name: "file_setattr(AT_FDCWD, missing path, NULL, 0, 0)", nr: unix.SYS_FILE_SETATTR, path: true, at: true,
		wantControl: "EINVAL", wantWorker: "EPERM"},
}

const missingPath = "/nonexistent-sabline-test/x"

func init() {
	mode := os.Getenv(workerChildEnv)
	if mode == "" {
		return
	}
	if mode == "confined" {
		tmp, err := os.MkdirTemp("", "sabline-worker-filter-")
		if err != nil {
			fmt.Println("ERROR", err)
			os.Exit(1)
		}
		r, err := Apply(core.OSPolicy(budget.MustParse("/", "io"), core.Options{}), ApplyOptions{TempDir: tmp})
		if err != nil || r.Level != core.Full {
			fmt.Println("ERROR apply:", r.Level, err)
			os.Exit(1)
		}
	}
	p, _ := unix.BytePtrFromString(missingPath)
	for _, c := range workerCalls {
		var args [3]uintptr
		switch {
		case c.at:
			args = [3]uintptr{^uintptr(unix.AT_FDCWD*-1 - 1), uintptr(unsafe.Pointer(p))}
		case c.path:
			args[0] = uintptr(unsafe.Pointer(p))
		}
		_, _, errno := syscall.Syscall(c.nr, args[0], args[1], args[2])
		name := "ok"
		if errno != 0 {
			name = unix.ErrnoName(errno)
		}
		fmt.Printf("CALL %s=%s\n", c.name, name)
	}
	os.Exit(0)
}

// TestWorkerFilterLive holds a child to a worker's whole confinement and
// checks that a number past the kernel's table answers ENOSYS, as a
// kernel without the call does, and that a call of the table the filter
// does not allow answers EPERM, where the same calls without it answer
// the kernel's own errno.
func TestWorkerFilterLive(t *testing.T) {
	if _, ok := nativeArch(); !ok {
		t.Skip("no seccomp table for this architecture")
	}
	if abi, err := LandlockABI(); err != nil || abi < 1 {
		t.Skipf("no Landlock here (%v): Apply would not be level full", err)
	}
	got := map[string]map[string]string{}
	for _, mode := range []string{"control", "confined"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		// The confined child's temporary directory is made in one the
		// test removes.
		cmd.Env = append(os.Environ(), workerChildEnv+"="+mode, "TMPDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s child: %v\n%s", mode, err, out)
		}
		got[mode] = map[string]string{}
		for _, l := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(l, "CALL "); ok {
				k, v, _ := strings.Cut(rest, "=")
				got[mode][k] = v
			}
		}
	}
	for _, c := range workerCalls {
		if g := got["control"][c.name]; g != c.wantControl {
			t.Errorf("control: %s = %q, want %s", c.name, g, c.wantControl)
		}
		if g := got["confined"][c.name]; g != c.wantWorker {
			t.Errorf("worker: %s = %q, want %s", c.name, g, c.wantWorker)
		}
		t.Logf("%s: %s without the filter, %s in a worker", c.name, got["control"][c.name], got["confined"][c.name])
	}
	if len(got["confined"]) != len(workerCalls) {
		t.Error(errors.New("the worker did not report every call"))
	}
}
