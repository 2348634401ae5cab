package sabline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/linux"
)

// readRoot prints what pathlib reads of the file ARGS[0], the kernel
// alone judging its open.
const readRoot = "print(ffi.module(\"pathlib\").read_text(ARGS[0]))\n"

// TestPoolOperatorTLSRootSwappedForALink: the operator's SSL_CERT_DIR
// names a directory, and a pool's workers hold it as a grant is. After a
// first run, another process that may write beside it (a run may not:
// Landlock refuses a confined run's symlink) swaps it for a link to a
// directory no grant names; the next run's worker, started after (pathlib
// is ffi: a worker a run), withholds it, and the next run's read of a
// file where the link leads is refused, its bytes never printed. Unmended, the worker held
// the root where it resolved when it started, the link followed, and the
// next run printed the file at level full. The control: no swap, and a
// file in the operator's root is read by the same program.
func TestPoolOperatorTLSRootSwappedForALink(t *testing.T) {
	const content = "bytes-of-a-file"
	for _, swap := range []bool{true, false} {
		name := map[bool]string{true: "swapped for a link", false: "the control: no swap"}[swap]
		t.Run(name, func(t *testing.T) {
			work := tlsRootWork(t)
			certs, elsewhere := filepath.Join(work, "w", "certs"), filepath.Join(work, "elsewhere")
			for _, d := range []string{certs, elsewhere} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, "f.pem"), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("SSL_CERT_DIR", certs)
			t.Setenv("SSL_CERT_FILE", "")
			root := importRoot(t)
			p := newPool(t, sabline.PoolOptions{
				Budget:  budget.MustParse(root, "io,net:127.0.0.1:9,ffi:pathlib"),
				Confine: sabline.ConfineStrict, ImportRoot: root, OnDemand: true, Receipts: t.TempDir()})
			run := func(file string) *sabline.Result {
				t.Helper()
				res, err := p.Run(context.Background(), sabline.Source("read.vel", []byte(readRoot)),
					sabline.RunOptions{Args: []string{file}})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			// The first run reads the operator's root, as it may.
			if res := run(filepath.Join(certs, "f.pem")); !strings.Contains(string(res.Stdout), content) {
				t.Fatalf("the first run: %q (%s %q)", res.Stdout, res.Receipt.Outcome.Code,
					res.Receipt.Outcome.Message)
			}
			target := filepath.Join(certs, "f.pem") // the control reads the operator's root
			if swap {
				if err := os.Rename(certs, certs+".old"); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(elsewhere, certs); err != nil {
					t.Fatal(err)
				}
				target = filepath.Join(elsewhere, "f.pem")
			}
			res := run(target)
			params := res.Receipt.RunParameters
			t.Logf("%q; %s: %s", res.Stdout, params.Confinement, params.ConfinementReason)
			// From outside the worker: the file's bytes in what it printed.
			if printed := strings.Contains(string(res.Stdout), content); printed == swap {
				t.Errorf("the next run printed %s: %v, want %v", target, printed, !swap)
			}
			if swap && !strings.Contains(res.Receipt.Outcome.Message, "permission denied") {
				t.Errorf("outcome %s %q, want the open refused by Landlock", res.Receipt.Outcome.Code,
					res.Receipt.Outcome.Message)
			}
			said := strings.Contains(params.ConfinementReason, "left out of the kernel's ruleset")
			if said != swap {
				t.Errorf("the receipt says a path was withheld %v, want %v", said, swap)
			}
		})
	}
}

// TestPoolOperatorTLSRootALinkFromTheStart: the operator's SSL_CERT_DIR
// names a link to a directory (as /etc/ssl/certs is on some systems)
// from before the pool started, and it is not swapped: the pool admits
// the root where the link led, and its worker, which finds it leading
// there still, holds it, so a run reads a file in it, and the receipt
// says nothing was withheld. A root admitted as written, unresolved,
// would be withheld from every worker whenever it is a link. The
// control is TestPoolOperatorTLSRootSwappedForALink's: a root swapped
// for a link after the pool started is withheld.
func TestPoolOperatorTLSRootALinkFromTheStart(t *testing.T) {
	const content = "bytes-of-a-file"
	work := tlsRootWork(t)
	real, certs := filepath.Join(work, "real-certs"), filepath.Join(work, "certs")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "f.pem"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, certs); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_DIR", certs)
	t.Setenv("SSL_CERT_FILE", "")
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{
		Budget:  budget.MustParse(root, "io,net:127.0.0.1:9,ffi:pathlib"),
		Confine: sabline.ConfineStrict, ImportRoot: root, OnDemand: true, Receipts: t.TempDir()})
	res, err := p.Run(context.Background(), sabline.Source("read.vel", []byte(readRoot)),
		sabline.RunOptions{Args: []string{filepath.Join(certs, "f.pem")}})
	if err != nil {
		t.Fatal(err)
	}
	params := res.Receipt.RunParameters
	if !strings.Contains(string(res.Stdout), content) {
		t.Errorf("a run read %q (%s %q), want the root's file", res.Stdout, res.Receipt.Outcome.Code,
			res.Receipt.Outcome.Message)
	}
	if strings.Contains(params.ConfinementReason, "left out of the kernel's ruleset") {
		t.Errorf("the receipt says a path was withheld: %s", params.ConfinementReason)
	}
}

// tlsRootWork is a directory of the test's own, its links resolved, to
// make a pool's TLS roots in; the test is skipped, saying why, where no
// Landlock holds them.
func tlsRootWork(t *testing.T) string {
	t.Helper()
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return work
}
