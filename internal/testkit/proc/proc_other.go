//go:build !linux

// Package proc finds a supervisor's workers among the processes of the
// machine, and reads what a process has cost, for the checks and
// benchmarks that look at a running worker from outside.
package proc

import "errors"

// Worker finds nothing where there is no /proc to read.
func Worker(supervisor int) (int, bool) { return 0, false }

// Workers finds nothing where there is no /proc to read.
func Workers(supervisor int) []int { return nil }

// ErrNoProc is CPUTicks' error where there is no /proc to read.
var ErrNoProc = errors.New("no /proc on this system")

// CPUTicks fails where there is no /proc to read.
func CPUTicks(pid int) (int64, error) { return 0, ErrNoProc }

// State fails where there is no /proc to read.
func State(pid int) (byte, error) { return 0, ErrNoProc }

// Priority fails where there is no /proc to read.
func Priority(pid int) (int, error) { return 0, ErrNoProc }

// ContextSwitches fails where there is no /proc to read.
func ContextSwitches(pid int) (int64, error) { return 0, ErrNoProc }
