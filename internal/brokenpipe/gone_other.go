//go:build !windows

package brokenpipe

import (
	"errors"
	"syscall"
)

// ReaderGone reports whether err is a write's failure because its
// reader went away: EPIPE. Any other (ENOSPC of a full disk, EIO) lost
// what was written with the reader still there.
func ReaderGone(err error) bool { return errors.Is(err, syscall.EPIPE) }
