//go:build !linux

package confine

// EnterNodevNamespace is Linux's: elsewhere it fails with ErrUnsupported,
// and the process goes on as it is.
func EnterNodevNamespace() error { return ErrUnsupported }
