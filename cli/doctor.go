package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/probe"
)

// doctorReport is what `sabline doctor --json` prints.
type doctorReport struct {
	Machine confine.Machine `json:"machine"`
	// Default is the level a run under the default (empty) budget gets
	// here, measured by running one in a confined worker.
	Default core.Result `json:"default_budget"`
	Advice  []string    `json:"advice"`
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
	probe, err := probe.Run(core.ModeDefault)
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E310, "doctor: %w", err), "")
	}
	rep := doctorReport{Machine: m, Default: probe.Confinement, Advice: m.Advice()}
	if rep.Advice == nil {
		rep.Advice = []string{}
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "system:        %s %s\n", m.OS, m.Kernel)
	if m.OS == string(confine.Linux) {
		ll := fmt.Sprintf("ABI %d", m.LandlockABI)
		if m.LandlockABI == 0 {
			ll = "not offered: " + m.LandlockNote
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
	fmt.Fprintf(stdout, "default budget: %s: %s [%s]\n", probe.Confinement.Level,
		probe.Confinement.Reason, strings.Join(probe.Confinement.Layers, ", "))
	for _, a := range rep.Advice {
		fmt.Fprintf(stdout, "advice:        %s\n", a)
	}
	return 0
}
