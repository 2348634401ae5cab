//go:build !linux

package wire

import (
	"errors"
	"fmt"
	"os"
)

// NewBegan: only Linux shares the page (a sealed memfd); elsewhere a pool
// worker's jobs are not counted, and a job sent to a worker that died
// counts as begun.
func NewBegan() (*Began, *os.File, error) {
	return nil, nil, fmt.Errorf("the jobs-begun page: %w", errors.ErrUnsupported)
}

// OpenBegan: no page to open off Linux.
func OpenBegan(f *os.File) (*Began, error) {
	f.Close()
	return nil, fmt.Errorf("the jobs-begun page: %w", errors.ErrUnsupported)
}

func unmap([]byte) error { return nil }
