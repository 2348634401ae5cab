package run

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
)

// Sabline's locations and the register of them on this machine (package
// guard, "The register"): the runs directory joins it when it is made
// (runsDir), and every run's guard set holds what the register names
// (Guard, registered).

// registerWarnings is where a run's supervisor says what it could not
// read of the register; each message once per process.
var (
	registerWarnings io.Writer = os.Stderr
	warnedMu         sync.Mutex
	warned           = map[string]bool{}
)

// warnOnce writes msg to registerWarnings, once per process.
func warnOnce(msg string) {
	warnedMu.Lock()
	defer warnedMu.Unlock()
	if warned[msg] {
		return
	}
	warned[msg] = true
	fmt.Fprintf(registerWarnings, "sabline: %s\n", codes.TerminalSafe(msg))
}

// registered are the locations the register names, to be guarded as
// Sabline's own, and the register's directory itself when it exists
// (guard.RegisteredLocations); and those of them another user's entry
// named, with that user's uid (guard.Inputs.Owned). A register that
// cannot be read, or holds more entries than one read takes, is said on
// standard error, once: the run then guards its own locations and what
// was read.
func registered() ([]string, map[string]int) {
	paths, r, err := guard.RegisteredLocations()
	if err != nil {
		warnOnce(fmt.Sprintf("%v: this run guards only its own locations", err))
	} else if w := r.Warning(); w != "" {
		warnOnce(w)
	}
	return paths, r.Owners
}
