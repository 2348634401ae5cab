package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/probe"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// doctorReport is what `sabline doctor --json` prints.
type doctorReport struct {
	Machine confine.Machine `json:"machine"`
	// Default is the level a run under the default (empty) budget gets
	// here, measured by running one in a confined worker, under a default
	// run's memory limit: its gap of core.LayerMemory says what holds
	// that limit here.
	Default core.Result `json:"default_budget"`
	// Register is what a run reads of the register of this machine.
	Register registerState `json:"register"`
	Advice   []string      `json:"advice"`
}

// registerState is what a run built now would read of the register of
// Sabline's locations on this machine (guard.ReadRegister): where it is,
// the locations it guards, and the entries it passes over.
type registerState struct {
	Dir string `json:"dir"`
	// Guarded counts the locations a run guards from it.
	Guarded int `json:"guarded"`
	// Missing counts the entries naming a path that does not exist now,
	// which the next Join of their user, or root's, removes.
	Missing int `json:"missing"`
	// Refused are the entries passed over, each with why.
	Refused []guard.RefusedEntry `json:"refused"`
	// Unread counts the entries past the read's bound: not guarded. With
	// Unlisted, it is a least count.
	Unread int `json:"unread"`
	// Unlisted says the register held more names than a read lists: the
	// entries past them, other users' and the old ones at the register's
	// top (this user's and root's among them perhaps, not those in their
	// own subdirectories, read first), were neither read nor counted.
	Unlisted bool `json:"unlisted"`
	// Error is why the register cannot be used, "" when it can.
	Error string `json:"error,omitempty"`
}

// String is the register's state in one line.
func (r registerState) String() string {
	if r.Error != "" {
		return r.Dir + ": not read: " + r.Error
	}
	atLeast := ""
	if r.Unlisted {
		atLeast = "at least "
	}
	return fmt.Sprintf("%s: %d locations guarded; %d entries naming nothing now, %d refused, %s%d "+
		"not read", r.Dir, r.Guarded, r.Missing, len(r.Refused), atLeast, r.Unread)
}

// readRegister is the register's state now, and what its operator should
// do about it, if anything.
func readRegister() (registerState, []string) {
	dir, err := guard.RegisterDir()
	st := registerState{Dir: dir, Refused: []guard.RefusedEntry{}}
	var r guard.Registered
	if err == nil {
		r, err = guard.ReadRegister(dir)
	}
	if err != nil {
		st.Error = err.Error()
		return st, []string{st.Error}
	}
	st.Guarded, st.Missing, st.Unread, st.Unlisted = len(r.Paths), r.Missing, r.Unread, r.Unlisted
	st.Refused = append(st.Refused, r.Refused...)
	if w := r.Warning(); w != "" {
		return st, []string{w}
	}
	return st, nil
}

// receiptsAdvice is what to do about the default receipts directory
// (receipt.DefaultDir: SABLINE_RECEIPTS, else the user's state
// directory), none when nothing: another user's is refused, and one
// others may write in loses receipts to them (receipt.DirAdvice).
func receiptsAdvice() []string {
	dir, err := receipt.DefaultDir()
	if err != nil {
		return nil
	}
	if a := receipt.DirAdvice(dir); a != "" {
		return []string{a}
	}
	return nil
}

// doctorFlagSet is the flag set of sabline doctor, and where --json goes.
func doctorFlagSet() (*flag.FlagSet, *bool) {
	fs := cmdline.NewFlagSet("doctor")
	return fs, fs.Bool("json", false, "print JSON")
}

// doctorCmd: sabline doctor [--json].
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	fs, asJSON := doctorFlagSet()
	positional, rest, err := cmdline.ParseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	if extra := append(positional, rest...); len(extra) > 0 {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "sabline doctor takes no arguments, got %s",
				strings.Join(extra, " ")), "")
	}
	m := confine.Probe()
	probe, err := probe.Run(core.ModeDefault, defaultRunMemoryMB)
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E310, "doctor: %w", err), "")
	}
	reg, regAdvice := readRegister()
	rep := doctorReport{Machine: m, Default: probe.Confinement, Register: reg,
		Advice: slices.Concat(m.Advice(), heldLess(probe.Confinement), regAdvice,
			receiptsAdvice())}
	if rep.Advice == nil {
		rep.Advice = []string{}
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "system:        %s %s\n", m.OS, m.Kernel)
	if m.OS == string(confine.Linux) {
		ll := fmt.Sprintf("ABI %d", m.LandlockABI)
		switch {
		case m.LandlockABI == 0:
			ll = "not offered: " + m.LandlockNote
		case m.LandlockNote != "": // taken at a lower ABI than the kernel's: why
			ll += ": " + m.LandlockNote
		}
		fmt.Fprintf(stdout, "landlock:      %s\n", ll)
		for _, o := range confine.LandlockOffers(m.LandlockABI) {
			fmt.Fprintf(stdout, "               %s\n", o)
		}
		sc := "seccomp-bpf filters, installed on every thread with TSYNC"
		if !m.Seccomp {
			sc = "not offered: " + m.SeccompNote
		}
		fmt.Fprintf(stdout, "seccomp:       %s\n", sc)
		fmt.Fprintf(stdout, "this process:  seccomp mode %d, no_new_privs %v\n", m.SeccompMode,
			m.NoNewPrivs)
	}
	// The memory limit's holders on a line of their own: the rest is what
	// the budget's limits get.
	c := probe.Confinement
	limits := c.Except(core.LayerMemory)
	fmt.Fprintf(stdout, "default budget: %s: %s [%s]\n", limits.Level, limits.Reason,
		strings.Join(limits.Layers, ", "))
	for _, g := range c.Gaps {
		if g.Layer == core.LayerMemory {
			fmt.Fprintf(stdout, "memory limit:  %s\n", g.Text)
		}
	}
	fmt.Fprintf(stdout, "register:      %s\n", reg)
	for _, a := range rep.Advice {
		fmt.Fprintf(stdout, "advice:        %s\n", a)
	}
	return 0
}

// heldLess is doctor's advice where a run that asks for no level is
// refused here: got, the probe's run under the default budget (which asks
// for level none), was held below what this machine holds that budget at
// (run.Required), as a layer that fails to install leaves it.
func heldLess(got core.Result) []string {
	level, layers, expected := run.Required("", core.ModeDefault,
		core.OSPolicy(budget.Budget{}, core.Options{}))
	if !expected || got.HoldsAsExpected(level, layers) {
		return nil
	}
	return []string{fmt.Sprintf(heldLessAdvice, level, core.LayersText(layers), got.Level,
		core.LayersText(got.Layers))}
}

// heldLessAdvice is heldLess's advice.
const heldLessAdvice = "every run that asks for no level is refused here (E326): this machine " +
	"holds such a run at %s with %s, and a worker here got %s with %s (default budget says " +
	"why: a layer failed to install); run where it installs, or ask for less " +
	"(--require-confinement partial or none)"
