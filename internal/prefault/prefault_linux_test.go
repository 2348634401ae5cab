//go:build linux && (amd64 || arm64)

package prefault

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/sabline/sabline/internal/sysno"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// TestMain runs the package's tests apart (the sabline binaries they
// start join a register of their own) and removes the binaries built.
func TestMain(m *testing.M) {
	code := testkit.RunApart(m)
	buildbin.Cleanup()
	os.Exit(code)
}

// TestSpansOf: the spans are the loaded segments that are executable and
// not writable, rounded out to whole pages, moved by where the headers
// are against where they say they are.
func TestSpansOf(t *testing.T) {
	const page = 0x1000
	phdr := func(vaddr uint64) progHeader { return progHeader{Type: ptPHDR, Vaddr: vaddr} }
	load := func(flags uint32, vaddr, size uint64) progHeader {
		return progHeader{Type: ptLOAD, Flags: flags, Vaddr: vaddr, Filesz: size, Memsz: size}
	}
	const r, w, x = 4, pfW, pfX
	tests := []struct {
		name string
		hs   []progHeader
		at   uintptr
		want []span
	}{
		{name: "a static binary: its code, not its read-only or writable data",
			hs: []progHeader{phdr(0x400040), load(r|x, 0x400000, 0x3ad611), load(r, 0x7ae000, 0x3b6fa0),
				load(r|w, 0xb65000, 0x37480)},
			at:   0x400040,
			want: []span{{0x400000, 0x7ae000}}},
		{name: "a position-independent binary, loaded higher",
			hs:   []progHeader{phdr(0x40), load(r, 0, 0x1000), load(r|x, 0x1010, 0x20)},
			at:   0x7f0000000040,
			want: []span{{0x7f0000001000, 0x7f0000002000}}},
		{name: "a segment's end rounded out to its page",
			hs:   []progHeader{phdr(0x400040), load(r|x, 0x401000, 0x1001)},
			at:   0x400040,
			want: []span{{0x401000, 0x403000}}},
		{name: "no header for the headers: the offset is not known",
			hs:   []progHeader{load(r|x, 0x401000, 0x1001)},
			at:   0x400040,
			want: nil},
		{name: "writable code, and an empty segment, left alone",
			hs:   []progHeader{phdr(0x400040), load(r|w|x, 0x401000, 0x1000), load(r|x, 0x402000, 0)},
			at:   0x400040,
			want: nil},
		{name: "another kind of segment, executable",
			hs:   []progHeader{phdr(0x400040), {Type: 7, Flags: r | x, Vaddr: 0x401000, Filesz: 8}},
			at:   0x400040,
			want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spansOf(tt.hs, tt.at, page); !slices.Equal(got, tt.want) {
				t.Errorf("spans %#x, want %#x", got, tt.want)
			}
		})
	}
}

// vectorHeaders are the program headers TestCodeSpansReadsTheVector's
// vector points to, by address: a variable of the package's, which the
// runtime never moves.
var vectorHeaders = []progHeader{{Type: ptPHDR}, {Type: ptLOAD, Flags: pfX, Vaddr: 0x401000, Filesz: 0x10}}

// TestCodeSpansReadsTheVector: the headers the vector points to are read
// when it says how many, of what size, with what page; without one of
// those, or with a size or a count or a page that is not a program
// header's, nothing is.
func TestCodeSpansReadsTheVector(t *testing.T) {
	at := uintptr(unsafe.Pointer(&vectorHeaders[0]))
	whole := []uintptr{atPHDR, at, atPHENT, unsafe.Sizeof(progHeader{}), atPHNUM, 2, atPAGESZ, 0x1000}
	with := func(key, value uintptr) []uintptr {
		av := slices.Clone(whole)
		av[slices.Index(av, key)+1] = value
		return av
	}
	tests := []struct {
		name string
		av   []uintptr
		want int
	}{
		{name: "the whole vector", av: whole, want: 1},
		{name: "no headers named", av: whole[2:], want: 0},
		{name: "another size of header", av: with(atPHENT, 32), want: 0},
		{name: "no headers", av: with(atPHNUM, 0), want: 0},
		{name: "more headers than a binary has", av: with(atPHNUM, maxHeaders+1), want: 0},
		{name: "no page size", av: whole[:6], want: 0},
		{name: "a page size not a power of two", av: with(atPAGESZ, 0x1800), want: 0},
		{name: "a vector cut in a pair", av: append(slices.Clone(whole), atPHNUM), want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codeSpans(tt.av); len(got) != tt.want {
				t.Errorf("%d spans %#x, want %d", len(got), got, tt.want)
			}
		})
	}
}

