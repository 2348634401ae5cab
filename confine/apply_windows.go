//go:build windows

package confine

import (
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/windows"
)

// apply holds the worker with what it can do to itself on Windows
// (windows.Apply), judging which guarded locations its container's ACEs
// reach; the job object and the AppContainer are the supervisor's
// (PrepareWorker).
func apply(p core.Policy, o ApplyOptions) (core.Result, error) {
	return windows.Apply(p, o.MaxMemoryMB, o.CarveOuts)
}
