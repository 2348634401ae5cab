package confinecheck

import (
	"os"
	"path/filepath"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sys/unix"
)

// The worker holds none of the caller's open files: its standard streams
// are pipes the supervisor made and relays. A program that may make raw
// system calls changes a flag, an offset or a length of what it holds,
// and each spec reads, from outside, what the caller holds: its own
// descriptor's flags, its log's bytes. The control is the same call on a
// file the program opened itself, which takes effect, confined as it is.
var _ = Describe("the caller's open files: the worker holds only pipes the supervisor made", func() {
	// budget is what the programs are granted: raw calls, and the scratch
	// directory their own files are in.
	budget := func(s *scratch) string { return "io,ffi:ctypes,fs:write:" + s.grant }
	const nonblockAppend = unix.O_NONBLOCK | unix.O_APPEND

	It("F_SETFL on standard input leaves the flags of the caller's descriptor as they were", func() {
		s := newScratch()
		By("control, --confine strict: the same call on a file the program opened takes effect, as /proc/WORKER/fdinfo shows")
		own := s.file("grant/own.txt", "")
		control := s.file("setfl-own.vel", `c = ffi.module("ctypes")
o = c.syscall("openat", -100, ARGS[0], 1)
if o.errno:
    fail("openat: " + o.errno)
c.syscall("fcntl", o.ret, 4, `+strconv.Itoa(nonblockAppend)+`)
print("waiting")
io.read_line()
`)
		flags := waitingWorker(s, []string{"--confine", "strict", "--allow", budget(s), control, "--", own}, func(worker int) string {
			return procLine(worker, filepath.Join("fdinfo", strconv.Itoa(openFD(worker, own))), "flags:")
		})
		held, err := strconv.ParseUint(flags, 8, 32)
		Expect(err).NotTo(HaveOccurred())
		Expect(held&nonblockAppend).To(BeEquivalentTo(nonblockAppend), "the program's own file has flags %s", flags)

		prog := s.file("setfl-stdin.vel", `c = ffi.module("ctypes")
print("F_SETFL", c.syscall("fcntl", 0, 4, `+strconv.Itoa(nonblockAppend)+`).errno or "ok")
print("F_GETFL", c.syscall("fcntl", 0, 3).ret)
`)
		for _, mode := range [][]string{{"--confine", "strict"}, {"--no-confine"}} {
			By(mode[len(mode)-1] + ": the caller's standard input, a pipe whose write end it keeps open")
			var p [2]int
			Expect(unix.Pipe2(p[:], unix.O_CLOEXEC)).To(Succeed())
			in, hold := os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "stdin-writer")
			before, err := unix.FcntlInt(uintptr(p[0]), unix.F_GETFL, 0)
			Expect(err).NotTo(HaveOccurred())
			r := s.runWith(call{args: append(mode, "--allow", budget(s), prog), stdin: in})
			after, err := unix.FcntlInt(uintptr(p[0]), unix.F_GETFL, 0)
			Expect(err).NotTo(HaveOccurred())
			in.Close()
			hold.Close()
			Expect(r.exit).To(Equal(0), "%s", r)
			// The call went through, on the worker's own pipe.
			Expect(r.stdout).To(HavePrefix("F_SETFL ok\nF_GETFL "), "%s", r)
			Expect(after).To(Equal(before), "the caller's descriptor's flags were %o, now %o\n%s", before, after, r)
			Expect(after & nonblockAppend).To(BeZero())
		}
	})

	It("clearing O_APPEND on standard output, writing and ftruncate leave the caller's log whole, the output after it", func() {
		s := newScratch()
		const known = "the operator's log, line one\n"
		prog := s.file("clobber.vel", `c = ffi.module("ctypes")
own, cut = [c.syscall("openat", -100, p, 1025) for p in ARGS]
if own.errno or cut.errno:
    fail("openat: " + own.errno + cut.errno)
own, cut = own.ret, cut.ret
for fd in [own, 1]:
    c.syscall("fcntl", fd, 4, 0)
    c.syscall("write", fd, "OVERWRITE", 9)
c.syscall("ftruncate", cut, 0)
print("ftruncate(1, 0)", c.syscall("ftruncate", 1, 0).errno)
`)
		for _, mode := range [][]string{{"--confine", "strict"}, {"--no-confine"}} {
			name := mode[len(mode)-1]
			By(name + ": standard output is the caller's log, opened with O_APPEND")
			logPath := filepath.Join(s.outside, "log"+name)
			Expect(os.WriteFile(logPath, []byte(known), 0o644)).To(Succeed())
			log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
			Expect(err).NotTo(HaveOccurred())
			own := s.file("grant/own"+name, known)
			cut := s.file("grant/cut"+name, known)

			c := s.runWith(call{args: append(mode, "--allow", budget(s), prog, "--", own, cut), stdout: log})
			log.Close()
			Expect(c.exit).To(Equal(0), "%s", c)

			By("control: on the program's own files, the write went to offset 0 and the truncation emptied one")
			Expect(os.ReadFile(own)).To(BeEquivalentTo("OVERWRITE" + known[len("OVERWRITE"):]))
			Expect(os.ReadFile(cut)).To(BeEmpty())

			By("the caller's log holds its bytes, then the program's output")
			Expect(os.ReadFile(logPath)).To(BeEquivalentTo(known + "OVERWRITE" + "ftruncate(1, 0) EINVAL\n"))
		}
	})
})

// openFD returns the descriptor of the worker that is open on path.
func openFD(worker int, path string) int {
	GinkgoHelper()
	dir := filepath.Join("/proc", strconv.Itoa(worker), "fd")
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == path {
			fd, err := strconv.Atoi(e.Name())
			Expect(err).NotTo(HaveOccurred())
			return fd
		}
	}
	Fail("the worker " + strconv.Itoa(worker) + " holds no descriptor of " + path)
	return -1
}