// TestInitMappedTheCode: what the package's initialisation maps is this
// test binary's code, exactly: the spans read from the program headers
// are its executable mappings in /proc/self/smaps, and the kernel took
// each (mapped). The control, a mapping of the binary made now: none of
// it is resident, as the kernel counts it, until populate maps it, then
// all of it; populate of memory the process has not mapped fails.
func TestInitMappedTheCode(t *testing.T) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const size = 1 << 20 // a test binary is larger
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	start := uintptr(unsafe.Pointer(&m[0]))
	resident := func() int {
		for _, mm := range mappings(t) {
			if mm.start == start {
				return mm.rss
			}
		}
		t.Fatalf("no mapping at %#x in /proc/self/smaps", start)
		return 0
	}
	if got := resident(); got != 0 {
		t.Fatalf("a new mapping of the binary: %d kB resident before populate, want 0", got)
	}
	switch err := populate(span{start, start + size}, madvPopulateRead); {
	case err == nil:
	case unsupported(err):
		t.Skipf("populate: %v: this kernel has no MADV_POPULATE_READ (Linux 5.14 has it), "+
			"or a filter refuses it", err)
	default:
		t.Fatalf("populate: %v", err)
	}
	if got := resident(); got != size>>10 {
		t.Errorf("after populate: %d kB resident, want %d", got, size>>10)
	}
	// The first page is never mapped (vm.mmap_min_addr).
	first := span{0, uintptr(os.Getpagesize())}
	if err := populate(first, madvPopulateRead); err != errno(syscall.ENOMEM) {
		t.Errorf("populate of unmapped memory: %v, want ENOMEM", err)
	}

	var code []span
	for _, m := range mappings(t) {
		if m.path == exe && m.perms == "r-xp" {
			code = append(code, span{m.start, m.start + uintptr(m.size)<<10})
		}
	}
	if got := codeSpans(getAuxv()); len(code) == 0 || !slices.Equal(got, code) {
		t.Errorf("the spans read from the headers %#x, the binary's executable mappings %#x: "+
			"want the same, and some", got, code)
	}
	if mapped != len(code) {
		t.Errorf("the initialisation mapped %d spans, want %d", mapped, len(code))
	}
}

