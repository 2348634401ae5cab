package sabline_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt"
)

// kernelObjects is what a worker holds in the kernel outside its address
// space, read from outside through /proc/PID: its epoll instances, the
// watches in them, its eventfds, and the bytes waiting in its pipes.
type kernelObjects struct {
	instances, watches, eventfds int
	pipeBytes                    int
}

func (k kernelObjects) String() string {
	return fmt.Sprintf("%d epoll instances with %d watches, %d eventfds, %d bytes in pipes",
		k.instances, k.watches, k.eventfds, k.pipeBytes)
}

// readKernelObjects reads pid's kernelObjects from /proc/pid/fd and
// /proc/pid/fdinfo. A pipe is opened again through /proc, without
// blocking, and asked how many bytes it holds (FIONREAD), each pipe once.
func readKernelObjects(pid int) (kernelObjects, error) {
	var k kernelObjects
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return k, fmt.Errorf("read the worker's descriptors: %w", err)
	}
	pipes := map[string]bool{}
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed since
		}
		switch {
		case target == "anon_inode:[eventpoll]":
			k.instances++
			info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, e.Name()))
			if err == nil {
				k.watches += strings.Count(string(info), "\ntfd:")
			}
		case target == "anon_inode:[eventfd]":
			k.eventfds++
		case strings.HasPrefix(target, "pipe:") && !pipes[target]:
			pipes[target] = true
			fd, err := unix.Open(filepath.Join(dir, e.Name()), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			n, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
			unix.Close(fd)
			if err == nil {
				k.pipeBytes += n
			}
		}
	}
	return k, nil
}

// heldRun is a run of a program that, once it holds what it made, writes
// a line of numbers (its pid first) to DIR/ready and waits for DIR/go.
type heldRun struct {
	dir  string
	done chan error
	res  *sabline.Result
}

// startHeld starts program with budget and args (DIR is appended), under
// confine, and waits, bounded by the run's own timeout, for its line.
func startHeld(t *testing.T, program, allow string, args []string,
	confine sabline.Confine) (*heldRun, []int) {
	t.Helper()
	h := &heldRun{dir: t.TempDir(), done: make(chan error, 1)}
	allow += ",fs:read:" + h.dir + ",fs:write:" + h.dir
	go func() {
		var err error
		h.res, err = sabline.Run(context.Background(), sabline.Source("held.vel", []byte(program)),
			sabline.Options{Budget: budget.MustParse(h.dir, allow), Args: append(args, h.dir),
				Confine: confine, Cwd: h.dir, Receipts: t.TempDir(), MaxMemoryMB: 64,
				Timeout: time.Minute, Durability: receipt.None})
		h.done <- err
	}()
	ready := filepath.Join(h.dir, "ready")
	for {
		select {
		case err := <-h.done:
			if err == nil {
				o := h.res.Receipt.Outcome
				err = fmt.Errorf("%s %s %s", o.Status, o.Code, o.Message)
			}
			t.Fatalf("the run ended before it held what it made: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
		b, err := os.ReadFile(ready)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if len(b) == 0 {
			continue
		}
		var nums []int
		for _, f := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("the program's line %q: %v", b, err)
			}
			nums = append(nums, n)
		}
		return h, nums
	}
}

// finish lets the program end and returns its run, which must have ended
// ok: it held what it made while it was read.
func (h *heldRun) finish(t *testing.T) *sabline.Result {
	t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	if o := h.res.Receipt.Outcome; o.Status != receipt.StatusOK {
		t.Fatalf("the run ended %s (%s %s): it did not hold what it made while it was read",
			o.Status, o.Code, o.Message)
	}
	return h.res
}

// heldEnd is the end of a program started by startHeld: its line, then
// the wait for DIR/go (ARGS[-1]).
const heldEnd = `fs.write(ARGS[-1] + "/ready", " ".join([str(x) for x in line]))
for i in range(100000000):
    if fs.exists(ARGS[-1] + "/go"):
        break
`

