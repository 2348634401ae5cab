//go:build !(linux && (amd64 || arm64))

package run

import "os"

// followTerminal follows no terminal here (terminal_linux.go): a
// terminal's Ctrl-Z stops the supervisor and not its worker, which runs
// on, past the run's timeout, until the supervisor is continued (on
// macOS, and on Linux other than amd64 and arm64; Windows has no stopped
// jobs).
func followTerminal(*workerProc, chan os.Signal) (stop func()) { return func() {} }

// takeTerminal takes no signal here: there is none to follow.
func takeTerminal() chan os.Signal { return nil }