// TestAheadOf: the span ahead of the heap starts at the page above the
// highest present one, whatever lies below it, and is cut at the chunk's
// end; a chunk with no page present, or its last page present, gives
// none. Only a byte's lowest bit says a page is present.
func TestAheadOf(t *testing.T) {
	const base, page = 0x10000000, 0x1000
	const huge = hugeOf4K / page // pages of 4 KB in a huge page's reach
	sized := func(size int, present ...int) []byte {
		v := make([]byte, size)
		for _, i := range present {
			v[i] = 1
		}
		return v
	}
	vec := func(present ...int) []byte { return sized(16, present...) }
	tests := []struct {
		name   string
		vec    []byte
		n      uintptr
		want   span
		wantOK bool
	}{
		{name: "above the highest present page", vec: vec(0, 1, 2), n: 4 * page,
			want: span{base + 3*page, base + 7*page}, wantOK: true},
		{name: "pages absent below the highest left alone", vec: vec(1, 5), n: 2 * page,
			want: span{base + 6*page, base + 8*page}, wantOK: true},
		{name: "cut at the chunk's end", vec: vec(12), n: 8 * page,
			want: span{base + 13*page, base + 16*page}, wantOK: true},
		{name: "the last page present", vec: vec(3, 15), n: 4 * page},
		{name: "no page present", vec: vec(), n: 4 * page},
		{name: "bits other than the lowest", vec: append(vec(2)[:15], 0xfe), n: page,
			want: span{base + 3*page, base + 4*page}, wantOK: true},
		{name: "cut at the end of a huge page's reach", vec: sized(2*huge, huge-3), n: 8 * page,
			want: span{base + (huge-2)*page, base + huge*page}, wantOK: true},
		{name: "the present pages end a huge page's reach", vec: sized(2*huge, huge-1), n: page},
		{name: "above the first huge page's reach", vec: sized(2*huge, 0, huge), n: 4 * page,
			want: span{base + (huge+1)*page, base + (huge+5)*page}, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := aheadOf(tt.vec, base, page, tt.n)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("aheadOf: %#x, %v; want %#x, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestPresentAhead: on a chunk of anonymous memory of the test's own,
// laid out as the runtime lays out its heap (the first pages written),
// presentAhead makes the pages above them present, as the kernel tells
// (mincore), and no page past them; they read as zeros, as the runtime
// takes fresh memory to be, and take no fault when written, where pages
// past them take one each. The control: none of them was present
// before. A chunk with its last page present gives none, and one not
// mapped whole mincore's error.
func TestPresentAhead(t *testing.T) {
	page := uintptr(os.Getpagesize())
	base, chunk := heapChunk(t)
	present := func() []bool {
		vec := make([]byte, chunkBytes/page)
		_, _, errno := syscall.RawSyscall(syscall.SYS_MINCORE, base, chunkBytes,
			uintptr(unsafe.Pointer(&vec[0])))
		if errno != 0 {
			t.Fatalf("mincore: %v", errno)
		}
		out := make([]bool, len(vec))
		for i, b := range vec {
			out[i] = b&1 != 0
		}
		return out
	}
	const used = 3
	for i := range used {
		chunk[uintptr(i)*page] = 1
	}
	ahead := int(aheadBytes / page)
	if p := present(); slices.Contains(p[used:], true) || !p[used-1] {
		t.Fatalf("before: pages present %v, want the first %d alone", firstTrue(p), used)
	}
	// From an address in the chunk's second half: the chunk is the one
	// holding it.
	s, err := presentAhead(base+chunkBytes/2+page+8, page)
	switch {
	case err == nil:
	case unsupported(err):
		t.Skipf("populate: %v: this kernel has no MADV_POPULATE_WRITE (Linux 5.14 has it), "+
			"or a filter refuses it", err)
	default:
		t.Fatalf("presentAhead: %v", err)
	}
	if want := (span{base + used*page, base + (used+uintptr(ahead))*page}); s != want {
		t.Fatalf("presentAhead made %#x present, want %#x", s, want)
	}
	p := present()
	for i, got := range p {
		if want := i < used+ahead; got != want {
			t.Fatalf("after: page %d present %v, want %v (pages present: %v)", i, got, want,
				firstTrue(p))
		}
	}
	// Written to, the pages made present take no fault, where pages past
	// them take one each (the control). A read populate would do as well
	// on a kernel that gives a read of private memory a page of its own,
	// as this project's machine does; where a read maps the shared zero
	// page, the first write would replace it, a fault. Up to two faults
	// are taken for what else the thread may touch meanwhile (a signal's
	// stack, the first time it takes one). Now and then a write takes more
	// that the populate has no part in (once in a run of the suites, once
	// in 3,000 runs beside three busy loops: the kernel moves pages as it
	// compacts memory, for one); the check is then made again on a fresh
	// chunk, three times in all, where without the populate every attempt
	// takes a fault a page.
	made := chunk[used*page:][:aheadBytes]
	faults := writeFaults(made, page)
	for try := 2; faults > 2 && try <= 3; try++ {
		t.Logf("writing the %d pages made present took %d faults; again on a fresh chunk "+
			"(%d of 3)", ahead, faults, try)
		faults = freshAheadFaults(t, page, used)
	}
	if faults > 2 {
		t.Errorf("writing the %d pages made present took %d faults, want none", ahead, faults)
	}
	for i, b := range made {
		if b != 0 && uintptr(i)%page != 0 {
			t.Fatalf("byte %d of the pages made present is %d, want 0", i, b)
		}
	}
	const past = 8
	if got := writeFaults(chunk[used*page+aheadBytes:][:past*page], page); got < past {
		t.Errorf("writing %d pages not made present took %d faults, want one each", past, got)
	}

	chunk[chunkBytes-1] = 1
	if s, err := presentAhead(base, page); err != errNoneAhead {
		t.Errorf("presentAhead with the chunk's last page present: %#x, %v; want %v", s, err,
			errNoneAhead)
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_MUNMAP, base+chunkBytes/2, chunkBytes/2,
		0); errno != 0 {
		t.Fatalf("munmap: %v", errno)
	}
	if s, err := presentAhead(base, page); err != errno(syscall.ENOMEM) {
		t.Errorf("presentAhead of a chunk half unmapped: %#x, %v; want ENOMEM", s, err)
	}
}

// heapChunk maps a chunk of anonymous memory of the test's own, aligned as
// the runtime aligns its heap's chunks and in pages of 4 KB wherever
// transparent huge pages are the default, unmapped when the test ends.
func heapChunk(t *testing.T) (base uintptr, chunk []byte) {
	t.Helper()
	m, err := syscall.Mmap(-1, 0, 2*chunkBytes, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	if err := syscall.Madvise(m, syscall.MADV_NOHUGEPAGE); err != nil {
		t.Fatal(err)
	}
	base = (uintptr(unsafe.Pointer(&m[0])) + chunkBytes - 1) &^ (chunkBytes - 1)
	return base, m[base-uintptr(unsafe.Pointer(&m[0])):][:chunkBytes]
}

// freshAheadFaults lays out a fresh chunk as TestPresentAhead does, its
// first used pages written, makes the pages above them present, and
// returns the faults that writing those pages takes.
func freshAheadFaults(t *testing.T, page uintptr, used int) int64 {
	t.Helper()
	base, chunk := heapChunk(t)
	for i := range used {
		chunk[uintptr(i)*page] = 1
	}
	if _, err := presentAhead(base, page); err != nil {
		t.Fatalf("presentAhead on a fresh chunk: %v", err)
	}
	return writeFaults(chunk[uintptr(used)*page:][:aheadBytes], page)
}

// unsupported reports whether err is how a kernel without an advice, or a
// filter that refuses the call, answers madvise.
func unsupported(err error) bool {
	switch err {
	case errno(syscall.EINVAL), errno(syscall.ENOSYS), errno(syscall.EPERM):
		return true
	}
	return false
}

// writeFaults writes a byte to each page of b, pages of page bytes, and
// returns the page faults the calling thread took meanwhile.
func writeFaults(b []byte, page uintptr) int64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rusageThread = 1 // RUSAGE_THREAD
	var before, after syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &before); err != nil {
		panic(err)
	}
	for i := uintptr(0); i < uintptr(len(b)); i += page {
		b[i] = 1
	}
	if err := syscall.Getrusage(rusageThread, &after); err != nil {
		panic(err)
	}
	return after.Minflt - before.Minflt
}

// firstTrue is how many of p's first entries are true, and the count of
// the rest that are, for a message.
func firstTrue(p []bool) string {
	i := slices.Index(p, false)
	if i < 0 {
		return "all"
	}
	n := 0
	for _, b := range p[i:] {
		if b {
			n++
		}
	}
	return strconv.Itoa(i) + " first, " + strconv.Itoa(n) + " after"
}

// TestInitMadeTheHeapPresent: the package's initialisation made pages
// of the heap present, aheadBytes of them or fewer up to the end of a
// chunk, in an anonymous mapping that the process may write (the
// runtime's heap), beyond a page the heap had. Where the heap had reached
// its chunk's end the test says so and is skipped.
func TestInitMadeTheHeapPresent(t *testing.T) {
	switch {
	case madeErr == nil:
	case madeErr == errNoneAhead:
		t.Skip("no pages ahead of the heap to make present in this run: the runtime began the " +
			"heap near its chunk's end (its base is chosen at random) or of a huge page's reach, " +
			"and the test binary's initialisation had reached it")
	case unsupported(madeErr):
		t.Skipf("populate: %v: this kernel has no MADV_POPULATE_WRITE (Linux 5.14 has it), "+
			"or a filter refuses it", madeErr)
	default:
		t.Fatalf("the initialisation made no heap present: %v", madeErr)
	}
	page := uintptr(os.Getpagesize())
	huge := hugeReach(page)
	if got := madeHeap.End - madeHeap.Start; got > aheadBytes ||
		got < aheadBytes && madeHeap.End%chunkBytes != 0 && madeHeap.End%huge != 0 {
		t.Errorf("the initialisation made %d bytes present, up to %#x; want %d, or fewer up to "+
			"a chunk's end or a huge page's", got, madeHeap.End, aheadBytes)
	}
	for _, m := range mappings(t) {
		end := m.start + uintptr(m.size)<<10
		if m.start <= madeHeap.Start && madeHeap.End <= end {
			if m.perms != "rw-p" || m.path != "" || m.start == madeHeap.Start {
				t.Errorf("the heap made present %#x is in a mapping %s %q from %#x, want "+
					"anonymous memory, rw-p, with a page below it", madeHeap, m.perms, m.path, m.start)
			}
			return
		}
	}
	t.Errorf("the heap made present %#x is in no one mapping of /proc/self/smaps", madeHeap)
}

// TestInitComesFirst: in sabline and sabline-door, started with the
// runtime tracing each package's initialisation, no package initialised
// before this one allocated, so the heap pages it made present are those
// every later initialisation takes. The control: packages after it did
// allocate, as the trace counts them. (This test's own binary cannot show
// it: the package's tests import what they use. In sabline-store one of
// its cloud drivers' packages, whose path sorts first, comes before.)
func TestInitComesFirst(t *testing.T) {
	tests := []struct {
		name, pkg string
		args      []string
	}{
		{name: "sabline", pkg: "cmd/sabline", args: []string{"version"}},
		{name: "sabline-door", pkg: "cmd/sabline-door", args: []string{"version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin, err := buildbin.Build("github.com/sabline/sabline/"+tt.pkg, tt.name)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %v\n%s", cmd, err, stderr.String())
			}
			before, seen, after := initTrace(stderr.String())
			if !seen || after == 0 {
				t.Fatalf("the trace names the package: %v, and %d packages after it that "+
					"allocated; want it and some:\n%s", seen, after, stderr.String())
			}
			if len(before) > 0 {
				t.Errorf("packages initialised before this one allocated: %v", before)
			}
		})
	}
}

// initTrace reads a trace of GODEBUG=inittrace=1: the packages
// initialised before this one that allocated, whether it is there, and
// how many after it allocated.
func initTrace(trace string) (before []string, seen bool, after int) {
	const self = "github.com/sabline/sabline/internal/prefault"
	for line := range strings.Lines(trace) {
		// init PACKAGE @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		switch bytes, allocs := f[7], f[9]; {
		case f[1] == self:
			seen = true
		case !seen && (bytes != "0" || allocs != "0"):
			before = append(before, f[1]+" ("+bytes+" bytes)")
		case seen && allocs != "0":
			after++
		}
	}
	return before, seen, after
}

