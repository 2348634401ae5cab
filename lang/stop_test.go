package lang

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// signalWriter tells, once, that the program wrote its first output.
type signalWriter struct{ wrote chan struct{} }

func (w *signalWriter) Write(p []byte) (int, error) {
	select {
	case <-w.wrote:
	default:
		close(w.wrote)
	}
	return len(p), nil
}

// TestStopPosition stops a program in a loop that never ends by itself,
// once it has printed: the E307 it ends with names a line of the loop
// (its header or its body), the statement it was running, not the
// program's first position nor a statement before the loop. A stop may
// land as print returns, which is where the program was then (the
// print's own position, and nothing else, is allowed besides the loop):
// such a run is tried again, and the test fails when no run of
// stopAttempts says the loop.
func TestStopPosition(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		print     string // the position of the print call
		loop      [2]int // the loop's first and last lines
	}{
		{"top level", "print('go')\nfor i in range(1 << 40):\n    x = i\n", "1:6", [2]int{2, 3}},
		{"in a function", "def f():\n    print('go')\n    for i in range(1 << 40):\n        x = i\n" +
			"f()\n", "2:10", [2]int{3, 4}},
		{"while", "print('go')\nwhile True:\n    n = len(ARGS)\n", "1:6", [2]int{2, 3}},
		{"while True, a body that cannot fail", "x = 0\nprint('go')\nx = 2\nwhile True:\n    x = 1\n",
			"2:6", [2]int{4, 5}},
		{"while True, on one line", "print('go')\nwhile True: pass\n", "1:6", [2]int{2, 2}},
		{"while True in a function", "def f():\n    x = 0\n    print('go')\n    while True:\n" +
			"        x = 1\nf()\n", "3:10", [2]int{4, 5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			prog := filepath.Join(dir, "main.vel")
			testkit.WriteFile(t, prog, tt.src)
			var seen []string
			for range stopAttempts {
				pos := stopOnce(t, dir, prog)
				for l := tt.loop[0]; l <= tt.loop[1]; l++ {
					if strings.HasPrefix(pos, prog+":"+strconv.Itoa(l)+":") {
						return
					}
				}
				if pos != prog+":"+tt.print {
					t.Fatalf("position %q, want the loop's (lines %d-%d) or the print's, %s", pos,
						tt.loop[0], tt.loop[1], tt.print)
				}
				seen = append(seen, pos)
			}
			t.Errorf("positions %q, want one on the loop's lines %d-%d", seen, tt.loop[0],
				tt.loop[1])
		})
	}
}

// stopAttempts is how many runs TestStopPosition stops at most.
const stopAttempts = 10

// stopOnce runs prog, stops it once it has printed and returns the
// position its E307 names.
func stopOnce(t *testing.T, dir, prog string) string {
	t.Helper()
	out := &signalWriter{wrote: make(chan struct{})}
	in := NewInterp(Config{Budget: budget.MustParse(dir, "io"), Cwd: dir,
		Stdout: out, Stdin: strings.NewReader("")})
	pre := in.Predeclared()
	c, err := in.Compile(prog, pre)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- in.Exec(c, pre) }()
	<-out.wrote
	pastPrint(t)
	in.Stop("stopped by the test")
	err = <-done
	var e *codes.Error
	if !errors.As(err, &e) || e.Code != codes.E307 {
		t.Fatalf("the stopped run ended with %v, want E307", err)
	}
	return e.Pos
}

// pastPrint waits until no goroutine is in print: the program that
// printed is past it, in the statement after, so a stop is seen there and
// not as print returns. It reads the goroutines' stacks, yielding between
// reads, for at most a minute.
func pastPrint(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); runtime.Gosched() {
		if !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "lang.(*Interp).print") {
			return
		}
	}
	t.Fatal("the program was still in print after a minute")
}

