//go:build darwin

package confine

import "github.com/sabline/sabline/confine/darwin"

// apply holds the process to p with the sandbox profile (darwin.Apply).
func apply(p Policy, o ApplyOptions) (Result, error) {
	return darwin.Apply(p, o.TempDir, o.MaxMemoryMB)
}
