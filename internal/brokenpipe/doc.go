// Package brokenpipe keeps a reader that goes away from ending a Sabline
// process that holds something to finish: after [Ignore], [Catch] or
// [Reopen], a write to the process's standard output or standard error
// whose reader has closed its end fails with EPIPE, as a write to any
// other pipe does, and the process goes on to finish a run's receipt,
// the worker's result, or a server's runs. [ReaderGone] tells such a
// failure from a write that lost its bytes with its reader still there
// (a full disk), which a run's output must not pass over quietly.
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
// signal to that thread and back: some 0.6 ms of a process's start on
// this project's machine (bench/README.md, "A broken pipe without a
// signal thread"). Ignoring it is one system call, but an ignored signal
// is inherited by the programs the process starts. Reopening os.Stdout
// and os.Stderr on descriptors of their own is two, and changes nothing
// the programs started inherit, but covers only writes through those two
// files. So:
//
//   - `sabline PROGRAM` and `sabline replay`, which start no program but
//     their worker, call [Ignore] first: a Go program takes SIGPIPE back
//     as it starts, whatever it inherited (TestInherited).
//   - The worker, whose host modules and fault injection start other
//     programs, calls [Reopen]: it writes a program's output through
//     os.Stdout, and its descriptor 2 becomes its crash file, a regular
//     file, before a program runs.
//   - `sabline eval`, whose confinement probe starts a sleeper of the
//     system's, and the doors (`serve`, `mcp`), which start the store
//     agent an operator may name, call [Catch]: those programs find
//     SIGPIPE at its default, and every writer of the process is covered.
//     They run long enough that its cost does not count.
//   - A command that only prints (`version`, `receipts`, `audit`, ...)
//     keeps Go's default and ends when its reader goes, as any Unix
//     filter does.
//
// The choice is a process's: the command line's code makes it (packages
// cli and cli/doorcmd, which a host's main reaches only by handing its
// process to the command line), and the worker's, never the packages a
// host embeds to run programs itself; a host that relays a run's output
// to its own standard output chooses for itself (docs/library.md).
// Outside Unix, Go raises no signal for a broken pipe, and neither call
// changes anything that matters.
package brokenpipe
