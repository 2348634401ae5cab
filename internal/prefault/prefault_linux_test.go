//go:build linux && (amd64 || arm64)

package prefault

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

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
	switch err := populate(span{start, start + size}); err {
	case nil:
	case syscall.EINVAL, syscall.ENOSYS, syscall.EPERM:
		t.Skipf("populate: %v: this kernel has no MADV_POPULATE_READ (Linux 5.14 has it), "+
			"or a filter refuses it", err)
	default:
		t.Fatalf("populate: %v", err)
	}
	if got := resident(); got != size>>10 {
		t.Errorf("after populate: %d kB resident, want %d", got, size>>10)
	}
	// The first page is never mapped (vm.mmap_min_addr).
	if err := populate(span{0, uintptr(os.Getpagesize())}); err != syscall.ENOMEM {
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
