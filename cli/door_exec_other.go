//go:build !unix

package cli

import "errors"

// execInPlace is errors.ErrUnsupported here: the system cannot make this
// process another program, so execDoor starts it as a child.
func execInPlace(path string, args, env []string) error { return errors.ErrUnsupported }
