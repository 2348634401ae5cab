package confinecheck

import (
	"os"
	"os/exec"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// readWitness: Windows has no FIFO a spec can make, and a read of a plain
// file leaves no trace outside the worker, so the read is not witnessed.
func (s *scratch) readWitness() witness {
	Skip("no witness for a read on windows: a read of a file leaves no trace outside the worker")
	return witness{}
}

// execScript writes a batch file at path+".bat" that makes the file
// marker, and returns its path.
func execScript(path, marker string) string {
	path += ".bat"
	Expect(os.WriteFile(path, []byte("@echo off\r\ntype nul > \""+marker+"\"\r\n"), 0o755)).To(Succeed())
	return path
}

// sleeper is a process for the hook to end.
func sleeper() *exec.Cmd { return exec.Command("ping", "-n", "60", "127.0.0.1") }

// endedBySignal reports whether the process ended: Windows has no signals,
// and the hook's signal terminates the process.
func endedBySignal(ps *os.ProcessState) bool { return ps.Exited() }
