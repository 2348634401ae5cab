package cli

import (
	"slices"
	"strings"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/run"
)

// registered refuses a budget that grants a host module this binary does
// not have: ffi:jsno is a typo, and granting a name the confinement table
// does not list would turn the operating system layer off for nothing.
// The registry is the running binary's, so an embedding program's own
// modules (lang.RegisterModule before cli.Main) count.
func registered(b budget.Budget) error {
	names := lang.DefaultRegistry.Names()
	for _, it := range b.Items {
		if it.Kind == budget.FFI && it.Module != "" && !slices.Contains(names, it.Module) {
			e := codes.Errorf(codes.E301, "--allow: %s: no host module %q is registered in this build; the registered ones are %s",
				it, it.Module, strings.Join(names, ", "))
			e.Do = "Grant a module `sabline modules` lists (check the spelling), or register it in the embedding program (lang.RegisterModule). Nothing ran."
			return e
		}
	}
	return nil
}

// requireHeld refuses, before a worker starts, a run that asks for a
// confinement level its budget cannot have anywhere: a granted module that
// widens the policy to nothing enforced makes every run of the budget level
// none (confine.Apply applies nothing and says why), which no
// --require-confinement accepts. The worker would refuse it too, after
// saying that the layer is off; refused here, the reason is said once. It
// returns what the run would have been held at, for the receipt.
func requireHeld(b budget.Budget, mode string, require confine.Level) (confine.Result, error) {
	if require == "" || mode == run.ConfineOff {
		return confine.Result{}, nil
	}
	p := confine.OSPolicy(b, confine.Options{Strict: mode == run.ConfineStrict})
	if p.Enforced {
		return confine.Result{}, nil
	}
	held := confine.Result{Level: confine.None, Reason: p.OffReason(), Layers: []string{}}
	return held, codes.Errorf(codes.E326, "--require-confinement %s: this run's confinement is %s (%s); it was refused before its first statement",
		require, held.Level, held.Reason)
}
