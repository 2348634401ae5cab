//go:build unix

package confinecheck

import (
	"os"
	"os/exec"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// readWitness makes a FIFO in the ungranted directory and puts two bytes
// in it through a descriptor the spec holds open for reading and writing,
// so that the worker's open does not wait for a writer. The hook's read
// takes one byte: afterwards the spec finds fewer than two. A read of a
// plain file would leave no trace outside the worker.
func (s *scratch) readWitness() witness {
	p := s.unique("fifo")
	Expect(syscall.Mkfifo(p, 0o644)).To(Succeed())
	fd, err := syscall.Open(p, syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(syscall.Close, fd)
	Expect(syscall.Write(fd, []byte("ab"))).To(Equal(2))
	return newWitness(p, func() bool {
		n, _ := syscall.Read(fd, make([]byte, 2)) // -1 (EAGAIN) when both were taken
		return n < 2
	})
}

// execScript writes a shell script at path that makes the file marker,
// and returns path.
func execScript(path, marker string) string {
	Expect(os.WriteFile(path, []byte("#!/bin/sh\n: > '"+marker+"'\n"), 0o755)).To(Succeed())
	return path
}

// sleeper is a process for the hook to signal.
func sleeper() *exec.Cmd { return exec.Command("sleep", "60") }

// endedBySignal reports whether the process died of SIGTERM, the signal
// the hook sends when none is named.
func endedBySignal(ps *os.ProcessState) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
}
