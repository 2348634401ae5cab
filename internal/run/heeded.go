package run

import (
	"os"
	"os/signal"
	"slices"
)

// Heeded is sigs less those this process ignores, the signals it takes
// to stop: nohup(1) starts a command ignoring SIGHUP, and a shell without
// job control starts a background command ignoring SIGINT, each so that
// the terminal's hangup or Ctrl-C does not end it. Go keeps an inherited
// SIGHUP or SIGINT ignored until os/signal is asked for it, and stops
// ignoring it then, for good; so every taker of these signals asks
// through Heeded. Go does not keep SIGTERM or SIGQUIT ignored, so a list
// holding SIGTERM is never emptied (signal.Notify given no signal would
// relay every one).
func Heeded(sigs ...os.Signal) []os.Signal {
	return slices.DeleteFunc(slices.Clone(sigs), signal.Ignored)
}
