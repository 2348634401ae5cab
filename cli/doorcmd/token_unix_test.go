//go:build unix

package doorcmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestLoadTokenANamedPipe: a named pipe at the token file's name is
// refused (E301, not a regular file), not waited on: opened for reading,
// it held serve's start until a writer came. The control is
// TestLoadTokenOwnedByAnother's: a regular file is read.
func TestLoadTokenANamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	err := testkit.FIFONotWaitedOn(t, path, func() error {
		_, _, err := loadToken(path, false)
		return err
	})
	if codes.CodeOf(err) != codes.E301 || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("loadToken of a named pipe: %v, want E301, not a regular file", err)
	}
}
