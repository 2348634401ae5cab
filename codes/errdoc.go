package codes

import (
	"bytes"
	"fmt"
	"strings"
)

//go:generate go run ./internal/generrors ../docs/errors.md

// ErrorsMarkdown renders docs/errors.md from Codes: every code, its exit
// status and what to do. A test fails when the committed file differs.
func ErrorsMarkdown() []byte {
	var b bytes.Buffer
	b.WriteString(`# Error codes

Every error a run can end with has a stable code. A code is never reused for
another meaning. The command prints the code, the message, the program
position when there is one (and, for an error inside a function, the call
stack across the program's files, innermost first), what to do, and the
path of the run's receipt; the receipt's ` + "`outcome`" + ` records the same code,
message, position and ` + "`stack`" + `, within bounds whatever the program did: a
message is kept to 8 KiB and a position or a frame to 1 KiB, and a stack
deeper than 32 frames keeps the innermost 24 and the outermost 7, with a
line between that counts the calls left out. The command prints them
within the same bounds, a refusal that left no receipt too (a message
quoting a command line's item or a receipt file's path of megabytes ends
` + "`... (N bytes more)`" + `). A message can quote the
program's own text (a path, a host, a value it raised): every control
character in it is printed escaped (` + "`\\x1b`" + `, ` + "`\\r`" + `, ` + "`\\u202e`" + `), so
that nothing a program chose reaches the terminal raw. The program's own
standard output is not escaped, nor what a program granted ` + "`ffi`" + ` writes on
its worker's standard error, which a command-line run relays as it is:
both are the program's output.

This file is generated from ` + "`codes.Codes`" + ` by ` + "`go generate ./codes`" + `;
` + "`go test ./codes`" + ` fails when the two differ.

| code | what happened | exit status | what to do |
|---|---|---|---|
`)
	for _, c := range Codes {
		exit := fmt.Sprint(c.Exit)
		if c.Code == E309 {
			exit = "128+N (N the signal)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Code, c.Title, exit,
			strings.ReplaceAll(c.Do, "|", `\|`))
	}
	b.WriteString(`
## Exit statuses

| status | meaning |
|---|---|
| 0 | the program ran to its end |
| 1 | the program failed, or was refused an effect |
| 2 | the command line was wrong (a malformed grant, flag or ` + "`SABLINE_FAULT_INJECT`" + `); nothing ran |
| 3 | the run was refused before its first statement by ` + "`--require-confinement`" + ` |
| 4 | the run ran, but its reserved receipt could not be finished (E327) |
| 124 | the run passed ` + "`--timeout`" + ` and was stopped |
| 125 | the run passed ` + "`--max-memory-mb`" + ` |
| 126 | the worker crashed or ended without a result |
| 128+N | the worker was killed by signal N (137 for ` + "`kill -9`" + `) |

## Receipts of refusals

A run that names a program but cannot start (a malformed ` + "`--allow`" + ` item, a
malformed ` + "`SABLINE_FAULT_INJECT`" + `, flags that contradict each other, a program
file that cannot be read, a register of the machine it cannot use, E331)
still leaves a receipt, with ` + "`outcome.status`" + ` ` + "`usage`" + `, the code, and the
` + "`--allow`" + ` text as it was given: a run that never started is accounted
for like any other. A command line whose flags
cannot be read at all, or that names no program, leaves none: there is no
run to account for. A worker that is killed or crashes leaves a receipt
too, written by the supervisor.

## Every run that starts has its receipt first

Before the worker starts, the supervisor makes the receipts directory and
reserves the run's receipt in it: a file of ` + "`ReceiptReserve`" + ` bytes (64 KiB)
whose outcome is ` + "`unfinished`" + ` (E327). If that fails, nothing runs: E317,
exit 2, and the program's effects never happen; where it failed for want of
room (a file system with no space or no inodes left, a quota used up), what
to do says so, and to free room there or name another directory. When the run ends the
receipt is finished in place of the reservation; on a file system the run
filled meanwhile it is written into the reserved space. A receipt that still
says ` + "`unfinished`" + ` belongs to a run still in flight (in this process or
another beside it on the directory), or one whose supervisor was killed or
could not write: the program did run. What its worker applied is not recorded, and
its confinement says so ("not known", level ` + "`none`" + `, which says nothing of
the run; ` + "`sabline receipts list`" + ` shows its level as ` + "`-`" + `), never that the
run ended before its policy was applied. The receipts directory, and the directories the
supervisor made for it, are out of reach of every broad grant.

A worker's own crash report (a Go runtime fatal error, a signal it did not
handle) never reaches the terminal: the supervisor prints one line and keeps
the report's first 64 KiB beside the receipt, which names it
(` + "`crash_report`" + `).

## A program read from a pipe

` + "`cat prog.vel | sabline /dev/stdin`" + ` and ` + "`sabline <(...)`" + ` run the bytes the
supervisor read, once (at most 16 MiB); the receipt's digest is theirs. Such
a program has no directory: its ` + "`load()`" + ` statements resolve in a private
directory that holds nothing else, so every load fails (E306). A program
that loads files is run from a file. A regular file is read once too, and
the worker refuses (E316) to run it if its bytes changed since. A named
pipe waits for a writer, as ` + "`cat`" + ` would; the wait is held to ` + "`--timeout`" + `
(E307) and to Ctrl-C or another stopping signal (E309), each with its
receipt, so a program path that is a pipe no one writes does not hold the
command for ever.

## The fault-injection hook

` + "`SABLINE_FAULT_INJECT`" + ` is read from the operator's environment, never from
a program. It is a list of ` + "`OP=TARGET`" + ` separated by ` + "`;`" + `:

| operation | what the worker attempts |
|---|---|
| ` + "`read=PATH`" + ` | open PATH and read a byte |
| ` + "`write=PATH`" + ` | create PATH and write a line to it |
| ` + "`connect=HOST:PORT`" + ` | open a TCP connection and write a line |
| ` + "`exec=PATH`" + ` | start PATH with no arguments and wait for it |
| ` + "`signal=PID[:SIG]`" + ` | send SIG (TERM unless given; INT, HUP, KILL, USR1, USR2, 0) to PID |

The worker attempts each after the operating-system policy is applied and
before the program's first statement, and records each in the receipt's
` + "`fault_injection`" + `: ` + "`went-through`" + `, ` + "`refused`" + ` (a confinement layer
refused it: the errno and the layers are given) or ` + "`failed`" + ` (it failed for its
own reasons). If any was refused, the run ends with E319 and the program does
not run. A malformed value is E311.
`)
	return b.Bytes()
}
