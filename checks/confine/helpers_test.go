package confinecheck

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sabline/sabline/confine/core"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/checks/internal/escape"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/fault"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/receipt"
)

// runLimit bounds one command of a spec: a run that hangs fails the spec
// instead of the whole test binary. It is two minutes on a quiet machine,
// scaled by testkit.Patience when the command starts.
func runLimit() time.Duration { return testkit.Bound(2 * time.Minute) }

// grace is how long a witness waits, off Linux, for a process to die of
// a signal sent before the run ended: a second on a quiet machine, scaled
// by testkit.Patience.
func grace() time.Duration { return testkit.Bound(time.Second) }

// scratch is one spec's own corner of the file system: the directory the
// commands run in, a HOME, a receipts directory, a directory to grant and
// one that no budget grants. Every spec makes its own.
type scratch struct {
	dir      string
	home     string
	receipts string
	grant    string // what $GRANT stands for in a budget
	outside  string // granted by nothing
	n        int    // names made so far, to keep them apart
}

func newScratch() *scratch {
	d := GinkgoT().TempDir()
	s := &scratch{
		dir:      d,
		home:     filepath.Join(d, "home"),
		receipts: filepath.Join(d, "receipts"),
		grant:    filepath.Join(d, "grant"),
		outside:  filepath.Join(d, "outside"),
	}
	for _, p := range []string{s.home, s.grant, s.outside} {
		Expect(os.Mkdir(p, 0o755)).To(Succeed())
	}
	return s
}

// file writes body to name, relative to the scratch directory, and
// returns its path.
func (s *scratch) file(name, body string) string {
	p := filepath.Join(s.dir, name)
	Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
	Expect(os.WriteFile(p, []byte(body), 0o644)).To(Succeed())
	return p
}

// unique returns a path in the ungranted directory that nothing has used.
func (s *scratch) unique(name string) string {
	s.n++
	return filepath.Join(s.outside, fmt.Sprintf("%s-%d", name, s.n))
}

// call is one command line.
type call struct {
	bin   string     // the binary; "" for the normal build
	args  []string   // its arguments
	fault string     // SABLINE_FAULT_INJECT; "" to leave it unset
	stdin io.Reader  // nil for none
	env   []string   // more of the environment, KEY=VALUE
	extra []*os.File // descriptors 3, 4, ... of the command
	// stdout, when set, is the command's standard output, a file of the
	// spec's; ran.stdout is then "".
	stdout *os.File
}

// ran is what a command did.
type ran struct {
	exit   int
	stdout string
	stderr string
}

// stderrLines are the lines the command wrote to standard error.
func (r ran) stderrLines() []string {
	if r.stderr == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
}

// stderrLine returns the first line of standard error that starts with
// prefix, or "".
func (r ran) stderrLine(prefix string) string {
	for _, l := range r.stderrLines() {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func (r ran) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.exit, r.stdout, r.stderr)
}

// run runs the normal build with args in the scratch directory.
func (s *scratch) run(args ...string) ran {
	return s.runWith(call{args: args})
}

// runWith runs c as a user would: in the scratch directory, with HOME and
// SABLINE_RECEIPTS pointing into it and SABLINE_FAULT_INJECT set only when
// c asks for it.
func (s *scratch) runWith(c call) ran {
	if c.bin == "" {
		c.bin = sabline
	}
	ctx, cancel := context.WithTimeout(context.Background(), runLimit())
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, c.args...)
	cmd.Dir = s.dir
	cmd.Env = append(s.env(c.fault), c.env...)
	cmd.Stdin = c.stdin
	cmd.ExtraFiles = c.extra
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if c.stdout != nil {
		cmd.Stdout = c.stdout
	}
	err := cmd.Run()
	r := ran{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.exit = exit.ExitCode()
	case err != nil:
		Fail(fmt.Sprintf("run %s %s: %v", c.bin, strings.Join(c.args, " "), err))
	}
	GinkgoWriter.Printf("$ sabline %s\n%s\n", strings.Join(c.args, " "), r)
	return r
}