// TestKernelObjectsHeldFromOutside: a program granted ffi:ctypes tries to
// hold kernel memory its memory limit never counts (no resident page, no
// address space): N epoll instances each watching N eventfds, and N pipes
// with a page waiting in each. Watches are charged to a per-user quota
// (fs.epoll.max_user_watches) that every process of the user shares: a
// worker that filled it would make every other process of its user fail
// to register a descriptor with epoll (a Go program dies at its first).
// Confined (strict, level full), the worker makes none beyond the Go
// runtime's own poller (one instance, one eventfd), as read from outside
// through /proc while the program holds what it made. The control, the
// same program unconfined, makes them all, and the same reads see them.
func TestKernelObjectsHeldFromOutside(t *testing.T) {
	const n = 16
	const program = `c = ffi.module("ctypes")
n = int(ARGS[0])
ev = "\x01" + "\x00" * 11  # struct epoll_event: EPOLLIN
eps, fds, pipes = [], [], 0
page = "x" * 4095  # with its NUL, 4 KiB
for i in range(n):
    r = c.syscall("epoll_create1", 0)
    if not r.errno:
        eps.append(r.ret)
    r = c.syscall("eventfd2", 0, 0)
    if not r.errno:
        fds.append(r.ret)
    # The two lowest free descriptors, which pipe2 takes: its two ends.
    a = c.syscall("fcntl", 1, 0, 0)  # F_DUPFD
    b = c.syscall("fcntl", 1, 0, 0)
    c.syscall("close", a.ret)
    c.syscall("close", b.ret)
    r = c.syscall("pipe2", "12345678", 0o4000)  # O_NONBLOCK
    if not r.errno and not c.syscall("write", b.ret, page, 4096).errno:
        pipes += 1
for ep in eps:
    for fd in fds:
        c.syscall("epoll_ctl", ep, 1, fd, ev)  # EPOLL_CTL_ADD
line = [c.syscall("getpid").ret, len(eps), len(fds), pipes]
` + heldEnd
	for _, tt := range heldModes {
		t.Run(tt.name, func(t *testing.T) {
			h, line := startHeld(t, program, "io,ffi:ctypes", []string{strconv.Itoa(n)}, tt.confine)
			got, err := readKernelObjects(line[0])
			res := h.finish(t)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("the program made %d instances, %d eventfds, %d pipes; read from outside: %s; "+
				"level %s", line[1], line[2], line[3], got, res.Receipt.RunParameters.Confinement)
			if tt.held {
				if got.instances < n || got.watches < n*n || got.eventfds < n || got.pipeBytes < n*4096 {
					t.Errorf("unconfined, read from outside: %s; want %d instances with %d watches, "+
						"%d eventfds and %d bytes in pipes at least: the reads see nothing",
						got, n, n*n, n, n*4096)
				}
				return
			}
			if rp := res.Receipt.RunParameters; rp.Confinement != core.Full {
				t.Skipf("the run's confinement is %s (%s): the filter is not what is tested",
					rp.Confinement, rp.ConfinementReason)
			}
			// The Go runtime's poller: one epoll instance, one eventfd,
			// and the watches of the worker's own descriptors.
			if got.instances > 1 || got.eventfds > 1 || got.watches >= n || got.pipeBytes >= 4096 {
				t.Errorf("confined, read from outside: %s; want the runtime's poller alone "+
					"(1 instance, 1 eventfd), fewer than %d watches and no page in a pipe",
					got, n)
			}
		})
	}
}

// maxOpenFiles reads the hard limit of pid's descriptors from
// /proc/pid/limits.
func maxOpenFiles(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return 0, fmt.Errorf("read the worker's limits: %w", err)
	}
	for l := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(l, "Max open files"); ok {
			if f := strings.Fields(rest); len(f) >= 2 { // soft, hard, units
				return strconv.Atoi(f[1])
			}
		}
	}
	return 0, fmt.Errorf("no open files line in %q", b)
}

