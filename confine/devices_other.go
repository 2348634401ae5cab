//go:build !linux

package confine

import "github.com/sabline/sabline/confine/core"

// EnterNodevNamespace is Linux's: elsewhere it fails with ErrUnsupported,
// and the process goes on as it is.
func EnterNodevNamespace() error { return core.ErrUnsupported }
