package sabline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// TestPoolOperatorTLSRootNotUTF8: the operator's SSL_CERT_DIR names a
// directory whose name is not UTF-8, c\xe9rts. The pool admits it as it
// resolves, and hands its worker that path in a JSON string, where the
// byte became U+FFFD: the worker, which reads the root from its
// environment as it is, found no admitted path for it, so that a link
// swapped in for it after the pool started was followed, and a run
// printed a file where the link led, at full. Such a pool is refused
// now (E301), naming the root. The control is
// TestPoolOperatorTLSRootSwappedForALink's: a root named in UTF-8,
// swapped, is withheld.
func TestPoolOperatorTLSRootNotUTF8(t *testing.T) {
	const content = "bytes-of-a-file"
	work := tlsRootWork(t)
	certs, elsewhere := filepath.Join(work, "c\xe9rts"), filepath.Join(work, "elsewhere")
	for _, d := range []string{certs, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("this file system takes no name %q: %v", d, err)
		}
		if err := os.WriteFile(filepath.Join(d, "f.pem"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("SSL_CERT_DIR", certs)
	t.Setenv("SSL_CERT_FILE", "")
	root := importRoot(t)
	p, err := sabline.NewPool(sabline.PoolOptions{
		Budget:  budget.MustParse(root, "io,net:127.0.0.1:9,ffi:pathlib"),
		Confine: sabline.ConfineStrict, ImportRoot: root, OnDemand: true, Receipts: t.TempDir()})
	if err == nil {
		defer p.Close()
		// What the pool admitted is then held: the root swapped for a
		// link, a run reads where it leads.
		if err := os.Rename(certs, certs+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, certs); err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), sabline.Source("read.vel", []byte(readRoot)),
			sabline.RunOptions{Args: []string{filepath.Join(elsewhere, "f.pem")}})
		if err != nil {
			t.Fatal(err)
		}
		t.Fatalf("the pool started; once its root was swapped for a link, a run printed %q "+
			"(%s %q) at %s", res.Stdout, res.Receipt.Outcome.Code, res.Receipt.Outcome.Message,
			res.Receipt.RunParameters.Confinement)
	}
	t.Logf("NewPool: %v", err)
	if codes.CodeOf(err) != codes.E301 || !strings.Contains(err.Error(), `c\xe9rts`) ||
		!strings.Contains(err.Error(), "not UTF-8") {
		t.Fatalf("NewPool: %v, want E301 naming the root", err)
	}
}
