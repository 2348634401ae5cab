package testscripts

import (
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/proc"
)

// cmdKillWorker: killworker
//
// sends SIGKILL to the worker of the one sabline the script started in
// the background: the child process of that sabline whose first argument
// is the hidden worker argument. It waits up to ten seconds for the worker
// to appear and signals nothing else.
func cmdKillWorker(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: killworker")
	}
	bg := ts.BackgroundCmds()
	if len(bg) != 1 {
		ts.Fatalf("killworker: want one background command, have %d", len(bg))
	}
	supervisor := bg[0].Process.Pid
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pid, ok := proc.Worker(supervisor); ok {
			ts.Check(unix.Kill(pid, unix.SIGKILL))
			return
		}
	}
	ts.Fatalf("killworker: no worker of process %d appeared", supervisor)
}
