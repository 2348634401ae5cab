//go:build !linux

package confine

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sabline/sabline/guard"
)

// makeDir makes the directory name in parent, an absolute path with no
// link on it when the run was admitted, where parent still resolves to
// itself: a link made on its way since makes nothing. (The check and the
// mkdir are two calls here, not one.)
func makeDir(parent, name string) error {
	if r := guard.Resolved(parent); r != parent {
		return fmt.Errorf("%s now leads to %s: a link was made on its way", parent, r)
	}
	return os.Mkdir(filepath.Join(parent, name), 0o777) // as mkdir(1): the umask narrows it
}
