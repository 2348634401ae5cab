//go:build linux && (amd64 || arm64)

package prefault

import "unsafe"

func init() {
	av := getAuxv()
	for _, s := range codeSpans(av) {
		if populate(s, madvPopulateRead) == nil {
			mapped++
		}
	}
	madeHeap, madeErr = presentAhead(heapProbe(), auxValue(av, atPAGESZ))
}

// For the package's test: mapped counts the spans of code the package's
// initialisation had the kernel map; madeHeap is the heap it made
// present, and madeErr what presentAhead returned (errNotRun until then).
var (
	mapped   int
	madeHeap span
	madeErr  error = errNotRun
)

// The package imports nothing but unsafe, so that Go initialises it
// right after the runtime (TestInitComesFirst): what it needs of the
// system it takes where golang.org/x/sys does, the auxiliary vector from
// the runtime and the system call entries from the syscall package, which
// every binary that imports os links. Importing syscall put it after
// syscall's initialisation, the 16th, behind packages that allocate.

// getAuxv is the process's auxiliary vector, as the runtime keeps it
// (pairs of a key and a value), the same that golang.org/x/sys reads.
//
//go:linkname getAuxv runtime.getAuxv
func getAuxv() []uintptr

// sysCall is syscall.Syscall (the call may block: the scheduler is told),
// and rawSysCall syscall.RawSyscall (it may not), each returning the
// kernel's error number, 0 for none.
//
//go:linkname sysCall syscall.Syscall
func sysCall(trap, a1, a2, a3 uintptr) (r1, r2, err uintptr)

//go:linkname rawSysCall syscall.RawSyscall
func rawSysCall(trap, a1, a2, a3 uintptr) (r1, r2, err uintptr)

// errno is an error number a system call returned (errno(3)).
type errno uintptr

// Error is the number in decimal.
func (e errno) Error() string {
	var b [20]byte
	i := len(b)
	for n := uintptr(e); ; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
		if n < 10 {
			break
		}
	}
	return "errno " + string(b[i:])
}

// failure is an error of the package's own.
type failure string

func (f failure) Error() string { return string(f) }

// errNotRun is madeErr before the initialisation has set it.
const errNotRun failure = "the initialisation has not run"

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

// The madvise(2) advice populate gives (Linux 5.14): map the pages of a
// range as reads (MADV_POPULATE_READ) or writes (MADV_POPULATE_WRITE)
// would, without reading or writing them. A page of private anonymous
// memory made present for a write is a fresh page of zeros, as the one
// the first write would have faulted in.
const (
	madvPopulateRead  = 22
	madvPopulateWrite = 23
)

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
	at, ent, n, page := auxValue(av, atPHDR), auxValue(av, atPHENT), auxValue(av, atPHNUM),
		auxValue(av, atPAGESZ)
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

// auxValue is the value of key in the auxiliary vector av, 0 where it has
// none.
func auxValue(av []uintptr, key uintptr) uintptr {
	for i := 0; i+1 < len(av); i += 2 {
		if av[i] == key {
			return av[i+1]
		}
	}
	return 0
}

