package sabline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/guard"
)

// TestPoolGuardsWhatWasMadeSince: a location no grant may reach that
// is made after a pool started (a token file the pool guards,
// PoolOptions.Guarded, written as a server writes its token later; another
// Sabline's store joined to the register) is written beside a plain file
// at the same time. The pool's first worker, started after both, runs a
// program that writes into each through raw calls (ffi:ctypes under
// --confine strict, level full), which the language does not judge: the
// kernel alone holds them. Read from outside: the guarded file is
// unchanged, the plain one overwritten (the control). Without the
// worker's refresh of its pool's set, its carving granted the guarded
// file whole; without the register's setting among a worker's
// variables, it read the machine's default register, not the operator's.
func TestPoolGuardsWhatWasMadeSince(t *testing.T) {
	tests := []struct {
		name string
		// made makes the guarded file in dir after the pool started,
		// and returns it; guarded is what the pool is told to guard.
		made    func(t *testing.T, dir string) string
		guarded func(dir string) []string
	}{
		{name: "a token written since",
			guarded: func(dir string) []string { return []string{filepath.Join(dir, "token.txt")} },
			made: func(t *testing.T, dir string) string {
				return filepath.Join(dir, "token.txt")
			}},
		{name: "a store registered since",
			guarded: func(string) []string { return nil },
			made: func(t *testing.T, dir string) string {
				store := filepath.Join(dir, "store")
				if err := os.Mkdir(store, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := guard.Join(store); err != nil { // the test's own register (RunApart)
					t.Fatal(err)
				}
				return filepath.Join(store, "r.json")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(work, "tok")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			root := importRoot(t)
			p := newPool(t, sabline.PoolOptions{
				Budget:  budget.MustParse(root, "io,fs:write:"+work+",ffi:ctypes"),
				Confine: sabline.ConfineStrict, ImportRoot: root, OnDemand: true,
				Receipts: t.TempDir(), Guarded: tt.guarded(dir)})
			guarded, plain := tt.made(t, dir), filepath.Join(dir, "plain.txt")
			const was = "was there\n"
			for _, f := range []string{guarded, plain} {
				if err := os.WriteFile(f, []byte(was), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			const src = `c = ffi.module("ctypes")
for f in ARGS:
    fd = c.syscall("open", f, 0o2000001)  # O_WRONLY|O_CLOEXEC
    if fd.errno:
        print(f, fd.errno)
    else:
        print(f, "written", c.syscall("write", fd.ret, "PLANTED", 7).ret)
`
			res, err := p.Run(context.Background(), sabline.Source("plant.vel", []byte(src)),
				sabline.RunOptions{Args: []string{guarded, plain}})
			if err != nil {
				t.Fatal(err)
			}
			params := res.Receipt.RunParameters
			t.Logf("%s: %q; level %s", res.Receipt.Outcome.Status, res.Stdout, params.Confinement)
			if params.Confinement != "full" {
				t.Fatalf("level %s (%s), want full", params.Confinement, params.ConfinementReason)
			}
			for _, c := range []struct {
				file        string
				wantPlanted bool
			}{{guarded, false}, {plain, true}} {
				got, err := os.ReadFile(c.file)
				if err != nil {
					t.Fatal(err)
				}
				if planted := strings.HasPrefix(string(got), "PLANTED"); planted != c.wantPlanted {
					t.Errorf("%s holds %q, read from outside: planted %v, want %v", c.file, got,
						planted, c.wantPlanted)
				}
			}
		})
	}
}
