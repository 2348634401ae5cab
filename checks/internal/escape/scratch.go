package escape

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Scratch is what one run of a target sees: its scratch directories, made
// when the Scratch is, and the victim process and listeners its
// placeholders name, made when Expand first meets them. Close stops and
// removes all of it.
type Scratch struct {
	Base    string // the run's own directory; everything else is beneath it
	Grant   string // $GRANT: data.txt, sub/ and link -> $OUTSIDE/secret.txt
	Outside string // $OUTSIDE: secret.txt
	Home    string // $HOME: .ssh/id_ed25519, .config/app/settings
	Work    string // the program's file and working directory, granted nowhere
	// Stdin, when not "", is a file the runs read as standard input: a
	// descriptor the worker inherits, opened for reading.
	Stdin string
	// Env are further NAME=VALUE words the runs' environment gets.
	Env []string
	// Extra, when not "", is a file the sabline command inherits as
	// descriptor ExtraFD, opened for reading and writing.
	Extra string

	values  map[string]string // placeholders made so far
	closers []io.Closer
	listens bool // a listener or a UDP socket was started
	// receiptsWatched is true once $RECEIPTS was named: the receipts
	// directory is then a witness.
	receiptsWatched bool
	takers          []func() int // each takes what its listener holds, and counts it
	accepted        int          // what the takers counted so far
	shared          *sharedPort  // what $SHARED names, or nil
	victim          *exec.Cmd
	exited          chan struct{}     // closed when the victim has exited
	queues          map[string]string // the message queue names $MQ and $MQNEW gave
	ipcKey          int64             // the System V key $IPCKEY gave, or 0
	keyDesc         string            // the key description $KEYDESC gave, or ""
	// priority is the victim's priority witness, or nil (watchPriority).
	priority *priorityWatch
}

// placeholders in the order Expand replaces them: a name that another
// begins with comes after it.
var placeholders = []string{"$GRANT", "$OUTSIDE", "$HOME", "$RECEIPTS", "$MISSING", "$VICTIM",
	"$PORT2", "$PORT6", "$PORT", "$UDPPORT", "$UNIX", "$ABSTRACT",
	"$MQNEW", "$MQ", "$IPCKEY", "$KEYDESC", "$SHARED", "$SEEN"}

// NewScratch makes a scratch world in a new directory beneath parent,
// named after name.
func NewScratch(parent, name string) (*Scratch, error) {
	base, err := os.MkdirTemp(parent, name+"-")
	if err != nil {
		return nil, fmt.Errorf("scratch: %w", err)
	}
	s := &Scratch{
		Base: base, Grant: filepath.Join(base, "grant"), Outside: filepath.Join(base, "outside"),
		Home: filepath.Join(base, "home"), Work: filepath.Join(base, "work"),
		queues: map[string]string{},
	}
	s.values = map[string]string{
		"$GRANT":   s.Grant,
		"$OUTSIDE": s.Outside,
		"$HOME":    s.Home,
		"$MISSING": Missing,
		"$SEEN":    filepath.Join(base, "seen"),
	}
	files := map[string]string{
		filepath.Join(s.Grant, "data.txt"):        "data the budget grants\n",
		filepath.Join(s.Grant, "sub", "keep.txt"): "a file in a directory beneath the grant\n",
		filepath.Join(s.Outside, "secret.txt"):    "a file no budget grants\n",
		filepath.Join(s.Home, ".ssh", "id_ed25519"): "not a key: a file where a private key " +
			"would be\n",
		filepath.Join(s.Home, ".config", "app", "settings"): "a program's settings, in a " +
			"dot-entry of the home\n",
		filepath.Join(s.Work, ".sabline-escape-marker"): "the program's working directory\n",
	}
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			s.Close()
			return nil, fmt.Errorf("scratch: %w", err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			s.Close()
			return nil, fmt.Errorf("scratch: %w", err)
		}
	}
	if err := os.Symlink(filepath.Join(s.Outside, "secret.txt"),
		filepath.Join(s.Grant, "link")); err != nil {
		s.Close()
		return nil, fmt.Errorf("scratch: %w", err)
	}
	if err := markScratch(s); err != nil {
		s.Close()
		return nil, fmt.Errorf("scratch: %w", err)
	}
	return s, nil
}

// Expand replaces the placeholders in text, starting the victim and the
// listeners it names that are not running yet.
func (s *Scratch) Expand(text string) (string, error) {
	var pairs []string
	for _, p := range placeholders {
		if !strings.Contains(text, p) {
			continue
		}
		v, ok := s.values[p]
		if !ok {
			var err error
			if v, err = s.make(p); err != nil {
				return "", fmt.Errorf("scratch: %s: %w", p, err)
			}
			s.values[p] = v
		}
		pairs = append(pairs, p, v)
	}
	return strings.NewReplacer(pairs...).Replace(text), nil
}

