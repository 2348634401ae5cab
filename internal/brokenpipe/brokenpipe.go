package brokenpipe

import (
	"os"
	"os/signal"
	"syscall"
)

// AsError makes a write to this process's standard output or standard
// error whose reader has gone away fail with EPIPE, from now until the
// process ends, instead of ending the process with SIGPIPE. It ignores
// the signal: one system call, and no thread. An ignored signal is
// inherited across exec, so only a process that starts no program but
// Sabline's own calls it: a Go program takes SIGPIPE back as it starts.
// A command that holds something to finish calls it first.
func AsError() { signal.Ignore(syscall.SIGPIPE) }

// AsErrorInWorker is AsError for the worker, whose host modules start
// other programs, which must find SIGPIPE at its default: it asks
// os/signal for the signal, whose handler an exec resets to the default.
// It costs os/signal's threads, which the worker runs for its stop
// signal anyway.
func AsErrorInWorker() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) }
