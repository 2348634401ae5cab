package receipt

import (
	"slices"
	"strings"

	"github.com/sabline/sabline/codes"
)

// Durability is how a run's receipt is kept before the run's result is
// returned: what a power cut just after the return can lose. A receipt
// says the one it was kept with (RunParameters.Durability); a crash of
// the process loses none of them once the result is returned.
type Durability string

// The durabilities. The zero value is Flush.
const (
	// Flush: the finished receipt is on the device (fdatasync) when the
	// result is returned. Runs ending together share one flush; a run
	// ending alone waits for one, with no window before it.
	Flush Durability = "flush"
	// Background: the result is returned once the receipt is written;
	// it is on the device within the journal's commit interval
	// (journal.DefaultCommitInterval) plus one flush, the window a power
	// cut can lose it in, while the process lives: the flush is the
	// store's committer's, and a process that ends within the window
	// leaves the receipt to the kernel's writeback, as None does, unless
	// it calls the store's Sync (OpenStore) first, as a pool's Close does.
	Background Durability = "background"
	// None: the result is returned once the receipt is written; Sabline
	// never flushes it for the run, and it reaches the device when the
	// kernel writes it back (on Linux within about 30 s, by default) or
	// with a flush another run asks for. For tests and runs that matter
	// to no one once ended.
	None Durability = "none"
)

// Durabilities are the durabilities, the default first.
var Durabilities = []Durability{Flush, Background, None}

// durabilityWanted is what a malformed durability is told to give.
func durabilityWanted() string {
	words := make([]string, len(Durabilities))
	for i, d := range Durabilities {
		words[i] = string(d)
	}
	return "want one of " + strings.Join(words, ", ")
}

// ParseDurability reads a durability as the setting what (a flag, an
// option) gives it; "" is Flush. Any other word is E301, naming what.
func ParseDurability(what, s string) (Durability, error) {
	if s == "" {
		return Flush, nil
	}
	for _, d := range Durabilities {
		if string(d) == s {
			return d, nil
		}
	}
	return "", codes.Errorf(codes.E301, "%s %q: %s", what, s, durabilityWanted())
}

// orFlush is d, or Flush for the zero value and for a word of no
// Sabline's (a refused run's receipt asked for one): the receipt is kept
// with the default, and says so.
func (d Durability) orFlush() Durability {
	if !slices.Contains(Durabilities, d) {
		return Flush
	}
	return d
}
