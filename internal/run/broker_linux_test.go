package run

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/broker"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/backlog"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/receipt"
)

// echoes is a loopback listener the test started that answers each line
// of each connection with "echo: " and the line, and sends on ended
// whenever a connection's other end closed it.
func echoes(t *testing.T) (port string, ended <-chan struct{}) {
	t.Helper()
	done := make(chan struct{}, 16)
	port = testkit.Serve(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				done <- struct{}{}
				return
			}
			io.WriteString(c, "echo: "+line)
		}
	})
	return port, done
}

// TestRunBrokered: a confined run under a host grant makes its
// connection through its supervisor, which lists it in the receipt's
// observed part, and is full; under --no-confine the worker dials itself
// and nothing is listed (the control).
func TestRunBrokered(t *testing.T) {
	port, _ := echoes(t)
	src := "c = net.connect(\"127.0.0.1\", " + port + ")\nc.send(\"hi\\n\")\n" +
		"print(c.recv(64).strip())\nc.close()\n"
	for _, mode := range []core.Mode{core.ModeDefault, core.ModeOff} {
		t.Run(string(mode), func(t *testing.T) {
			s := superviseProgram(t, src, []string{"io", "net:127.0.0.1:" + port},
				func(r *Run) { r.Confine = mode })
			if s.rec.Outcome.Status != receipt.StatusOK || s.stdout != "echo: hi\n" {
				t.Fatalf("outcome %+v, stdout %q, stderr %s", s.rec.Outcome, s.stdout, s.stderr)
			}
			got := s.stored(t).Observed.Connections
			if mode == core.ModeOff {
				if len(got) != 0 {
					t.Fatalf("an unconfined run lists %+v", got)
				}
				return
			}
			if lvl := s.rec.RunParameters.Confinement; lvl != core.Full {
				t.Errorf("level %s (%s); want full", lvl, s.rec.RunParameters.ConfinementReason)
			}
			if len(got) != 1 || got[0].Address != "127.0.0.1:"+port || got[0].SentBytes == nil ||
				*got[0].SentBytes != 3 || *got[0].ReceivedBytes != 9 {
				t.Fatalf("connections %+v; want the one, 3 bytes out and 9 in", got)
			}
		})
	}
}

// TestPoolBrokered: a pooled worker's connections are made by the pool's
// broker under each run's own budget; a connection the program left
// open is ended with its run, before the worker serves the next.
func TestPoolBrokered(t *testing.T) {
	port, ended := echoes(t)
	dir := t.TempDir()
	b := budget.MustParse(dir, "io", "net:127.0.0.1:"+port)
	p, err := StartPool(PoolConfig{Budget: b, Workers: 1, Confine: core.ModeDefault, Cwd: dir,
		Timeout: time.Minute, OnDemand: true})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	defer p.Close()
	left := "c = net.connect(\"127.0.0.1\", " + port + ")\nc.send(\"hi\\n\")\nprint(c.recv(64).strip())\n"
	res, err := p.Run(context.Background(), PoolRun{Program: "left.vel", Source: []byte(left)})
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("run: %v, %+v", err, res.Receipt.Outcome)
	}
	if c := res.Receipt.Observed.Connections; len(c) != 1 || c[0].Code != "" {
		t.Fatalf("connections %+v; want the one", c)
	}
	select {
	case <-ended: // the peer saw the end of the stream the program never closed
	case <-time.After(time.Minute):
		t.Fatal("the connection the run left open outlived the run")
	}

	narrower := budget.MustParse(dir, "io")
	res, err = p.Run(context.Background(), PoolRun{Program: "left.vel", Source: []byte(left),
		Budget: &narrower})
	if err != nil || res.Receipt.Outcome.Code != codes.E302 {
		t.Fatalf("a run whose own budget grants no net: %v, %+v; want E302", err, res.Receipt.Outcome)
	}
	res, err = p.Run(context.Background(), PoolRun{Program: "again.vel", Source: []byte(left)})
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK ||
		len(res.Receipt.Observed.Connections) != 1 {
		t.Fatalf("the next run: %v, %+v, %+v", err, res.Receipt.Outcome, res.Receipt.Observed)
	}
	if !strings.Contains(res.Receipt.RunParameters.ConfinementReason, "supervisor makes each") {
		t.Errorf("the reason does not say the supervisor connects: %s",
			res.Receipt.RunParameters.ConfinementReason)
	}
}

