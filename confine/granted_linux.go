//go:build linux

package confine

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/linux"
)

// makeDir makes the directory name in parent, an absolute path with no
// link on it when the run was admitted, opened through no link at all
// (linux.OpenNoLinks): a link made on its way since fails the open
// (ELOOP, or ENOTDIR beneath it), and nothing is made.
func makeDir(parent, name string) error {
	fd, err := linux.OpenNoLinks(parent)
	if err != nil {
		return fmt.Errorf("open %s through no link: %w", parent, err)
	}
	defer unix.Close(fd)
	if err := unix.Mkdirat(fd, name, 0o777); err != nil { // as mkdir(1): the umask narrows it
		return fmt.Errorf("mkdirat %s in %s: %w", name, parent, err)
	}
	return nil
}
