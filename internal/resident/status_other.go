//go:build !linux

package resident

import (
	"errors"
	"fmt"
)

// errUnsupported is what Open and OfProcess return here: no status file
// tells a process's resident memory.
var errUnsupported = fmt.Errorf("no process status file on this system: %w",
	errors.ErrUnsupported)

// Open returns an error that is errors.ErrUnsupported.
func Open(string) (*Status, error) { return nil, errUnsupported }

// OfProcess returns an error that is errors.ErrUnsupported, as Open does.
func OfProcess(int) (*Status, error) { return nil, errUnsupported }

// Held returns an error that is errors.ErrUnsupported; no Status is
// opened here.
func (s *Status) Held() (uint64, error) { return 0, errUnsupported }

// Close does nothing; no Status is opened here.
func (s *Status) Close() error { return nil }
