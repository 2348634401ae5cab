//go:build linux

package confine

import (
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// apply holds every thread to p with the Linux layers (linux.Apply).
func apply(p core.Policy, o ApplyOptions) (core.Result, error) {
	return linux.Apply(p, linux.ApplyOptions(o))
}
