//go:build !unix

package testkit

import "errors"

// Mkfifo makes a named pipe at path: not on this system.
func Mkfifo(string) error { return errors.ErrUnsupported }