// TestPoolWorkerHoldsNoSocketOfARun: a connection the program left open
// is closed in the pooled worker too once its run ended, not only shut
// down by the supervisor: the worker's /proc/PID/fd holds as many
// sockets after the run as before it (its broker channel), where, the
// control, it held one more while the run had the connection open.
func TestPoolWorkerHoldsNoSocketOfARun(t *testing.T) {
	h := startHeldPool(t)
	p, pid, held, answer, port := h.pool, h.pid, h.held, h.answer, h.port
	sockets := func() int {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, fd := range fds {
			if to, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil &&
				strings.HasPrefix(to, "socket:") {
				n++
			}
		}
		return n
	}
	before := sockets()
	src := "c = net.connect(\"127.0.0.1\", " + port + ")\nc.send(\"hi\\n\")\n" +
		"print(c.recv(64).strip())\n"
	done := make(chan error, 1)
	var res *PoolResult
	go func() {
		var err error
		res, err = p.Run(context.Background(), PoolRun{Program: "left.vel", Source: []byte(src)})
		done <- err
	}()
	<-held
	during := sockets()
	close(answer)
	if err := <-done; err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("run: %v, %+v", err, res.Receipt.Outcome)
	}
	if w := p.Workers(); len(w) != 1 || w[0] != pid {
		t.Fatalf("workers %v after the run, want %d, which serves the next", w, pid)
	}
	if after := sockets(); during != before+1 || after != before {
		t.Errorf("worker %d holds %d sockets before the run, %d during it, %d after it; want "+
			"%d, %d, %d", pid, before, during, after, before, before+1, before)
	}
}

// TestPoolWorkerEmptiesItsTempDirBetweenRuns: what is left in a pooled
// worker's temporary directory while a run holds it (written there from
// outside, as a host module or the worker would) is gone before the next
// run on the same worker ends: the directory, found from outside as
// where the worker's standard error (its crash file) lies, holds the
// crash file alone. The control: while the run held it, the directory
// held what was written.
func TestPoolWorkerEmptiesItsTempDirBetweenRuns(t *testing.T) {
	h := startHeldPool(t)
	p, pid, held, answer, port := h.pool, h.pid, h.held, h.answer, h.port
	crash, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", pid))
	if err != nil || filepath.Base(crash) != wire.CrashFile {
		t.Fatalf("worker %d's standard error is %q (%v), want its crash file", pid, crash, err)
	}
	tmp := filepath.Dir(crash)
	src := "c = net.connect(\"127.0.0.1\", " + port + ")\nc.send(\"hi\\n\")\n" +
		"print(c.recv(64).strip())\n"
	done := make(chan error, 1)
	go func() {
		res, err := p.Run(context.Background(), PoolRun{Program: "holds.vel", Source: []byte(src)})
		if err == nil && res.Receipt.Outcome.Status != receipt.StatusOK {
			err = fmt.Errorf("%+v", res.Receipt.Outcome)
		}
		done <- err
	}()
	<-held
	left := []string{"left.txt", ".hidden", filepath.Join("sub", "deep.txt")}
	for _, name := range left {
		testkit.WriteFile(t, filepath.Join(tmp, name), "the earlier run's\n")
	}
	names := func() []string {
		entries, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	during := names()
	close(answer)
	if err := <-done; err != nil {
		t.Fatalf("the run: %v", err)
	}
	res, err := p.Run(context.Background(),
		PoolRun{Program: "next.vel", Source: []byte("print(1)\n")})
	if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Fatalf("the next run: %v, %+v", err, res)
	}
	if w := p.Workers(); len(w) != 1 || w[0] != pid {
		t.Fatalf("workers %v, want %d, which served both runs", w, pid)
	}
	after := names()
	if len(during) != 1+len(left) || len(after) != 1 || after[0] != wire.CrashFile {
		t.Errorf("worker %d's %s held %v while the run did, %v after the next; want the %d "+
			"written and the crash file, then the crash file alone", pid, tmp, during, after,
			len(left))
	}
}

// heldPool is a pool of one worker granted a loopback listener that
// holds each connection once it has read a line: held is sent then, and
// the listener answers once answer is.
type heldPool struct {
	pool         *Pool
	pid          int // the worker's
	held, answer chan struct{}
	port         string
}

