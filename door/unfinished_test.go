package door

import (
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// TestPoolRunnerAnswersARunWhoseReceiptWasNotFinished: a run that ran to
// its end, whose finished receipt could not be appended (the journal
// failed once the run's skeleton was in it; the pool returns E327 and says
// so on the server's log), is answered with what ran, not refused: a
// client told its run was refused sends it again, and it runs twice. The
// program waits on a loopback connection the test answers only once the
// journal is closed.
func TestPoolRunnerAnswersARunWhoseReceiptWasNotFinished(t *testing.T) {
	root := t.TempDir()
	rc := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
		Budget: budget.MustParse(root, "io,net:127.0.0.1:"+port), Receipts: rc, Stderr: io.Discard})
	store, err := receipt.OpenStore(rc) // the pool's, shared in the process
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() {
		c, err := ln.Accept() // the run is under way: its skeleton is kept
		if err == nil {
			defer c.Close()
			store.Journal().Close() // every append after it fails
			_, err = c.Write([]byte("go\n"))
		}
		answered <- err
	}()
	const src = `c = net.connect("127.0.0.1", int(ARGS[0]))
print(c.recv(3))
c.close()
`
	reply, err := r.Run(t.Context(), RunRequest{Source: src, Args: []string{port},
		Allow: []string{"io,net:127.0.0.1:" + port}})
	if aerr := <-answered; aerr != nil {
		t.Fatal(aerr)
	}
	if err != nil || reply.Status != receipt.StatusOK || !strings.Contains(reply.Stdout, "go") {
		t.Errorf("a run that ran, its receipt not finished: %+v, %v; want it answered, ok, with its output",
			reply, err)
	}
}
