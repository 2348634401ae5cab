package run

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
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
