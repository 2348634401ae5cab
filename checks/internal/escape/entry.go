package escape

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sabline/sabline/kernelreport"
)

// EntryI386 is a Target's Entry for an attempt made through the i386
// entry, int $0x80, on linux/amd64.
const EntryI386 = kernelreport.EntryI386

// noI386Entry is the start of what ctypes.syscall32 says on a kernel that
// answers int $0x80 with a fault: one built without IA32 emulation, or
// started with ia32_emulation=0.
const noI386Entry = "ctypes.syscall32: this kernel has no i386 entry"

// NoI386Entry is why a check of a call through the i386 entry is skipped
// on a kernel that has none.
const NoI386Entry = "the kernel has no i386 entry: a child's int $0x80 faulted before any " +
	"call was made, and a program cannot use it either (confine/seccomp's TestSeccompCases " +
	"simulates the filter's refusal of it)"

// i386Probe makes one call through the i386 entry, getpid (20), and
// prints what came back.
const i386Probe = `r = ffi.module("ctypes").syscall32(20)
print("i386-getpid", r.ret, r.errno)
`

// I386Entry asks whether the kernel offers the i386 entry: the sabline
// binary bin, with --no-confine, runs a program that makes one call
// through it (getpid) in a worker of its own, so that whatever the call
// does, it does in a child. present is true when the call returned a
// process id, false when the kernel answered it with a fault (a program
// cannot use the entry either: ctypes.syscall32 fails with that message);
// err says how the probe ended otherwise. Off linux/amd64 there is no
// such entry, and present is false.
func I386Entry(bin string) (present bool, err error) {
	if goruntime.GOOS != "linux" || goruntime.GOARCH != "amd64" {
		return false, nil
	}
	dir, err := os.MkdirTemp("", "sabline-i386-probe-")
	if err != nil {
		return false, fmt.Errorf("probe the i386 entry: %w", err)
	}
	defer os.RemoveAll(dir)
	prog := filepath.Join(dir, "probe.vel")
	if err := os.WriteFile(prog, []byte(i386Probe), 0o644); err != nil {
		return false, fmt.Errorf("probe the i386 entry: %w", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--no-confine", "--timeout", runLimit().Round(time.Second).String(),
		"--allow", "io,ffi:ctypes", prog)
	cmd.Dir = dir
	cmd.Env = Environ("SABLINE_RECEIPTS=" + filepath.Join(dir, "receipts"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if f := strings.Fields(stdout.String()); runErr == nil && len(f) == 2 && f[0] == "i386-getpid" {
		if pid, err := strconv.Atoi(f[1]); err == nil && pid > 0 {
			return true, nil
		}
	}
	if strings.Contains(stderr.String(), noI386Entry) {
		return false, nil
	}
	return false, fmt.Errorf(
		"probe the i386 entry: %s ended %v without a process id or the fault's message:\n%s%s",
		bin, runErr, stdout.String(), stderr.String())
}
