package cmdline

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
)

// List collects the values of a repeatable flag (--allow, say).
type List []string

func (a *List) String() string     { return strings.Join(*a, ",") }
func (a *List) Set(v string) error { *a = append(*a, v); return nil }

// noConfineWithConfine is the E301 of --no-confine given with a flag that
// asks for confinement.
const noConfineWithConfine = "--no-confine asks for no confinement, and --confine or " +
	"--require-confinement asks for some: give one or the other"

// Mode checks the confinement flags together and returns the run's mode
// and required level. Asking for confinement and --no-confine at once is a
// usage error.
func Mode(confine string, noConfine bool, require string) (core.Mode, core.Level, error) {
	mode, err := ParseConfine(confine)
	if err != nil {
		return "", "", err
	}
	var req core.Level
	if require != "" {
		l, err := core.ParseLevel(require)
		if err != nil {
			return "", "", codes.Errorf(codes.E301,
				"--require-confinement %q: want full, partial or none", require)
		}
		req = l
	}
	if noConfine {
		if mode == core.ModeStrict || req.Rank() > core.None.Rank() {
			return "", "", codes.Errorf(codes.E301, noConfineWithConfine)
		}
		mode = core.ModeOff
	}
	return mode, req, nil
}

// ParseConfine reads a --confine value: "" or "default", or "strict".
func ParseConfine(v string) (core.Mode, error) {
	switch v {
	case "", "default":
		return core.ModeDefault, nil
	case "strict":
		return core.ModeStrict, nil
	}
	return "", codes.Errorf(codes.E301, "--confine %q: the only value is strict", v)
}

// Report prints an error the way every sabline command does: the code and
// message, the position (with the call stack, innermost first, when the
// error happened inside a function), what to do, and the receipt. Every
// part goes through codes.TerminalSafe, since a message can quote the program's
// own text, and is kept to the bounds a receipt keeps it to
// (codes.Error.Bounded), since it can quote text of any length (a
// command line's item, a receipt file's path). It returns the exit status
// the code carries.
func Report(w io.Writer, err error, receipt string) int {
	e := &codes.Error{Code: codes.E301, Msg: err.Error()}
	errors.As(err, &e)
	e = e.Bounded()
	fmt.Fprintf(w, "sabline: %s: %s\n", e.Code, codes.TerminalSafe(e.Msg))
	switch {
	case len(e.Stack) > 1:
		fmt.Fprintf(w, "  at %s\n", codes.TerminalSafe(e.Stack[0]))
		for _, fr := range e.Stack[1:] {
			if codes.IsStackGap(fr) {
				fmt.Fprintf(w, "  %s\n", fr)
				continue
			}
			fmt.Fprintf(w, "  called from %s\n", codes.TerminalSafe(fr))
		}
	case e.Pos != "":
		fmt.Fprintf(w, "  at %s\n", codes.TerminalSafe(e.Pos))
	}
	if hint := e.Hint(); hint != "" {
		fmt.Fprintf(w, "  what to do: %s\n", codes.TerminalSafe(hint))
	}
	if receipt != "" {
		fmt.Fprintf(w, "  receipt: %s\n", codes.TerminalSafe(receipt))
	}
	info, ok := codes.Info(e.Code)
	if !ok {
		return codes.ExitUsage
	}
	return info.Exit
}