// env is this process's environment as a run inherits it (escape.Environ:
// no variable of Sabline's own the suite does not set), with HOME and the
// receipts directory the scratch's own, and no fault injection unless
// faults are given.
func (s *scratch) env(faults string) []string {
	var env []string
	for _, kv := range escape.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "HOME", "XDG_STATE_HOME":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+s.home, receipt.DirEnv+"="+s.receipts)
	if faults != "" {
		env = append(env, fault.Env+"="+faults)
	}
	return env
}

// receipt returns the newest receipt in the scratch's receipts directory:
// that of the last run.
func (s *scratch) receipt() *receipt.Receipt {
	runs, err := receipt.List(s.receipts)
	Expect(err).NotTo(HaveOccurred())
	Expect(runs).NotTo(BeEmpty(), "no receipt in %s", s.receipts)
	return runs[len(runs)-1].Receipt
}

// knockout returns the knock-out build, whose budget checks all pass, so
// that only the operating system holds its runs. It is built the first
// time a spec asks for it.
func knockout() string {
	bin, err := buildbin.Sabline("sabline_knockout")
	Expect(err).NotTo(HaveOccurred())
	return bin
}

// layerPattern matches the applied layer names a layer of the ENFORCES
// table stands for: for the Landlock family "landlock", Landlock at any
// ABI, as a receipt names it ("landlock-abi7"); for the others, the name
// itself.
func layerPattern(cellLayer string) *regexp.Regexp {
	pattern := regexp.QuoteMeta(cellLayer)
	if cellLayer == core.LayerLandlockFamily {
		pattern += `-abi[1-9][0-9]*`
	}
	return regexp.MustCompile(`^` + pattern + `$`)
}

// isCellLayer reports whether an applied layer is one of the cell's.
func isCellLayer(cell confine.Cell, applied string) bool {
	for _, l := range cell.Layers {
		if layerPattern(l).MatchString(applied) {
			return true
		}
	}
	return false
}

// namedLayers returns the layers a message names after "refused by", up
// to the closing parenthesis, the semicolon or the end: "landlock-abi7",
// or for "refused by: one of landlock-abi7, seccomp; the errno does not
// tell which" both layers, with undecided true.
func namedLayers(msg string) (layers []string, undecided bool) {
	_, rest, ok := strings.Cut(msg, "refused by")
	if !ok {
		return nil, false
	}
	rest = strings.TrimSpace(strings.TrimPrefix(rest, ":"))
	rest, undecided = strings.CutPrefix(rest, "one of ")
	rest, _, _ = strings.Cut(rest, ")")
	rest, tail, _ := strings.Cut(rest, ";")
	undecided = undecided && strings.TrimSpace(tail) == "the errno does not tell which"
	for _, l := range strings.Split(rest, ",") {
		if l = strings.TrimSpace(l); l != "" {
			layers = append(layers, l)
		}
	}
	return layers, undecided
}

// expectNamedLayers: the message names the refusing layers, each a layer
// of the cell; or, where the errno cannot tell which of several applied
// layers refused, it says so, and names a layer of the cell among them.
// It returns the layers named.
func expectNamedLayers(msg string, cell confine.Cell) []string {
	GinkgoHelper()
	layers, undecided := namedLayers(msg)
	Expect(layers).NotTo(BeEmpty(), "the refusal names no layer: %s", msg)
	if len(layers) > 1 {
		Expect(undecided).To(BeTrue(), "several layers are named as if each refused: %s", msg)
		Expect(layers).To(ContainElement(Satisfy(func(l string) bool { return isCellLayer(cell, l) })),
			"none of the layers named is a layer of the cell %v: %s", cell.Layers, msg)
		return layers
	}
	Expect(isCellLayer(cell, layers[0])).To(BeTrue(), "the refusal names %s, not a layer of the cell %v: %s", layers[0], cell.Layers, msg)
	return layers
}

