// Package brokenpipe keeps a reader that goes away from ending a Sabline
// process that holds something to finish: after [AsError] (or
// [AsErrorInWorker]), a write to the process's standard output or
// standard error whose reader has closed its end fails with EPIPE, as a
// write to any other pipe does, and the process goes on to finish a
// run's receipt, the worker's result, or a server's runs.
//
// # Why
//
// On Unix, Go ends a process with SIGPIPE when a write to descriptor 1
// or 2 finds the pipe's reader gone, unless the program ignores the
// signal or asked os/signal for it (see [os/signal], "SIGPIPE"):
// `sabline PROGRAM | head` would end with head, before the run's receipt
// was written. Either choice covers every writer, a file on descriptor 1
// or 2 that a package took before main among them (the log package's
// logger, a warning's writer).
//
// # Which, and who calls it
//
// Asking os/signal for a signal starts its goroutine, which waits on a
// thread of its own, and a thread to catch signals with, and hands each
// signal to that thread: some 0.6 ms of a process's start on this
// project's machine (bench/README.md, "A broken pipe without a signal
// thread"). Ignoring it is one system call, but an ignored signal is
// inherited by the programs the process starts. So:
//
//   - The commands that hold something to finish (`sabline PROGRAM`,
//     `replay`, `eval`, `serve`, `mcp`) call [AsError] first. They start
//     no program but Sabline's own (workers, `sabline-door`, the store
//     agent), and Go takes SIGPIPE back as a program starts, whatever it
//     inherited (TestInherited).
//   - The worker, whose host modules start other programs, calls
//     [AsErrorInWorker]: those programs find SIGPIPE at its default.
//   - A command that only prints (`version`, `receipts`, `audit`, ...)
//     keeps Go's default and ends when its reader goes, as any Unix
//     filter does.
//
// The choice is a process's, so a command's code makes it, never a
// package a host embeds: a host that relays a run's output to its own
// standard output chooses for itself (docs/library.md). Outside Unix, Go
// raises no signal for a broken pipe, and both do nothing that matters.
package brokenpipe
