package doorcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/sabline/sabline/internal/run"
)

// stopping is what a door says at the first signal that stops it, and
// halting at the second: command names the door.
const (
	stopping = "sabline %s: stopping: the runs in flight end as they would; " +
		"a second SIGINT or SIGTERM ends them now, each with its receipt\n"
	halting = "sabline %s: halting: the runs in flight end now (E307), each with its receipt\n"
)

// stopOnSignals is the context a door serves under, and how it stops:
// cancelled at the first of sigs (of those not ignored when the command
// started: run.Heeded), after which the door takes no more requests and
// its runs in flight end as they would; at the second, halt is called,
// which ends them now (door.Server.Halt). Each is said on stderr. stop
// cancels the context as a signal would; release, called once the door
// has stopped, lets the signals go.
func stopOnSignals(command string, stderr io.Writer, halt func(),
	sigs ...os.Signal) (ctx context.Context, stop, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, run.Heeded(sigs...)...)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			fmt.Fprintf(stderr, stopping, command)
			cancel()
		case <-ctx.Done(): // stopped another way: a signal still halts
		case <-done:
			return
		}
		select {
		case <-ch:
			fmt.Fprintf(stderr, halting, command)
			halt()
		case <-done:
		}
	}()
	return ctx, cancel, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}