// TestStopEndsAWaitOnThePeer stops a program waiting on a peer that
// never answers: a recv on a TCP connection, a recv on a UDP socket, an
// HTTP GET. Each run ends with E307 at the call, as soon as it is
// stopped, where it once waited for the peer (recv without end, the GET
// for its 10 s): in a run in the caller's own process no worker is
// killed after the stop, and a cancelled sabline.Run never returned. The
// control: the same calls, with a peer that answers, return its answer.
func TestStopEndsAWaitOnThePeer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	silent := testkit.Serve(t, func(net.Conn) { <-release })
	answers := testkit.Serve(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\npong")
	})
	silentUDP := udpPeer(t, false)
	echoUDP := udpPeer(t, true)
	for _, tt := range []struct {
		name, src, grant string
		silent, answers  string // the peer's port
	}{
		{"recv", "c = net.connect(\"127.0.0.1\", PORT)\nprint(c.recv())\n", "net:127.0.0.1",
			silent, answers},
		{"udp recv", "c = net.udp(\"127.0.0.1\", PORT)\nc.send(\"ping\")\nprint(c.recv())\n",
			"net:udp:127.0.0.1", silentUDP, echoUDP},
		{"http_get", "print(net.http_get(\"http://127.0.0.1:PORT/\").body)\n", "net:127.0.0.1",
			silent, answers},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			b := budget.MustParse(dir, "io,"+tt.grant)
			control := runSrc(t, Config{Budget: b, Cwd: dir},
				strings.ReplaceAll(tt.src, "PORT", tt.answers))
			if control.err != nil || !strings.Contains(control.stdout, "pong") {
				t.Fatalf("with a peer that answers: %q, %v; want its answer", control.stdout,
					control.err)
			}

			prog := filepath.Join(dir, "main.vel")
			src := strings.ReplaceAll(tt.src, "PORT", tt.silent)
			testkit.WriteFile(t, prog, src)
			in := NewInterp(Config{Budget: b, Cwd: dir, Stdout: io.Discard,
				Stdin: strings.NewReader("")})
			pre := in.Predeclared()
			c, err := in.Compile(prog, pre)
			if err != nil {
				t.Fatal(err)
			}
			before := waitingInExec()
			done := make(chan error, 1)
			go func() { done <- in.Exec(c, pre) }()
			waitingOnAPeer(t, before)
			in.Stop("stopped by the test")
			err = stoppedWithin(t, done, "its peer")
			// The position is the call that waited: the innermost on the
			// last line, its opening parenthesis the line's last.
			lines := strings.Split(src, "\n")
			last := lines[len(lines)-2]
			pos := fmt.Sprintf("%s:%d:%d", prog, len(lines)-1, strings.LastIndex(last, "(")+1)
			testkit.WantError(t, err, codes.E307, pos, "stopped by the test")
		})
	}
}

// udpPeer is a UDP socket on loopback for the test that sends each
// datagram back, "pong", when echo is set, and answers nothing otherwise;
// its port.
func udpPeer(t *testing.T, echo bool) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 64)
		for {
			_, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if echo {
				_, _ = pc.WriteTo([]byte("pong"), from)
			}
		}
	}()
	return strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
}

// stoppedWithin is what Exec returned on done once a stop came, within
// the bound of a GET of the language's own (which once ended such a wait
// by itself): a run still waiting on what (its peer, its dial) then
// fails the test.
func stoppedWithin(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	bound := min(testkit.Bound(5*time.Second), dialTimeout/2)
	select {
	case err := <-done:
		return err
	case <-time.After(bound):
		t.Fatalf("the stopped run still waited on %s %v after the stop", what, bound)
		return nil
	}
}

// waitingOnAPeer waits until a goroutine of a program, other than
// those in before, waits in a read of a connection (the peer's answer),
// reading the goroutines' stacks and yielding between reads, for at most
// a minute.
func waitingOnAPeer(t *testing.T, before map[string]bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); runtime.Gosched() {
		for g := range waitingInExec() {
			if !before[g] {
				return
			}
		}
	}
	t.Fatal("the program did not wait on its peer within a minute")
}

