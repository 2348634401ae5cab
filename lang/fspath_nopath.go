//go:build !linux && !darwin && !windows

package lang

import (
	"errors"
	"os"
)

// openedPath fails closed: this system offers no way to read back which
// file was opened, so no file effect is judged, and none is done.
func openedPath(*os.File) (string, error) {
	return "", errors.New("this system cannot say which file was opened: file effects are refused")
}