// make starts what placeholder p names and returns its value.
func (s *Scratch) make(p string) (string, error) {
	switch p {
	case "$RECEIPTS":
		s.receiptsWatched = true
		return s.Receipts(), os.MkdirAll(s.Receipts(), 0o700)
	case "$VICTIM":
		cmd := exec.Command(victimCommand[0], victimCommand[1:]...)
		if err := cmd.Start(); err != nil {
			return "", err
		}
		s.victim, s.exited = cmd, make(chan struct{})
		go func() { _ = cmd.Wait(); close(s.exited) }() // the state is read from cmd.ProcessState
		return strconv.Itoa(cmd.Process.Pid), nil
	case "$PORT", "$PORT2":
		return s.listen("tcp4", "127.0.0.1:0")
	case "$PORT6":
		return s.listen("tcp6", "[::1]:0")
	case "$UNIX":
		dir := filepath.Join(s.Base, "sock")
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", err
		}
		return s.listen("unix", filepath.Join(dir, "s"))
	case "$ABSTRACT":
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		name := "sabline-escape-" + hex.EncodeToString(b[:])
		_, err := s.listen("unix", "@"+name)
		return name, err
	case "$MQ", "$MQNEW", "$IPCKEY", "$KEYDESC":
		return s.makeObject(p)
	case "$SHARED":
		sp, err := startShared()
		if err != nil {
			return "", err
		}
		s.shared = sp
		return sp.port(), nil
	case "$UDPPORT":
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		s.closers = append(s.closers, c)
		if err := s.take(c); err != nil {
			return "", err
		}
		return strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port), nil
	}
	return "", errors.New("unknown placeholder")
}

// listen starts a listener that counts the connections made to it,
// taking and closing each when Accepted is asked. It returns the port, or
// the path.
func (s *Scratch) listen(network, addr string) (string, error) {
	l, err := net.Listen(network, addr)
	if err != nil {
		return "", err
	}
	s.closers = append(s.closers, l)
	if err := s.take(l); err != nil {
		return "", err
	}
	if tcp, ok := l.Addr().(*net.TCPAddr); ok {
		return strconv.Itoa(tcp.Port), nil
	}
	return addr, nil
}

// take adds the taker of the listener l (taker).
func (s *Scratch) take(l any) error {
	t, err := taker(l)
	if err != nil {
		return err
	}
	s.listens = true
	s.takers = append(s.takers, t)
	return nil
}

// Receipts is the directory the runs keep their receipts in.
func (s *Scratch) Receipts() string { return filepath.Join(s.Base, "receipts") }

// Accepted is how many connections and datagrams the listeners took. It
// takes, then and there, whatever the kernel holds for them: a connection
// to a loopback listener is made, and a datagram queued, before the call
// that makes it returns, so what a run did is counted once it has ended,
// without a wait.
func (s *Scratch) Accepted() int {
	for _, take := range s.takers {
		s.accepted += take()
	}
	return s.accepted
}

// victimCommand is the victim: a process that waits to be killed, and
// ends by itself after 300 s should a harness that died leave it behind.
var victimCommand = []string{"sleep", "300"}

// Victim says what became of the victim process: "" when there is none,
// Killed when a signal ended it or is on its way to (victimDying: it is
// then waited for, up to runLimit), victimEnded when it exited by itself,
// "alive" otherwise.
func (s *Scratch) Victim() string {
	if s.victim == nil {
		return ""
	}
	select {
	case <-s.exited:
		return s.victimEnd()
	default:
	}
	if !s.victimDying() {
		return "alive"
	}
	select {
	case <-s.exited:
		return s.victimEnd()
	case <-time.After(runLimit()):
		return "alive"
	}
}

// victimEnd is how the victim, which has exited, ended: Killed by a
// signal, victimEnded by itself (its wait outlasted the run's), which no
// attempt made: a control that expects Killed must not pass on it.
func (s *Scratch) victimEnd() string {
	if signaled(s.victim.ProcessState) {
		return Killed
	}
	return victimEnded
}

// Close stops the victim and the listeners, removes the kernel objects
// the placeholders named and the scratch directories.
func (s *Scratch) Close() {
	if s.priority != nil {
		close(s.priority.stop)
		<-s.priority.done
	}
	if s.victim != nil {
		_ = s.victim.Process.Kill() // it may have died of the run
		<-s.exited
	}
	for _, c := range s.closers {
		_ = c.Close()
	}
	if s.shared != nil {
		s.shared.close()
	}
	s.removeObjects()
	_ = os.RemoveAll(s.Base) // links are removed, never followed
}
