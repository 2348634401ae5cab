//go:build unix

package tenant

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// TestLoadANamedPipe: a named pipe at the tenants file's name is refused,
// not waited on (it held serve's start, and a reload, until a writer
// came). The controls are the other Load tests: a regular file is read.
func TestLoadANamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tenants.json")
	err := testkit.FIFONotWaitedOn(t, path, func() error {
		_, err := Load(path, Scope{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load of a named pipe: %v, want it refused: not a regular file", err)
	}
}
