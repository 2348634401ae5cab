//go:build linux && (amd64 || arm64)

package prefault

import (
	"slices"
	"syscall"
	"unsafe"
)

func init() {
	for _, s := range codeSpans(getAuxv()) {
		if populate(s) == nil {
			mapped++
		}
	}
}

// mapped counts the spans the package's initialisation had the kernel
// map, for its test.
var mapped int

// getAuxv is the process's auxiliary vector, as the runtime keeps it
// (pairs of a key and a value), the same that golang.org/x/sys reads.
//
//go:linkname getAuxv runtime.getAuxv
func getAuxv() []uintptr

// The auxiliary vector's keys, and the ELF program header's values, that
// codeSpans reads (getauxval(3), elf(5)).
const (
	atPHDR   = 3 // where the program headers are in memory
	atPHENT  = 4 // the size of one
	atPHNUM  = 5 // how many there are
	atPAGESZ = 6 // the page size

	ptLOAD = 1 // a segment loaded from the file
	ptPHDR = 6 // the program headers themselves, where the file puts them
	pfX    = 1 // the segment is executable
	pfW    = 2 // the segment is writable

	// maxHeaders bounds the program headers read: a Go binary has up to
	// a dozen.
	maxHeaders = 64
)

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): map the pages of a
// range as reads would, without reading them.
const madvPopulateRead = 22

// progHeader is an ELF64 program header (Elf64_Phdr).
type progHeader struct {
	Type, Flags                             uint32
	Off, Vaddr, Paddr, Filesz, Memsz, Align uint64
}

// span is a range of the process's memory, [Start, End).
type span struct{ Start, End uintptr }

// codeSpans is where the process's executable, read-only segments are,
// page-aligned, read from the program headers that the auxiliary vector
// av points to. It is none where av names no headers of the expected size
// or more than maxHeaders.
func codeSpans(av []uintptr) []span {
	var at, ent, n, page uintptr
	for i := 0; i+1 < len(av); i += 2 {
		switch av[i] {
		case atPHDR:
			at = av[i+1]
		case atPHENT:
			ent = av[i+1]
		case atPHNUM:
			n = av[i+1]
		case atPAGESZ:
			page = av[i+1]
		}
	}
	if at == 0 || ent != unsafe.Sizeof(progHeader{}) || n == 0 || n > maxHeaders ||
		page == 0 || page&(page-1) != 0 {
		return nil
	}
	// The kernel mapped the headers with the binary (a Go binary's are in
	// its first segment) before the process began, and they are never
	// moved or unmapped: no Go object, so the address is not the
	// collector's. AT_PHDR is trusted as the runtime trusts the rest of
	// the vector.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&at))
	return spansOf(unsafe.Slice((*progHeader)(p), n), at, page)
}

// spansOf is codeSpans of the program headers hs, which are at address at
// in memory, with pages of page bytes. A position-independent binary is
// loaded at an offset from the addresses its headers name: the offset is
// where its PT_PHDR header is against where that header says it is.
// Headers without a PT_PHDR (which Go's linker always writes) give none:
// the offset is not known.
func spansOf(hs []progHeader, at, page uintptr) []span {
	i := slices.IndexFunc(hs, func(h progHeader) bool { return h.Type == ptPHDR })
	if i < 0 {
		return nil
	}
	bias := at - uintptr(hs[i].Vaddr)
	var out []span
	for _, h := range hs {
		if h.Type != ptLOAD || h.Flags&pfX == 0 || h.Flags&pfW != 0 || h.Filesz == 0 {
			continue
		}
		start := bias + uintptr(h.Vaddr)
		out = append(out, span{Start: start &^ (page - 1),
			End: (start + uintptr(h.Filesz) + page - 1) &^ (page - 1)})
	}
	return out
}

// populate asks the kernel to map the pages of s now, reading from the
// disk what the page cache does not hold (so through syscall.Syscall,
// which tells the scheduler the call may block). A failure leaves the
// pages to be mapped as they are first touched, as without it.
func populate(s span) error {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, s.Start, s.End-s.Start, madvPopulateRead)
	if errno != 0 {
		return errno
	}
	return nil
}
