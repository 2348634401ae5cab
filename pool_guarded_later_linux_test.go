package sabline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
)

// TestPoolGuardsWhatWasMadeSince: a pool's guarded location (a token
// file, PoolOptions.Guarded) that does not exist when the pool starts is
// written afterwards, as a server writes its token later, beside a plain
// file written at the same time. The pool's first worker, started after
// both, runs a program that writes into each through raw calls
// (ffi:ctypes under --confine strict, level full), which the language does
// not judge: the kernel alone holds them. Read from outside: the token is
// unchanged, the plain file overwritten (the control). Its worker's
// carving listed the directory the token lies in when it started, and,
// from the set the pool built before the token was there, granted it
// whole.
func TestPoolGuardsWhatWasMadeSince(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "tok")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	token, plain := filepath.Join(dir, "token.txt"), filepath.Join(dir, "plain.txt")
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:write:"+work+",ffi:ctypes"),
		Confine: sabline.ConfineStrict, ImportRoot: root, OnDemand: true, Receipts: t.TempDir(),
		Guarded: []string{token}})
	const was = "the token\n"
	for _, f := range []string{token, plain} {
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
		sabline.RunOptions{Args: []string{token, plain}})
	if err != nil {
		t.Fatal(err)
	}
	params := res.Receipt.RunParameters
	t.Logf("%s: %q; level %s", res.Receipt.Outcome.Status, res.Stdout, params.Confinement)
	if params.Confinement != "full" {
		t.Fatalf("level %s (%s), want full", params.Confinement, params.ConfinementReason)
	}
	for _, c := range []struct {
		file    string
		planted bool
	}{{token, false}, {plain, true}} {
		got, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if planted := strings.HasPrefix(string(got), "PLANTED"); planted != c.planted {
			t.Errorf("%s holds %q, read from outside: planted %v, want %v", c.file, got, planted, c.planted)
		}
	}
}
