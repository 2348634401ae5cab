//go:build unix

package testkit

import (
	"os"
	"os/signal"
	"syscall"
)

// TakeIgnoredStops makes SIGHUP and SIGINT, where the test binary was
// started ignoring them (go test under nohup(1), or as a script's
// background job), signals its children take by default again: a child
// inherits an ignored signal, and a sabline started ignoring one keeps
// ignoring it (run.Heeded), so a test that stops a run by its hangup or
// its Ctrl-C, or whose control is a run that takes them, failed under
// nohup. The test binary relays them to a channel no one reads: it goes
// on through them, as it would have ignoring them, and the kernel starts
// its children with each at its default, as it does a handled signal.
// Called by the TestMain of a package whose tests send them.
func TakeIgnoredStops() {
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(sig) {
			signal.Notify(make(chan os.Signal, 1), sig)
		}
	}
}
