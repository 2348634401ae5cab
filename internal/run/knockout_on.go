//go:build sabline_knockout

package run

import (
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
)

// The knock-out build's side of knockout_off.go: every budget is
// admitted, and the one-layer switch (linux.LayersOnlyEnv) and the
// Landlock ABI switch (linux.LandlockABIEnv) reach the worker, where
// confine reads them.

func admits(*guard.Set, budget.Budget, func(string) string) error { return nil }

func narrowsOnto(*guard.Set, budget.Budget, budget.Budget) error { return nil }

func knockoutPasses(name string) bool {
	return name == linux.LayersOnlyEnv || name == linux.LandlockABIEnv
}
