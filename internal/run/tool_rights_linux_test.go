package run

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
)

// TestToolChannelCarriesNoDescriptor: the tool channel carries bytes only
// (docs/tools.md, THREAT_MODEL "The caller's open files"): a descriptor a
// program sends with SCM_RIGHTS on its end of the channel does not reach
// the host, which reads the request with recvmsg and finds no control
// message beside the request's bytes (the control: the bytes came); and a
// descriptor the host sends with its answer reaches neither the worker nor
// the supervisor: the write end of a pipe the host sent, and then closed,
// is held by no process while the run still waits for its next answer
// (the pipe's reader sees its end), and the answer sent with it reached
// the program (the control). Nor does a flag or a shutdown the program
// makes on its end reach the caller's descriptor or the host's end.
func TestToolChannelCarriesNoDescriptor(t *testing.T) {
	const src = `ctypes = ffi.module("ctypes")
def le(n, size):
    return bytes([(n >> (8 * i)) & 255 for i in range(size)])
def must(r, step):
    if r.errno:
        fail(step + ": " + r.errno)
    return r.ret
addr = 0x5ab1e0000000
line = b'{"args":{},"tool":"passed"}\n'
f = must(ctypes.syscall("openat", -100, "passed.txt", 0o2000000), "open")  # O_RDONLY|O_CLOEXEC
msg = le(0, 16) + le(addr + 64, 8) + le(1, 8) + le(addr + 128, 8) + le(24, 8) + le(0, 8)
iov = le(addr + 256, 8) + le(len(line), 8)
cmsg = le(20, 8) + le(1, 4) + le(1, 4) + le(f, 4) + le(0, 4)  # SOL_SOCKET, SCM_RIGHTS
page = msg + le(0, 64 - len(msg)) + iov + le(0, 64 - len(iov)) + cmsg + le(0, 128 - len(cmsg)) + line
page = page + le(0, 4096 - len(page))
m = must(ctypes.syscall("memfd_create", "sabline-tool-rights", 1), "memfd_create")
must(ctypes.syscall("write", m, page, 4096), "write")
must(ctypes.syscall("mmap", addr, 4096, 1, 0x01 | 0x100000, m, 0), "mmap")  # PROT_READ, MAP_SHARED|MAP_FIXED_NOREPLACE
print("sent", must(ctypes.syscall("sendmsg", 6, addr, 0), "sendmsg"))
print("answer", tool.call("rights", {})["n"])
print("then", tool.call("wait", {})["n"])
must(ctypes.syscall("fcntl", 6, 4, 0o4000 | 0o2000), "fcntl")  # F_SETFL O_NONBLOCK|O_APPEND
must(ctypes.syscall("shutdown", 6, 2), "shutdown")  # SHUT_RDWR
`
	hostEnd, workerEnd := socketPair(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	type seen struct {
		lines []string
		oob   int // control bytes beside the requests, rights closed
		err   error
	}
	done := make(chan seen, 1)
	heldBy := make(chan bool, 1) // whether a process held the pipe's write end
	go func() {
		var s seen
		defer func() { done <- s }()
		fd := int(hostEnd.Fd())
		var pending []byte
		buf, oob := make([]byte, 4096), make([]byte, 256)
		for {
			n, oobn, _, _, err := syscall.Recvmsg(fd, buf, oob, 0)
			if oobn > 0 {
				s.oob += oobn
				if cms, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
					for _, cm := range cms {
						fds, _ := syscall.ParseUnixRights(&cm)
						for _, f := range fds {
							syscall.Close(f)
						}
					}
				}
			}
			if err != nil || n == 0 {
				s.err = err
				return
			}
			pending = append(pending, buf[:n]...)
			for {
				i := bytes.IndexByte(pending, '\n')
				if i < 0 {
					break
				}
				line := string(pending[:i])
				pending = pending[i+1:]
				s.lines = append(s.lines, line)
				var req struct{ Tool string }
				_ = json.Unmarshal([]byte(line), &req)
				switch req.Tool {
				case "rights": // answered with the pipe's write end, then closed here
					rights := syscall.UnixRights(int(pw.Fd()))
					if err := syscall.Sendmsg(fd, []byte(`{"n": 1}`+"\n"), rights, nil, 0); err != nil {
						s.err = err
						return
					}
					pw.Close()
				case "wait": // answered once the pipe's reader saw its end, or the bound passed
					pr.SetReadDeadline(time.Now().Add(testkit.Bound(10 * time.Second)))
					_, err := pr.Read(make([]byte, 1))
					heldBy <- !strings.Contains(errString(err), "EOF")
					if _, err := hostEnd.Write([]byte(`{"n": 2}` + "\n")); err != nil {
						s.err = err
						return
					}
				}
			}
		}
	}()
	// The caller's descriptor, held apart from what the run is given.
	held, err := unix.Dup(int(workerEnd.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	closeHeld := func() {
		if held >= 0 {
			unix.Close(held)
			held = -1
		}
	}
	t.Cleanup(closeHeld)
	s := superviseProgram(t, src, []string{"io", "tool", "ffi:ctypes"}, func(r *Run) {
		r.Tool = workerEnd
		if err := os.WriteFile(filepath.Join(r.Cwd, "passed.txt"), []byte("a file of the worker's\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	// The flag and the shutdown the program made on its end, read on the
	// caller's descriptor and at the host's end while both are still open.
	fl, err := unix.FcntlInt(uintptr(held), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fl&(unix.O_NONBLOCK|unix.O_APPEND) != 0 {
		t.Errorf("the caller's tool descriptor has flags %#o after the run: the program's fcntl reached it", fl)
	}
	pfd := []unix.PollFd{{Fd: int32(hostEnd.Fd()), Events: unix.POLLRDHUP}}
	if _, err := unix.Poll(pfd, 0); err != nil {
		t.Fatal(err)
	}
	if pfd[0].Revents&(unix.POLLRDHUP|unix.POLLHUP) != 0 {
		t.Errorf("the host's end reads the channel's end (%#x) while the caller holds it open: the "+
			"program's shutdown reached it", pfd[0].Revents)
	}
	closeHeld()
	workerEnd.Close() // the host's reader now reads the channel's end
	if s.rec.Outcome.Code != "" || s.stdout != "sent 28\nanswer 1\nthen 2\n" {
		t.Fatalf("the run: %+v, stdout %q (stderr %s); want the request sent whole and both answers read",
			s.rec.Outcome, s.stdout, s.stderr)
	}
	select {
	case held := <-heldBy:
		if held {
			t.Error("the write end of the pipe the host sent with its answer was still held while the run " +
				"waited: a descriptor crossed the tool channel")
		}
	default:
		t.Error("the host was never asked to wait")
	}
	var got seen
	select {
	case got = <-done:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatal("the host's end never read the channel's end once the run was over")
	}
	if len(got.lines) != 3 || !strings.Contains(got.lines[0], `"passed"`) {
		t.Errorf("the host read %q, want the sent request and the two calls (the control)", got.lines)
	}
	if got.oob != 0 {
		t.Errorf("the host received %d bytes of control messages: a descriptor the program sent "+
			"crossed the tool channel", got.oob)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