// TestSystemCallNumbers: the numbers the package calls are the syscall
// package's and those of the project's own table (internal/sysno, which
// this package cannot import: it allocates at its initialisation), and
// an error number reads as one. A huge page's reach is 2 MB with pages
// of 4 KB.
func TestSystemCallNumbers(t *testing.T) {
	if sysMincore != syscall.SYS_MINCORE || sysMadvise != syscall.SYS_MADVISE {
		t.Errorf("mincore %d and madvise %d, want %d and %d", sysMincore, sysMadvise,
			syscall.SYS_MINCORE, syscall.SYS_MADVISE)
	}
	table, ok := sysno.Table(runtime.GOARCH)
	if !ok || table["mincore"] != sysMincore || table["madvise"] != sysMadvise {
		t.Errorf("mincore %d and madvise %d; internal/sysno's %s table (%v): %d and %d",
			sysMincore, sysMadvise, runtime.GOARCH, ok, table["mincore"], table["madvise"])
	}
	if got := hugeReach(4096); got != hugeOf4K {
		t.Errorf("a huge page's reach with pages of 4 KB: %d, want %d", got, hugeOf4K)
	}
	for e, want := range map[errno]string{0: "errno 0", 12: "errno 12", 1 << 20: "errno 1048576"} {
		if got := e.Error(); got != want {
			t.Errorf("errno(%d).Error() = %q, want %q", uintptr(e), got, want)
		}
	}
}

// hugeOf4K is a huge page's reach with pages of 4 KB, which TestAheadOf
// lays its cases on and TestSystemCallNumbers holds hugeReach to.
const hugeOf4K = 2 << 20

// mapping is one of /proc/self/smaps's entries: where it is, its
// permissions and file, and its size and resident size in kB.
type mapping struct {
	start       uintptr
	perms, path string
	size, rss   int
}

// mappings reads /proc/self/smaps.
func mappings(t *testing.T) []mapping {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			lo, _, _ := strings.Cut(fields[0], "-")
			start, err := strconv.ParseUint(lo, 16, 64)
			if err != nil {
				t.Fatalf("smaps line %q: %v", sc.Text(), err)
			}
			m := mapping{start: uintptr(start), perms: fields[1]}
			if len(fields) >= 6 {
				m.path = strings.Join(fields[5:], " ")
			}
			out = append(out, m)
		case len(out) > 0 && len(fields) == 3 && (fields[0] == "Size:" || fields[0] == "Rss:"):
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatalf("smaps line %q: %v", sc.Text(), err)
			}
			if fields[0] == "Size:" {
				out[len(out)-1].size = n
			} else {
				out[len(out)-1].rss = n
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