// A witness is the target of one fault-injection operation, made by the
// spec, and the means to see from outside the worker whether the
// operation happened. happened is asked once, after the run.
type witness struct {
	target   string
	happened func() bool
}

func newWitness(target string, happened func() bool) witness {
	return witness{target: target, happened: sync.OnceValue(happened)}
}

// witness makes a fresh target for op:
//
//	read     a FIFO holding two bytes: a read takes one (readWitness)
//	write    a new path in the ungranted directory: the file appears
//	connect  a loopback listener: it accepts a connection and reads a line
//	exec     a script that makes a marker file: the marker appears
//	signal   a sleeping process: it dies of the signal
func (s *scratch) witness(op string) witness {
	switch op {
	case confine.OpRead:
		return s.readWitness()
	case confine.OpWrite:
		p := s.unique("written")
		return newWitness(p, func() bool { return exists(p) })
	case confine.OpConnect:
		l := listen()
		return newWitness(l.addr, l.heard)
	case confine.OpExec:
		marker := s.unique("marker")
		return newWitness(execScript(s.unique("touch"), marker), func() bool { return exists(marker) })
	case confine.OpSignal:
		return signalWitness()
	}
	Fail("no witness for the operation " + strconv.Quote(op))
	return witness{}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// A witness of something that arrives over loopback (a connection, a
// line, a datagram) is asked once the run has ended: what the run sent was
// queued by the kernel before the call that sent it returned. The
// witness then sends a probe of its own, which the kernel queues behind
// whatever the run sent, and waits for it: what it reads before the probe
// is what the run did. No wait is for an effect that may never come.
const probeLine = "sabline-check-probe"

// loopback is a TCP listener on 127.0.0.1 that answers each line it reads
// with "echo: " and the line.
type loopback struct {
	addr   string
	port   int
	lines  chan string
	served sync.WaitGroup // each connection accepted, until it is read
}

// listen starts a loopback listener, closed when the spec ends.
func listen() *loopback {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(l.Close)
	lb := &loopback{addr: l.Addr().String(), port: l.Addr().(*net.TCPAddr).Port, lines: make(chan string, 16)}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return // closed at the end of the spec
			}
			lb.served.Add(1) // in the order the kernel queued them
			go func() {
				defer lb.served.Done()
				lb.serve(c)
			}()
		}
	}()
	return lb
}

func (lb *loopback) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(runLimit()))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	if line == probeLine+"\n" {
		fmt.Fprintln(c, probeLine)
		return
	}
	select {
	case lb.lines <- line:
	default:
	}
	fmt.Fprintf(c, "echo: %s", line)
}

// heard reports whether the listener accepted a connection and read a
// line from it, asked once the run has ended: once its probe is answered,
// every connection the run made was accepted before it, and each has
// been read to its line or to its end.
func (lb *loopback) heard() bool {
	c, err := net.DialTimeout("tcp", lb.addr, runLimit())
	Expect(err).NotTo(HaveOccurred(), "the witness's probe of its own listener")
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(runLimit()))
	fmt.Fprintln(c, probeLine)
	answer, err := bufio.NewReader(c).ReadString('\n')
	Expect(err).NotTo(HaveOccurred(), "the witness's probe of its own listener")
	Expect(answer).To(Equal(probeLine + "\n"))
	lb.served.Wait()
	select {
	case <-lb.lines:
		return true
	default:
		return false
	}
}

// receiver is a UDP socket on 127.0.0.1 that counts the datagrams it
// receives: the witness, outside the worker, of a datagram sent to it.
type receiver struct {
	port   int
	got    atomic.Int64  // datagrams received since count last asked
	probed chan struct{} // one value for each probe read
}

// receiveUDP starts a receiver, closed when the spec ends.
func receiveUDP() *receiver {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	u := &receiver{port: c.LocalAddr().(*net.UDPAddr).Port, probed: make(chan struct{}, 1)}
	go func() {
		buf := make([]byte, 512)
		for {
			n, _, err := c.ReadFrom(buf)
			if err != nil {
				return // closed at the end of the spec
			}
			if string(buf[:n]) == probeLine {
				u.probed <- struct{}{}
				continue
			}
			u.got.Add(1)
		}
	}()
	return u
}

