package lang

import (
	"testing"

	"go.starlark.net/starlark"
)

// TestRegistryFreezes: a host module's value is frozen when a run gets
// it, so a builder that hands one value to every run (math does) cannot
// carry one run's change to the next; a builder's fresh values are frozen
// too.
func TestRegistryFreezes(t *testing.T) {
	shared := starlark.NewList(nil)
	r := NewRegistry()
	r.Register("shared", func() starlark.Value { return shared })
	v, ok := r.Build("shared")
	if !ok {
		t.Fatal("the registered module was not built")
	}
	if err := v.(*starlark.List).Append(starlark.MakeInt(1)); err == nil {
		t.Error("a run could append to a host module's shared value")
	}
	if shared.Len() != 0 {
		t.Errorf("the shared value holds %d items after a run, want none", shared.Len())
	}
	// The control: the same list, not handed out by the registry, takes it.
	fresh := starlark.NewList(nil)
	if err := fresh.Append(starlark.MakeInt(1)); err != nil {
		t.Errorf("an unfrozen list refused an append: %v", err)
	}
}