// waitingInExec is the set of goroutines (their first lines, which name
// them) that run a program and wait in a read of a connection.
func waitingInExec() map[string]bool {
	buf := make([]byte, 1<<20)
	out := map[string]bool{}
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "sabline/lang.(*Interp).Exec") && strings.Contains(g, ".Read(") {
			id, _, _ := strings.Cut(g, " [")
			out[id] = true
		}
	}
	return out
}

// TestStopEndsAReadOfInput: a stop ends a program waiting on its standard
// input, a reader of the caller's that nobody writes (a run in the
// caller's own process, which no worker's kill ends): E307 at the call
// that waited. Before, io.read_line held the run until the caller's
// reader returned. The control: the same reader written, and the line is
// read.
func TestStopEndsAReadOfInput(t *testing.T) {
	dir := testkit.Scratch(t)
	prog := filepath.Join(dir, "main.vel")
	const src = "print(io.read_line())\n"
	testkit.WriteFile(t, prog, src)
	for _, tt := range []struct {
		name    string
		written string // "" for a reader nobody writes
		wantOut string
	}{
		{name: "a reader nobody writes, stopped"},
		{name: "the reader written (the control)", written: "a line\n", wantOut: "a line\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w := io.Pipe()
			defer w.Close()
			var out bytes.Buffer
			in := NewInterp(Config{Budget: budget.MustParse(dir, "io"), Cwd: dir, Stdout: &out,
				Stdin: r})
			err := execFedOrStopped(t, in, prog, w, tt.written, "on its input")
			if tt.written != "" {
				if err != nil || out.String() != tt.wantOut {
					t.Fatalf("output %q, %v; want %q", out.String(), err, tt.wantOut)
				}
				return
			}
			testkit.WantError(t, err, codes.E307, prog+":1:19", "stopped by the test")
		})
	}
}

// execFedOrStopped runs prog in in and either writes feed to w, what the
// program waits to read (the control), or, for no feed, stops the run
// once it waits on a read; it returns the run's error, and fails the test
// when the run still waits (waiting says for what) within the bound.
func execFedOrStopped(t *testing.T, in *Interp, prog string, w io.Writer, feed,
	waiting string) error {
	t.Helper()
	pre := in.Predeclared()
	c, err := in.Compile(prog, pre)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- in.Exec(c, pre) }()
	if feed != "" {
		_, _ = io.WriteString(w, feed)
	} else {
		waitingOnInput(t)
		in.Stop("stopped by the test")
	}
	select {
	case err = <-done:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatalf("the run still waits %s", waiting)
	}
	return err
}

// TestStopEndsAToolWait: a stop ends a program waiting for a tool's
// answer on a tool channel of its Config (a worker's: the host's
// descriptor), as it ends a wait on its standard input: E307 at the call,
// and the channel takes no more calls, since the answer may still come
// (a worker would otherwise be killed 500 ms after its stop, where the
// program was lost). The control: the host answers, and the answer is
// read.
func TestStopEndsAToolWait(t *testing.T) {
	dir := testkit.Scratch(t)
	prog := filepath.Join(dir, "main.vel")
	const src = "print(tool.call(\"add\", {\"a\": 2})[\"sum\"])\n"
	testkit.WriteFile(t, prog, src)
	for _, tt := range []struct {
		name   string
		answer string // "" for a host that never answers
	}{
		{name: "a host that never answers, stopped"},
		{name: "the host answers (the control)", answer: "{\"sum\": 5}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w := io.Pipe()
			defer w.Close()
			var requests, out bytes.Buffer
			ch := NewToolChannel(struct {
				io.Reader
				io.Writer
			}{r, &requests})
			in := NewInterp(Config{Budget: budget.MustParse(dir, "io", "tool"), Cwd: dir,
				Stdout: &out, Stdin: bytes.NewReader(nil), Tool: ch})
			err := execFedOrStopped(t, in, prog, w, tt.answer, "for the tool's answer")
			if tt.answer != "" {
				if err != nil || out.String() != "5\n" {
					t.Fatalf("output %q, %v; want 5", out.String(), err)
				}
				return
			}
			testkit.WantError(t, err, codes.E307, prog+":1:16", "stopped by the test")
			// A call after the stopped one is refused at once: the answer
			// it would read is the stopped call's, which may still come.
			// Bounded, as a channel taken to be in step waits for it.
			after := make(chan error, 1)
			go func() {
				_, err := ch.call(context.Background(), []byte("{}\n"))
				after <- err
			}()
			select {
			case err = <-after:
			case <-time.After(testkit.Bound(10 * time.Second)):
				err = errors.New("it waits for an answer")
			}
			if err == nil || !strings.Contains(err.Error(), "out of step") {
				t.Errorf("a call after the stopped one: %v, want it refused, the channel out of step", err)
			}
		})
	}
}