// count returns how many datagrams arrived since it was last asked, asked
// once the run has ended: those read before the receiver's probe.
func (u *receiver) count() int {
	c, err := net.Dial("udp4", fmt.Sprintf("127.0.0.1:%d", u.port))
	Expect(err).NotTo(HaveOccurred(), "the witness's probe of its own receiver")
	defer c.Close()
	_, err = c.Write([]byte(probeLine))
	Expect(err).NotTo(HaveOccurred(), "the witness's probe of its own receiver")
	select {
	case <-u.probed:
	case <-time.After(runLimit()):
		Fail("the receiver never read its own probe")
	}
	return int(u.got.Swap(0))
}

// signalWitness starts a process that sleeps, stopped when the spec ends.
// Asked once the run has ended, it waits for the process only where a
// signal that ends it is on its way (escape.Dying); off Linux, where
// nothing says so, it waits up to grace.
func signalWitness() witness {
	cmd := sleeper()
	Expect(cmd.Start()).To(Succeed())
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // a process killed is what the witness looks for
		close(done)
	}()
	DeferCleanup(func() {
		_ = cmd.Process.Kill() // it may be gone already
		<-done
	})
	return newWitness(strconv.Itoa(cmd.Process.Pid), func() bool {
		wait := grace()
		select {
		case <-done:
			return endedBySignal(cmd.ProcessState)
		default:
		}
		if dying, known := escape.Dying(cmd.Process.Pid); known && !dying {
			return false
		} else if known {
			wait = runLimit() // it ends when it is next scheduled
		}
		select {
		case <-done:
			return endedBySignal(cmd.ProcessState)
		case <-time.After(wait):
			return false
		}
	})
}

// cellOf returns the running system's cell of the ENFORCES row id.
func cellOf(id string) confine.Cell {
	row, ok := confine.EnforcesRow(id)
	Expect(ok).To(BeTrue(), "no row %q in confine.Enforces()", id)
	cell, ok := row.Cell(confine.System(goruntime.GOOS))
	Expect(ok).To(BeTrue(), "row %q has no cell for %s", id, goruntime.GOOS)
	return cell
}

// expectKernelRefusal: the run ended with E319 (exit 1), and its message
// names the refusing layers as expectNamedLayers says, of the row id's
// cell.
func expectKernelRefusal(r ran, rec *receipt.Receipt, id string) {
	GinkgoHelper()
	Expect(r.exit).To(Equal(1), "%s", r)
	Expect(rec.Outcome.Code).To(Equal(codes.E319),
		"a kernel refusal is E319, whose advice names the grants a host module needs (docs/errors.md)\n%s", r)
	expectNamedLayers(rec.Outcome.Message, cellOf(id))
}

// cellsTested are the ENFORCES rows some spec is evidence for, filled as
// the spec tree is built, before any spec runs.
var cellsTested = map[string]bool{}

// cellLabel labels a spec as evidence for the running system's cell of
// the ENFORCES row id: the count line counts the row asserted when every
// spec so labelled passed.
func cellLabel(id string) Labels {
	if _, ok := confine.EnforcesRow(id); !ok {
		panic("cellLabel: no row " + strconv.Quote(id) + " in confine.Enforces()")
	}
	cellsTested[id] = true
	return Label(cellLabelPrefix + id)
}

const cellLabelPrefix = "cell:"

// kernelHeld is what a receipt's confinement says the kernel layers held,
// apart from what holds its memory limit (which every command-line run
// has since its default bound): kernelPart of it.
func kernelHeld(rec *receipt.Receipt) core.Result { return kernelPart(rec.Confinement()) }

// kernelPart is r apart from what it says of a memory limit: what a run's
// layers held, whatever limit it ran under (the doctor's probe runs under
// a default run's).
func kernelPart(r core.Result) core.Result { return r.Except(core.LayerMemory) }
