package door

import (
	"io"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit"
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
	store, err := receipt.OpenStore(rc) // the pool's too: one store a directory in a process
	if err != nil {
		t.Fatal(err)
	}
	port, answered := testkit.Gate(t, func() { store.Journal().Close() }) // every append after fails
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
		Budget: budget.MustParse(root, "io,net:127.0.0.1:"+port), Receipts: rc, Stderr: io.Discard})
	reply, err := r.Run(t.Context(), RunRequest{Source: testkit.GatedSource, Args: []string{port},
		Allow: []string{"io,net:127.0.0.1:" + port}})
	if aerr := answered(); aerr != nil {
		t.Fatal(aerr)
	}
	if err != nil || reply.Status != receipt.StatusOK || !strings.Contains(reply.Stdout, "go") {
		t.Errorf("a run that ran, its receipt not finished: %+v, %v; want it answered, ok, with its output",
			reply, err)
	}
}
