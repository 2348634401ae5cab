package wire

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// NewBegan makes the page a pool worker counts its jobs begun on (Began):
// a memfd of one page, sealed so that no process can shrink or grow it
// (a mapping past a file's end faults) nor take the seals off, mapped
// here for reading. theirs is the file the worker is given, to pass and
// then close.
func NewBegan() (b *Began, theirs *os.File, err error) {
	fd, err := unix.MemfdCreate("sabline-began", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, nil, fmt.Errorf("the jobs-begun page: memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "sabline-began")
	fail := func(what string, err error) (*Began, *os.File, error) {
		f.Close()
		return nil, nil, fmt.Errorf("the jobs-begun page: %s: %w", what, err)
	}
	size := os.Getpagesize()
	if err := f.Truncate(int64(size)); err != nil {
		return fail("ftruncate", err)
	}
	seals := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		return fail("seal", err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return fail("mmap", err)
	}
	return &Began{mem: mem}, f, nil
}

// OpenBegan maps for writing the page its supervisor passed as f (the
// worker's side), before the worker is confined, and closes f.
func OpenBegan(f *os.File) (*Began, error) {
	defer f.Close()
	mem, err := unix.Mmap(int(f.Fd()), 0, os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("the jobs-begun page: mmap: %w", err)
	}
	return &Began{mem: mem}, nil
}

func unmap(mem []byte) error { return unix.Munmap(mem) }
