package confine

import (
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/darwin"
	"github.com/sabline/sabline/confine/windows"
)

// The plans of the systems that docs/os-enforces.md names by these names.
// Each system's package builds its own; these only hand it on.

// DarwinProfile returns the text of the sandbox profile that holds a macOS
// worker to p (darwin.Profile): n are the needs' paths, home and cwd the
// worker's, all as the sandbox matches them.
func DarwinProfile(p core.Policy, n core.Needs, home, cwd string) (string, error) {
	return darwin.Profile(p, n, home, cwd)
}

// WindowsPlan is windows.Plan: the job object, token, integrity level and
// AppContainer a Windows run gets.
type WindowsPlan = windows.Plan

// WindowsPlanFor returns the Windows plan of p (windows.PlanFor), with
// fileCount counting the files beneath a grant and memoryMB the run's
// memory limit.
func WindowsPlanFor(p core.Policy, n core.Needs, fileCount func(path string) int, memoryMB int) WindowsPlan {
	return windows.PlanFor(p, n, fileCount, memoryMB)
}
