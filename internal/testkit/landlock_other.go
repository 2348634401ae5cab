//go:build !linux

package testkit

import (
	"errors"
	"os"
)

// errNoLandlock is StackedExec's error where there is no Landlock.
var errNoLandlock = errors.New("Landlock domains are Linux's")

// StackedExec fails where StackedExecEnv is set, and is nil otherwise:
// Landlock domains are Linux's.
func StackedExec() error {
	if os.Getenv(StackedExecEnv) == "" {
		return nil
	}
	return errNoLandlock
}
