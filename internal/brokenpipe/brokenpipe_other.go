//go:build !unix

package brokenpipe

// AsError does nothing: outside Unix, Go raises no signal for a broken
// pipe, and a write to one fails with an error.
func AsError() {}
