// Package cmdline is what the sabline command and the doors' command
// (cli/doorcmd, linked only into sabline-door) share: the reading of a
// command line, the flags' value types, the report of an error, the
// meaning of the confinement flags and the start of the store agent.
package cmdline

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// Every subcommand reads its command line the same way: a flag.FlagSet
// holds the flags it takes, and ParseInterspersed reads them, before and
// after the positional arguments, with --name, -name, --name=value and
// --name value all accepted. A flag the command does not take, a flag
// without its value, or a value its flag refuses is E301 with the flag as
// it was typed; --help (or -h) asks for the command's own help, made from
// its flag set, which goes to standard output. The flag package
// only stores the definitions: its own parser, whose errors name a flag
// with one dash and print the whole usage, is not used.

// MinMemoryMB is the least --max-memory-mb a run may have: the worker's Go
// runtime and the interpreter hold about 6 MB before the program's first
// statement, so a lower limit would end every run with E308.
const MinMemoryMB = 16

// HelpWidth is the width a command's help is wrapped to.
const HelpWidth = 78

// NewFlagSet returns an empty flag set for the command name.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// ParseInterspersed parses the flags of fs, which may come before and
// after the positional arguments; everything after a "--" is returned
// apart. The error is an E301 *codes.Error, or a *HelpRequest (which is
// flag.ErrHelp) for --help.
// A value its flag refuses does not stop the reading: the rest of the
// command line is read, so that the program it names is known, and the
// first such refusal is returned as a *BadValue with all the arguments.
func ParseInterspersed(fs *flag.FlagSet, args []string) (positional, rest []string, err error) {
	var bad error
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return positional, args[i+1:], bad
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name == "h" || name == "help" {
			return nil, nil, &HelpRequest{Command: fs.Name()}
		}
		f := fs.Lookup(name)
		if f == nil || name == "" || strings.HasPrefix(a, "---") {
			return nil, nil, codes.Errorf(codes.E301, "%s: %s takes no such flag (%s)", a, commandName(fs),
				flagList(fs))
		}
		typed := a
		if hasValue {
			typed, _, _ = strings.Cut(a, "=")
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 == len(args) {
				return nil, nil, codes.Errorf(codes.E301, "%s needs a value: %s %s", typed, typed,
					Placeholder(f))
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil && bad == nil {
			bad = &BadValue{Err: codes.Errorf(codes.E301, "%s %q: %s", typed, value, valueProblem(f, err))}
		}
	}
	return positional, nil, bad
}

// BadValue is a value its flag refused, found while the whole command line
// was read (ParseInterspersed).
type BadValue struct{ Err *codes.Error }

func (b *BadValue) Error() string { return b.Err.Error() }
func (b *BadValue) Unwrap() error { return b.Err }

// HelpRequest is a --help (or -h) on the command line of the command whose
// flag set is named command: errors.Is(h, flag.ErrHelp) holds.
type HelpRequest struct{ Command string }

func (h *HelpRequest) Error() string        { return flag.ErrHelp.Error() }
func (h *HelpRequest) Is(target error) bool { return target == flag.ErrHelp }

// commandName is how the usage names the command of fs.
func commandName(fs *flag.FlagSet) string {
	if fs.Name() == "sabline" {
		return "a run"
	}
	return "sabline " + fs.Name()
}

// flagList names the flags fs takes, or says it takes none.
func flagList(fs *flag.FlagSet) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	if len(names) == 0 {
		return "it takes none"
	}
	return "it takes " + strings.Join(names, ", ")
}

// Placeholder is the value a flag's usage string shows, from its type.
func Placeholder(f *flag.Flag) string {
	if name, _ := flag.UnquoteUsage(f); name != "" {
		return strings.ToUpper(name)
	}
	return "VALUE"
}

// valueProblem says what is wrong with a flag's value. The values of
// this package say it themselves; the flag package's own (a bool given
// "maybe", a number given "lots") answer "parse error", and are named by
// what they take, not by the placeholder of their usage ("not a N").
func valueProblem(f *flag.Flag, err error) string {
	if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		return "want true or false (the flag alone is true)"
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) || err.Error() == "parse error" {
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case int, int64, uint, uint64:
				return "not a whole number"
			}
		}
		return "not a " + Placeholder(f)
	}
	return err.Error()
}

// errNotAboveZero is a Duration's refusal of zero and below.
var errNotAboveZero = errors.New("want a duration above zero")

// Duration is a duration flag (--ship-every, a door's --timeout): a
// positive duration. Left out, the flag keeps its command's default,
// which is no limit only where Limit says so.
type Duration time.Duration

func (d *Duration) String() string { return time.Duration(*d).String() }

func (d *Duration) Set(v string) error {
	t, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return errors.New("not a duration: write it as 10s, 2m or 1h30m")
	case t <= 0:
		return errNotAboveZero
	}
	*d = Duration(t)
	return nil
}

// Limit is the --timeout of a run (sabline [run] PROGRAM.vel), which
// bounds nothing when left out: a Duration whose refusal of zero says so.
// Eval's (10 s), a replay's (the receipt's) and a door's (30 s) are
// Durations: left out, each keeps a bound.
type Limit Duration

func (l *Limit) String() string { return (*Duration)(l).String() }

func (l *Limit) Set(v string) error {
	err := (*Duration)(l).Set(v)
	if errors.Is(err, errNotAboveZero) {
		return fmt.Errorf("%w (leave the flag out for no limit)", err)
	}
	return err
}

// Descriptor is a --tool-fd: the number of a descriptor the caller
// opened, never below zero. Left out, it is -1: no descriptor.
type Descriptor int

func (d *Descriptor) String() string { return strconv.Itoa(int(*d)) }

func (d *Descriptor) Set(v string) error {
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return errors.New("not a descriptor: give the number of one the host opened")
	case n < 0:
		return errors.New("not a descriptor: a descriptor's number is 0 or more; leave the " +
			"flag out for no tool channel")
	}
	*d = Descriptor(n)
	return nil
}

// Memory is a --max-memory-mb: a whole number of megabytes, at least
// MinMemoryMB.
type Memory int

func (m *Memory) String() string { return strconv.Itoa(int(*m)) }

func (m *Memory) Set(v string) error {
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return errors.New("not a whole number of megabytes")
	case n < MinMemoryMB:
		return fmt.Errorf("want at least %d: the runtime itself needs about 6 MB before the program's "+
			"first statement", MinMemoryMB)
	case n > run.MaxMemoryMB:
		return fmt.Errorf("want at most %d (1 PiB)", run.MaxMemoryMB)
	}
	*m = Memory(n)
	return nil
}

// Retention is a --keep-receipts: which receipts a server's journal
// keeps (receipt.ParseRetention). Left out, it is receipt.RetainAll, or
// receipt.RetainShipped with --receipts-url (Of).
type Retention struct {
	r   receipt.Retention
	set bool
}

func (f *Retention) String() string {
	if !f.set {
		return ""
	}
	return f.r.String()
}

func (f *Retention) Set(v string) error {
	r, err := receipt.ParseRetention(v)
	if err != nil {
		return err
	}
	f.r, f.set = r, true
	return nil
}

// Of is the flag's retention for a server that ships its receipts
// (shipping) or not: when left out, every receipt is kept until shipped,
// and without a store to ship to, for good.
func (f *Retention) Of(shipping bool) receipt.Retention {
	switch {
	case f.set:
		return f.r
	case shipping:
		return receipt.Retention{}
	}
	return receipt.Retention{All: true}
}