// spansOf is codeSpans of the program headers hs, which are at address at
// in memory, with pages of page bytes. A position-independent binary is
// loaded at an offset from the addresses its headers name: the offset is
// where its PT_PHDR header is against where that header says it is.
// Headers without a PT_PHDR (which Go's linker always writes) give none:
// the offset is not known.
func spansOf(hs []progHeader, at, page uintptr) []span {
	i := 0
	for i < len(hs) && hs[i].Type != ptPHDR {
		i++
	}
	if i == len(hs) {
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

// populate asks the kernel to map the pages of s now, with advice
// madvPopulateRead or madvPopulateWrite, reading from the disk what the
// page cache does not hold (so through sysCall, which tells the
// scheduler the call may block). A failure leaves the pages to be mapped
// as they are first touched, as without it.
func populate(s span, advice uintptr) error {
	if _, _, e := sysCall(sysMadvise, s.Start, s.End-s.Start, advice); e != 0 {
		return errno(e)
	}
	return nil
}

// The heap made present ahead of its use. The Go runtime grows its heap
// in whole chunks of chunkBytes at addresses aligned to them (its page
// allocator's chunk, 512 pages of 8 KB) and, until its first collection,
// takes each new span from the lowest free address: the pages just above
// the highest one the process has touched are those the rest of its
// start touches next, until the chunk ends. `sabline version` touched
// some 340 KB of them after this package's initialisation, the first
// touch of each page a fault.
const (
	chunkBytes = 4 << 20
	aheadBytes = 384 << 10
	// maxVector bounds mincore's vector: a chunk of pages of 4 KB or more.
	maxVector = chunkBytes / 4096
)

// probe holds a new heap object for as long as heapProbe reads its
// address, so that the object is on the heap and not on the stack.
var probe *[16]byte

// heapProbe returns the address of a new object on the heap, written to
// so that its page is present.
func heapProbe() uintptr {
	probe = new([16]byte)
	probe[0] = 1
	a := uintptr(unsafe.Pointer(probe))
	probe = nil
	return a
}

// heapAhead is the span to make present in the heap chunk holding the
// address a, with pages of page bytes: the pages above the highest
// present one, as mincore(2) tells, aheadBytes of them at most (aheadOf).
// Its error is mincore's where the chunk is not mapped whole,
// errNoneAhead where there are no such pages, and errPageSize where the
// page size is not a power of two the vector holds.
func heapAhead(a, page uintptr) (span, error) {
	if page == 0 || page&(page-1) != 0 || chunkBytes/page > maxVector {
		return span{}, errPageSize
	}
	base := a &^ (chunkBytes - 1)
	// The vector is on this goroutine's stack, and the kernel writes it
	// during the call: RawSyscall takes no stack check, so the stack is
	// not moved under it.
	var vec [maxVector]byte
	if _, _, e := rawSysCall(sysMincore, base, chunkBytes, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		return span{}, errno(e)
	}
	s, ok := aheadOf(vec[:chunkBytes/page], base, page, aheadBytes)
	if !ok {
		return span{}, errNoneAhead
	}
	return s, nil
}

// heapAhead's errors of its own.
const (
	errNoneAhead failure = "no pages ahead of the heap"
	errPageSize  failure = "a page size the residency vector does not hold"
)

// presentAhead makes the pages heapAhead names for address a present, for
// writes, and returns them.
func presentAhead(a, page uintptr) (span, error) {
	s, err := heapAhead(a, page)
	if err != nil {
		return span{}, err
	}
	return s, populate(s, madvPopulateWrite)
}

// aheadOf is heapAhead's span, from the residency vector vec of the pages
// from base on (mincore's: a page is present when its byte's lowest bit
// is set): the n bytes above the highest present page, cut at the end of
// the pages vec covers and at the end of the huge page's reach they are
// in (a page table's: 2 MB with pages of 4 KB). It is none when no page
// is present (the chunk is not the one in use), the last one is, or the
// highest present one ends a huge page's reach: where transparent huge
// pages are always on, the heap's first touch maps a huge page whole, all
// of it present, and a page past it made present would be a new huge page
// the start may never use.
func aheadOf(vec []byte, base, page, n uintptr) (span, bool) {
	top := len(vec) - 1
	for top >= 0 && vec[top]&1 == 0 {
		top--
	}
	if top < 0 || top == len(vec)-1 {
		return span{}, false
	}
	start := base + uintptr(top+1)*page
	huge := hugeReach(page)
	if start%huge == 0 {
		return span{}, false
	}
	end := min(start+n, base+uintptr(len(vec))*page, (start/huge+1)*huge)
	return span{Start: start, End: end}, true
}

// hugeReach is the memory one page table maps, with pages of page bytes,
// which is a huge page's size: 2 MB with pages of 4 KB (a table's
// entries are 8 bytes).
func hugeReach(page uintptr) uintptr { return page * (page / 8) }
