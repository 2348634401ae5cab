package lang

import (
	"sort"
	"sync"

	"go.starlark.net/starlark"
)

// Builder makes a fresh value of a host module for one ffi.module.
type Builder func() starlark.Value

// Registry holds the host modules ffi.module can reach. A host module is Go
// code that does its own I/O without the budget's checks, as a native
// extension does: granting it is granting what it does. What the OS policy
// then allows for it is the confine package's widening table, by name;
// a name the table does not list widens the policy to nothing enforced.
type Registry struct {
	mu   sync.RWMutex
	mods map[string]Builder
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{mods: map[string]Builder{}} }

// Register adds or replaces the module name.
func (r *Registry) Register(name string, b Builder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mods[name] = b
}

// Build returns a value of the module name, frozen: a builder may hand out
// one value to every run (math does), and a run that could change it could
// change what a later run in the same process sees.
func (r *Registry) Build(name string) (starlark.Value, bool) {
	r.mu.RLock()
	b, ok := r.mods[name]
	r.mu.RUnlock()
	if !ok {
		return nil, false
	}
	v := b()
	v.Freeze()
	return v, true
}

// Names lists the registered modules, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.mods))
	for n := range r.mods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// DefaultRegistry is the registry runs use unless a Config names another.
// It holds Sabline's own host modules (hostmods.go); an embedding program
// may Register more before it runs anything.
var DefaultRegistry = NewRegistry()

// RegisterModule adds a host module to DefaultRegistry.
func RegisterModule(name string, b Builder) { DefaultRegistry.Register(name, b) }
