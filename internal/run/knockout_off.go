//go:build !sabline_knockout

package run

import (
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/guard"
)

// What the knock-out build (-tags sabline_knockout, program.Knockout)
// switches off in the supervisor, all in this pair of files: the refusal
// of a budget that names a guarded location, before anything runs, and
// the one-layer switch kept out of the worker's environment. Its
// twin, knockout_on.go, admits every budget and lets the switch through,
// so that only the kernel holds the run.

// admits refuses a budget with an item that names a location no grant
// reaches, as written or as resolve resolves it (guard.Set.Admit).
func admits(g *guard.Set, b budget.Budget, resolve func(string) string) error {
	return g.Admit(b, resolve)
}

// narrowsOnto refuses a budget that narrows ceiling onto a guarded
// location it does not name (guard.Set.Narrows).
func narrowsOnto(g *guard.Set, b, ceiling budget.Budget) error {
	return g.Narrows(b, ceiling, resolve)
}

// knockoutPasses reports whether the operator's variable name reaches the
// worker as the knock-out build's switch: never in this build.
func knockoutPasses(string) bool { return false }
