package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// Every subcommand reads its command line the same way: a flag.FlagSet
// holds the flags it takes, and parseInterspersed reads them, before and
// after the positional arguments, with --name, -name, --name=value and
// --name value all accepted. A flag the command does not take, a flag
// without its value, or a value its flag refuses is E301 with the flag as
// it was typed; --help (or -h) asks for the command's own help, made from
// its flag set (help.go), which goes to standard output. The flag package
// only stores the definitions: its own parser, whose errors name a flag
// with one dash and print the whole usage, is not used.

// minMemoryMB is the least --max-memory-mb a run may have: the worker's Go
// runtime and the interpreter hold about 6 MB before the program's first
// statement, so a lower limit would end every run with E308.
const minMemoryMB = 16

// newFlagSet returns an empty flag set for the command name.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseInterspersed parses the flags of fs, which may come before and
// after the positional arguments; everything after a "--" is returned
// apart. The error is an E301 *codes.Error, or a *helpRequest (which is
// flag.ErrHelp) for --help.
// A value its flag refuses does not stop the reading: the rest of the
// command line is read, so that the program it names is known, and the
// first such refusal is returned as a *badValue with all the arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) (positional, rest []string, err error) {
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
			return nil, nil, &helpRequest{fs.Name()}
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
					placeholder(f))
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil && bad == nil {
			bad = &badValue{codes.Errorf(codes.E301, "%s %q: %s", typed, value, valueProblem(f, err))}
		}
	}
	return positional, nil, bad
}

// badValue is a value its flag refused, found while the whole command line
// was read (parseInterspersed).
type badValue struct{ err *codes.Error }

func (b *badValue) Error() string { return b.err.Error() }
func (b *badValue) Unwrap() error { return b.err }

// helpRequest is a --help (or -h) on the command line of the command whose
// flag set is named command: errors.Is(h, flag.ErrHelp) holds.
type helpRequest struct{ command string }

func (h *helpRequest) Error() string        { return flag.ErrHelp.Error() }
func (h *helpRequest) Is(target error) bool { return target == flag.ErrHelp }

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

// placeholder is the value a flag's usage string shows, from its type.
func placeholder(f *flag.Flag) string {
	if name, _ := flag.UnquoteUsage(f); name != "" {
		return strings.ToUpper(name)
	}
	return "VALUE"
}

// valueProblem says what is wrong with a flag's value. The values of
// this package say it themselves; the flag package's own (a bool given
// "maybe") answer "parse error".
func valueProblem(f *flag.Flag, err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) || err.Error() == "parse error" {
		return "not a " + placeholder(f)
	}
	return err.Error()
}

// parseFailed reports an error of parseInterspersed and returns the exit
// status: the command's own help on standard output for --help, E301
// otherwise.
func parseFailed(err error, stdout, stderr io.Writer) int {
	if h, ok := errors.AsType[*helpRequest](err); ok {
		return printHelp(stdout, stderr, h.command)
	}
	return report(stderr, err, "")
}

// noArgs is the command line of a command that takes no flags and no
// arguments: anything given is E301.
func noArgs(name string, args []string, stdout, stderr io.Writer) (int, bool) {
	positional, rest, err := parseInterspersed(newFlagSet(name), args)
	if err != nil {
		return parseFailed(err, stdout, stderr), false
	}
	if extra := append(positional, rest...); len(extra) > 0 {
		return report(stderr,
			codes.Errorf(codes.E301, "sabline %s takes no arguments, got %s", name,
				strings.Join(extra, " ")), ""), false
	}
	return 0, true
}

// durationFlag is a --timeout: a positive duration.
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(v string) error {
	t, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return errors.New("not a duration: write it as 10s, 2m or 1h30m")
	case t <= 0:
		return errors.New("want a duration above zero (leave the flag out for no limit)")
	}
	*d = durationFlag(t)
	return nil
}

// memoryFlag is a --max-memory-mb: a whole number of megabytes, at least
// minMemoryMB.
type memoryFlag int

func (m *memoryFlag) String() string { return strconv.Itoa(int(*m)) }

func (m *memoryFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return errors.New("not a whole number of megabytes")
	case n < minMemoryMB:
		return fmt.Errorf("want at least %d: the runtime itself needs about 6 MB before the program's "+
			"first statement", minMemoryMB)
	}
	*m = memoryFlag(n)
	return nil
}

// retentionFlag is a --keep-receipts: which receipts a server's journal
// keeps (receipt.ParseRetention). Left out, it is receipt.RetainAll, or
// receipt.RetainShipped with --receipts-url (retention).
type retentionFlag struct {
	r   receipt.Retention
	set bool
}

func (f *retentionFlag) String() string {
	if !f.set {
		return ""
	}
	return f.r.String()
}

func (f *retentionFlag) Set(v string) error {
	r, err := receipt.ParseRetention(v)
	if err != nil {
		return err
	}
	f.r, f.set = r, true
	return nil
}

// retention is the flag's retention for a server that ships its receipts
// (shipping) or not: when left out, every receipt is kept until shipped,
// and without a store to ship to, for good.
func (f *retentionFlag) retention(shipping bool) receipt.Retention {
	switch {
	case f.set:
		return f.r
	case shipping:
		return receipt.Retention{}
	}
	return receipt.Retention{All: true}
}
