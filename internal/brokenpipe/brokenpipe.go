package brokenpipe

import (
	"os"
	"os/signal"
	"syscall"
)

// Ignore makes a write to this process's standard output or standard
// error whose reader has gone away fail with EPIPE, from now until the
// process ends, instead of ending the process with SIGPIPE, by ignoring
// the signal: one system call, and no thread. An ignored signal is
// inherited across exec, so only a process that starts no program but
// Sabline's own workers calls it: a Go program takes SIGPIPE back as it
// starts (TestInherited).
func Ignore() { signal.Ignore(syscall.SIGPIPE) }

// Catch does what Ignore does for a process that starts other programs:
// it asks os/signal for the signal, whose handler an exec resets to the
// default, so that the programs started find SIGPIPE as they would
// anywhere. It costs os/signal's threads, and a hand-off to one of them.
func Catch() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) }
