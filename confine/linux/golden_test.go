package linux

import (
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/internal/testkit/goldenfile"
)

// golden compares got with testdata/dir/name.golden, or rewrites it under
// -update (go test ./confine/linux -run Golden -update, then read the diff).
func golden(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", dir, name+".golden"), got)
}
