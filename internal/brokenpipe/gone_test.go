//go:build !windows

package brokenpipe

import (
	"io/fs"
	"syscall"
	"testing"
)

// TestReaderGone: a write's EPIPE, wrapped as os wraps it, is a reader
// gone; a full disk's ENOSPC, and no error, are not.
func TestReaderGone(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "EPIPE", err: &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}, want: true},
		{name: "ENOSPC", err: &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}},
		{name: "none"},
	}
	for _, tt := range tests {
		if got := ReaderGone(tt.err); got != tt.want {
			t.Errorf("%s: ReaderGone(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
