package resident

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Open opens the status file at path and reads it once, so that a file
// that cannot be read, or is not a status file, is said now.
func Open(path string) (*Status, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &Status{f: f, rc: rc, buf: make([]byte, 4096)}
	if _, err := s.Held(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// OfProcess opens the status file of the process pid, which the caller
// started and has not yet waited for (so that the number is still that
// process's).
func OfProcess(pid int) (*Status, error) {
	return Open("/proc/" + strconv.Itoa(pid) + "/status")
}

// Held reads the file whole, in one pread when its buffer is large enough
// (grown otherwise, up to maxStatus), and returns the bytes its process
// holds of its own (RssAnon + RssShmem + VmSwap). Once the process has
// exited and been reaped, the read fails; so does a read once Close has
// begun (the descriptor is held through each read, never read after its
// number may name another file).
func (s *Status) Held() (uint64, error) {
	for {
		var n int
		var err error
		if cerr := s.rc.Read(func(fd uintptr) bool {
			n, err = unix.Pread(int(fd), s.buf, 0)
			return true
		}); cerr != nil {
			err = cerr
		}
		switch {
		case err != nil:
			return 0, fmt.Errorf("read %s: %w", s.f.Name(), err)
		case n == len(s.buf) && n < maxStatus:
			s.buf = make([]byte, 2*n)
			continue
		}
		held, ok := count(s.buf[:n])
		if !ok {
			return 0, fmt.Errorf("read %s: no RssAnon, RssShmem and VmSwap lines in kB in its "+
				"first %d bytes", s.f.Name(), n)
		}
		return held, nil
	}
}

// Close closes the file.
func (s *Status) Close() error { return s.f.Close() }
