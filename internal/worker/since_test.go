package worker

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"testing"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// TestSinceReadsTheMachineNow: what a pool's worker adds to the set its
// pool built (since, for guard.Set.Refresh) is the machine as it is when
// the worker starts: a store joined to the register after the set was
// built, the mount table and the home. Each is made or named here, after
// nothing was built, and each must be in it; without one, a store
// registered, a kernel surface mounted or a home made since the pool
// started is granted whole by the worker's carving. The control: a
// directory never joined is not named.
func TestSinceReadsTheMachineNow(t *testing.T) {
	reg := testkit.NewRegister(t)
	t.Setenv(guard.RegisterEnv, reg)
	home := t.TempDir()
	t.Setenv("HOME", home)
	joined, other := filepath.Join(t.TempDir(), "receipts"), filepath.Join(t.TempDir(), "plain")
	for _, d := range []string{joined, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := guard.Join(joined); err != nil {
		t.Fatal(err)
	}
	in := since()
	for _, tc := range []struct {
		name string
		path string
		want bool
	}{
		{name: "the register", path: reg, want: true},
		{name: "a store joined to it", path: joined, want: true},
		{name: "a directory never joined", path: other, want: false},
	} {
		if got := slices.Contains(in.Sabline, tc.path); got != tc.want {
			t.Errorf("%s: since names %s among Sabline's own %v: %v, want %v", tc.name, tc.path,
				in.Sabline, got, tc.want)
		}
	}
	if in.Home != home {
		t.Errorf("since's home is %q, want $HOME %q", in.Home, home)
	}
	if goruntime.GOOS == "linux" {
		if !slices.ContainsFunc(in.Mounts, func(m guard.Mount) bool { return m.Point == "/" }) {
			t.Errorf("since's mount table (%d mounts) has no mount at /: it was not read", len(in.Mounts))
		}
	}
}