// TestDescriptorsHeldFromOutside: the watches a confined program can
// still make are in the Go runtime's one poller, one for each descriptor
// it holds; it copies one descriptor until it may hold no more (EMFILE),
// and puts each copy in the poller. Confined, its descriptors are at most
// 4096 (RLIMIT_NOFILE, hard), and so are its watches, read from outside;
// the control, unconfined, holds a watch for each descriptor the host's
// limit allows, past 4096 (skipped where the host allows no more).
func TestDescriptorsHeldFromOutside(t *testing.T) {
	const bound = 4096
	var host unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &host); err != nil {
		t.Fatal(err)
	}
	const program = `c = ffi.module("ctypes")
ev = "\x01" + "\x00" * 11  # struct epoll_event: EPOLLIN
# The runtime's poller: the descriptor that takes a copy of standard output.
d = c.syscall("fcntl", 1, 0, 0).ret  # F_DUPFD
ep = -1
for fd in range(3, 256):
    if fd != d and not c.syscall("epoll_ctl", fd, 1, d, ev).errno:  # EPOLL_CTL_ADD
        ep = fd
        break
n, last = 0, []
for i in range(int(ARGS[0])):
    r = c.syscall("fcntl", 1, 0, 0)
    if r.errno or c.syscall("epoll_ctl", ep, 1, r.ret, ev).errno:
        break
    n += 1
    last = (last + [r.ret])[-8:]
for fd in last:  # descriptors for the line and the wait
    c.syscall("close", fd)
line = [c.syscall("getpid").ret, ep, n]
` + heldEnd
	// Tried: twice the bound; the control stops a little past it, where
	// the supervisor's count of a worker's descriptors (twice the bound)
	// still reads them all and lets the run go on.
	const past = bound + 256
	for _, tt := range heldModes {
		t.Run(tt.name, func(t *testing.T) {
			tries := 2 * bound
			if tt.held {
				tries = past
			}
			if tt.held && host.Max < past+64 {
				t.Skipf("the host's RLIMIT_NOFILE is %d: a worker holds no more than %d here "+
					"unconfined either", host.Max, bound)
			}
			h, line := startHeld(t, program, "io,ffi:ctypes", []string{strconv.Itoa(tries)},
				tt.confine)
			got, err := readKernelObjects(line[0])
			limit, lerr := maxOpenFiles(line[0])
			res := h.finish(t)
			if err = errors.Join(err, lerr); err != nil {
				t.Fatal(err)
			}
			t.Logf("the poller is descriptor %d, %d copies put in it; read from outside: %s, "+
				"at most %d descriptors; level %s", line[1], line[2], got, limit,
				res.Receipt.RunParameters.Confinement)
			if tt.held {
				if got.watches < past || limit < past {
					t.Errorf("unconfined: %d watches, at most %d descriptors; want %d of each at "+
						"least: the reads see nothing", got.watches, limit, past)
				}
				return
			}
			if rp := res.Receipt.RunParameters; rp.Confinement != core.Full {
				t.Skipf("the run's confinement is %s (%s): the filter is not what is tested",
					rp.Confinement, rp.ConfinementReason)
			}
			if line[1] < 0 || line[2] == 0 {
				t.Fatalf("the program found no poller (%d) or put nothing in it (%d): "+
					"it tested nothing", line[1], line[2])
			}
			if limit > bound || got.watches > bound {
				t.Errorf("confined: %d watches, at most %d descriptors, read from outside; "+
					"want %d at most", got.watches, limit, bound)
			}
		})
	}
}

// heldModes are the two runs of each test here: confined, where the
// kernel holds what the program makes, and the control, unconfined,
// where it makes it all (held).
var heldModes = []struct {
	name    string
	confine sabline.Confine
	held    bool
}{
	{name: "confined (strict)", confine: sabline.ConfineStrict},
	{name: "unconfined (the control)", confine: sabline.ConfineOff, held: true},
}
