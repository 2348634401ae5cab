package brokenpipe

import (
	"errors"
	"syscall"
)

// errorNoData is ERROR_NO_DATA, "the pipe is being closed": a write to a
// pipe whose reader has closed it (ERROR_BROKEN_PIPE is the other).
const errorNoData syscall.Errno = 232

// ReaderGone reports whether err is a write's failure because its
// reader went away: ERROR_BROKEN_PIPE or ERROR_NO_DATA here.
func ReaderGone(err error) bool {
	return errors.Is(err, syscall.ERROR_BROKEN_PIPE) || errors.Is(err, errorNoData)
}
