//go:build !linux

package testkit

import (
	"errors"
	"os"
)

// errNoLandlock is StackLandlock's error where there is no Landlock.
var errNoLandlock = errors.New("Landlock domains are Linux's")

// StackLandlock fails: Landlock domains are Linux's.
func StackLandlock() error { return errNoLandlock }

// StackedExec fails where StackedExecEnv is set, and is nil otherwise:
// Landlock domains are Linux's.
func StackedExec() error {
	if os.Getenv(StackedExecEnv) == "" {
		return nil
	}
	return errNoLandlock
}