// waitingOnInput waits until a goroutine waits in a read of an io.Pipe.
func waitingOnInput(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); runtime.Gosched() {
		if strings.Contains(string(buf[:runtime.Stack(buf, true)]), "io.(*pipe).read(") {
			return
		}
	}
	t.Fatal("the program did not wait on its input within a minute")
}

// TestStopEndsADial stops a program whose connection is still being
// made (net.connect, net.udp): its dial waits on a peer that never
// answers, here a Config.Dial that returns only when its context is
// done, as a dial of the run's own does to a host that drops the SYN.
// Each run ends with E307 at the call as soon as it is stopped, where it
// once waited for the dial's own bound (10 s). The control: the same
// dial given a peer connects, and the program reads its answer.
func TestStopEndsADial(t *testing.T) {
	answers := testkit.Serve(t, func(c net.Conn) { _, _ = io.WriteString(c, "pong") })
	for _, tt := range []struct{ name, src, grant string }{
		{"net.connect", "c = net.connect(\"127.0.0.1\", PORT)\nprint(c.recv())\n", "net:127.0.0.1"},
		{"net.udp", "c = net.udp(\"127.0.0.1\", PORT)\nprint(c.recv())\n", "net:udp:127.0.0.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			b := budget.MustParse(dir, "io,"+tt.grant)
			src := strings.ReplaceAll(tt.src, "PORT", answers)
			if tt.name == "net.connect" {
				control := runSrc(t, Config{Budget: b, Cwd: dir, Dial: func(ctx context.Context,
					network, address string) (net.Conn, error) {
					var d net.Dialer
					return d.DialContext(ctx, network, address)
				}}, src)
				if control.err != nil || control.stdout != "pong\n" {
					t.Fatalf("with a dial that connects: %q, %v; want its answer", control.stdout,
						control.err)
				}
			}

			asked := make(chan struct{})
			waits := func(ctx context.Context, _, _ string) (net.Conn, error) {
				close(asked)
				<-ctx.Done()
				return nil, ctx.Err()
			}
			prog := filepath.Join(dir, "main.vel")
			testkit.WriteFile(t, prog, src)
			in := NewInterp(Config{Budget: b, Cwd: dir, Stdout: io.Discard, Dial: waits,
				Stdin: strings.NewReader("")})
			pre := in.Predeclared()
			c, err := in.Compile(prog, pre)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- in.Exec(c, pre) }()
			select {
			case <-asked:
			case err := <-done:
				t.Fatalf("the run ended before it dialled: %v", err)
			}
			in.Stop("stopped by the test")
			err = stoppedWithin(t, done, "its dial")
			testkit.WantError(t, err, codes.E307, fmt.Sprintf("%s:1:%d", prog,
				strings.Index(src, "(")+1), "stopped by the test")
		})
	}
}
