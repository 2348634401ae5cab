// Package brokenpipe keeps a reader that goes away from ending a Sabline
// process: after [AsError], a write to the process's standard output or
// standard error whose reader has closed its end fails with EPIPE, as a
// write to any other pipe does, and the process goes on to finish what
// it holds (a run's receipt, the worker's result).
//
// # Why
//
// On Unix, Go ends a process with SIGPIPE when a write to descriptor 1 or
// 2 finds the pipe's reader gone, unless the program asked os/signal for
// SIGPIPE; a write to any other descriptor fails with EPIPE and the
// signal is dropped (see [os/signal], "SIGPIPE"). `sabline PROGRAM | head`
// would end with head, before the run's receipt was written. Asking
// os/signal for SIGPIPE, which the commands did before, starts the
// runtime's signal goroutine on a thread of its own, and a second thread
// to catch signals: some 0.6 ms of every `sabline version` on this
// project's machine (bench/README.md, "A broken pipe without a signal
// thread"). A copy of the descriptor costs one system call.
//
// # What it does
//
// [AsError] replaces [os.Stdout] and [os.Stderr] with files on copies of
// descriptors 1 and 2 (numbered 3 or more, closed on exec): the same
// pipe, terminal or file, without the runtime's signal for a broken pipe.
// Descriptors 1 and 2 stay open as they were, so that a command started
// with them, or the process's own exec, gets the streams it would have.
// The files replaced stay reachable from this package: a file no longer
// referenced is closed by its finalizer, and descriptor 1 closed under a
// running process would be taken by its next open. A descriptor that is
// not open (a command started with `>&-`) is left as it is: no write to
// it reaches a pipe. Where no copy can be made (no descriptor number
// left), AsError asks os/signal for SIGPIPE instead, as before.
//
// Outside Unix, Go raises no signal for a broken pipe and AsError does
// nothing.
//
// Only a command's main calls it: it changes the process's standard
// files, which belong to whoever owns the process, never to a package a
// host embeds.
package brokenpipe
