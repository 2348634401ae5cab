package doorcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sabline/sabline/internal/run"
)

// stopping is what a door says at the first signal that stops it, and
// halting at the second: command names the door.
const (
	stopping = "sabline %s: stopping: the runs in flight end as they would; " +
		"a second %s ends them now, each with its receipt\n"
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
	heeded := run.Heeded(sigs...)
	signal.Notify(ch, heeded...)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			fmt.Fprintf(stderr, stopping, command, signalNames(heeded))
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

// signalNames names sigs as a shell does, "SIGINT, SIGTERM or SIGHUP".
func signalNames(sigs []os.Signal) string {
	var names []string
	for _, s := range sigs {
		switch s {
		case os.Interrupt:
			names = append(names, "SIGINT")
		case syscall.SIGTERM:
			names = append(names, "SIGTERM")
		case syscall.SIGHUP:
			names = append(names, "SIGHUP")
		default:
			names = append(names, s.String())
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
