//go:build !linux

package resident

// Open returns ErrUnsupported: no status file tells a process's resident
// memory here.
func Open(string) (*Status, error) { return nil, ErrUnsupported }

// OfProcess returns ErrUnsupported, as Open does.
func OfProcess(int) (*Status, error) { return nil, ErrUnsupported }

// Held returns ErrUnsupported; no Status is opened here.
func (s *Status) Held() (uint64, error) { return 0, ErrUnsupported }

// Close does nothing; no Status is opened here.
func (s *Status) Close() error { return nil }
