//go:build linux

package confine

import "github.com/sabline/sabline/confine/linux"

// apply holds every thread to p with the Linux layers (linux.Apply).
func apply(p Policy, o ApplyOptions) (Result, error) {
	return linux.Apply(p, linux.ApplyOptions(o))
}
