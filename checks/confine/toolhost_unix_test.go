//go:build unix

package confinecheck

import (
	"bufio"
	"os"
	"syscall"

	. "github.com/onsi/gomega"
)

// toolHost is a host's end of a tool channel: it answers the first
// request with answer, and asked gives the request line it read. worker is
// the end the sabline command inherits (pass it as descriptor 3 and
// --tool-fd 3), to be closed by the caller once the command has started.
func toolHost(answer string) (worker *os.File, asked func() string) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	Expect(err).NotTo(HaveOccurred())
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	host := os.NewFile(uintptr(fds[0]), "tool-host")
	lines := make(chan string, 1)
	go func() {
		defer host.Close()
		line, _ := bufio.NewReader(host).ReadString('\n')
		lines <- line
		if line != "" {
			host.WriteString(answer + "\n")
		}
	}()
	return os.NewFile(uintptr(fds[1]), "tool-worker"), func() string { return <-lines }
}