// startHeldPool starts a heldPool, closed when t ends.
func startHeldPool(t *testing.T) heldPool {
	t.Helper()
	h := heldPool{held: make(chan struct{}), answer: make(chan struct{})}
	h.port = testkit.Serve(t, func(c net.Conn) {
		defer c.Close()
		r := bufio.NewReader(c)
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
		h.held <- struct{}{}
		<-h.answer
		io.WriteString(c, "answer\n")
		io.Copy(io.Discard, r)
	})
	dir := t.TempDir()
	var err error
	h.pool, err = StartPool(PoolConfig{Budget: budget.MustParse(dir, "io", "net:127.0.0.1:"+h.port),
		Workers: 1, Confine: core.ModeDefault, Cwd: dir, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	t.Cleanup(func() { h.pool.Close() })
	waitUntil(t, func() bool {
		if w := h.pool.Workers(); len(w) == 1 {
			h.pid = w[0]
		}
		return h.pid != 0
	})
	return h
}

// TestBrokeredConnectionPastTheDescriptors: a strict run granted
// ffi:ctypes (level full) fills its table of descriptors with raw
// copies until it may hold no more (EMFILE), then connects through its
// supervisor, which makes the connection and hands it over: the kernel
// cannot put it in the table. That is the run's own doing, E315, as a
// run that dials itself meets it; before, it was E310 ("a reply cut
// short"), whose advice is to report a fault of Sabline's. The control:
// the same run, eight of its copies closed first, is handed its
// connection and the peer reads the line it sends.
func TestBrokeredConnectionPastTheDescriptors(t *testing.T) {
	port, _ := echoes(t)
	src := `c = ffi.module("ctypes")
last = []
for i in range(8192):
    r = c.syscall("fcntl", 1, 0, 0)  # F_DUPFD of standard output
    if r.errno:
        print("copies end with %s" % r.errno)
        break
    last = (last + [r.ret])[-8:]
if ARGS[0] == "close":
    for fd in last:
        c.syscall("close", fd)
n = net.connect("127.0.0.1", ` + port + `)
n.send("hi\n")
print(n.recv(64).strip())
`
	for _, tt := range []struct {
		name, close string
		want        codes.Code
	}{
		{name: "every descriptor held", close: "keep", want: codes.E315},
		{name: "the control: eight closed first", close: "close"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := superviseProgram(t, src, []string{"io", "ffi:ctypes", "net:127.0.0.1:" + port},
				func(r *Run) {
					r.Args = []string{tt.close}
					r.Confine = core.ModeStrict
				})
			t.Logf("outcome %s %q, level %s, stdout %q", s.rec.Outcome.Code, s.rec.Outcome.Message,
				s.rec.RunParameters.Confinement, s.stdout)
			if lvl := s.rec.RunParameters.Confinement; lvl != core.Full {
				t.Skipf("level %s (%s): no broker and no descriptor limit to fill", lvl,
					s.rec.RunParameters.ConfinementReason)
			}
			if !strings.Contains(s.stdout, "copies end with EMFILE") {
				t.Fatalf("stdout %q: want the copies to end at the descriptor limit", s.stdout)
			}
			if tt.want == "" {
				if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, "echo: hi") {
					t.Fatalf("outcome %+v, stdout %q: want the connection handed over", s.rec.Outcome,
						s.stdout)
				}
				return
			}
			wantCode(t, s, tt.want, "holds as many descriptors as it may")
		})
	}
}

// TestRunStoppedInABrokeredDial: a confined run stopped while its
// supervisor makes the connection it asked for (a peer whose backlog is
// full drops the SYN, so the connect waits) ends at once at that call,
// E307 with its position, as a run that dials itself does; it waited on
// the broker's answer, did not answer the stop, and was killed after the
// stop's grace, where it was not known. The control: the same program
// against a peer that answers runs to its end.
func TestRunStoppedInABrokeredDial(t *testing.T) {
	answering, _ := echoes(t)
	full := backlog.Listen(t, unix.AF_INET, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}, 0)
	sa, err := unix.Getsockname(full)
	if err != nil {
		t.Fatal(err)
	}
	dropping := strconv.Itoa(sa.(*unix.SockaddrInet4).Port)
	for i := 0; i < 4; i++ { // the backlog filled: the next SYN to it is dropped
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		_ = unix.Connect(fd, sa)
	}
	for _, tt := range []struct{ name, port string }{
		{"a peer that drops the SYN", dropping},
		{"the control: a peer that answers", answering},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "print(\"asking\")\nc = net.connect(\"127.0.0.1\", " + tt.port + ")\n" +
				"c.send(\"hi\\n\")\nprint(c.recv(64).strip())\n"
			// The stop must come before the connection's own bound (the
			// supervisor's HandshakeTimeout, as long as the language's),
			// which would end it E315.
			timeout := min(testkit.Bound(2*time.Second), broker.HandshakeTimeout-2*time.Second)
			s := superviseProgram(t, src, []string{"io", "net:127.0.0.1:" + tt.port}, func(r *Run) {
				r.Confine = core.ModeDefault
				r.Timeout = timeout
			})
			if got := s.stored(t).Observed.Connections; len(got) == 0 {
				t.Skipf("level %s (%s), no connection listed: no broker made it",
					s.rec.RunParameters.Confinement, s.rec.RunParameters.ConfinementReason)
			}
			if tt.port == answering {
				if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, "echo: hi") {
					t.Fatalf("outcome %+v, stdout %q: want the answer", s.rec.Outcome, s.stdout)
				}
				return
			}
			if !strings.Contains(s.stdout, "asking") {
				t.Skipf("stopped after %v, before the program asked for its connection (timeout %v): "+
					"%q", s.wall, timeout, s.rec.Outcome.Message)
			}
			wantCode(t, s, codes.E307, "longer than its timeout")
			if want := filepath.Join(s.dir, "p.vel") + ":2:16"; s.rec.Outcome.Position != want {
				t.Errorf("outcome %q at %q, want it stopped at the connect, %s", s.rec.Outcome.Message,
					s.rec.Outcome.Position, want)
			}
		})
	}
}
