package sabline_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// TestLentThroughALink: a credential location the operator names, and
// lends, through a directory that is a link (a home that is a link to
// another disk) is guarded as written and as it resolves, one entry at
// two paths; a grant that names it reaches it by either name, in the
// language and in the kernel, and so does a grant of a link to it. Taken
// for another name of itself, it was refused before anything ran (E329),
// and the kernel's rule at it was moved onto the path through the link
// and withheld (E319). Both orders of the two paths are tried (the link's
// name sorts before its target's, and after). The witness is the
// credential's bytes, printed or not. The controls: the same credential
// lent by the name it resolves to is read; not lent, it is refused
// (E329).
func TestLentThroughALink(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	bin, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "m", "vault", "k.key"), "VAULT-KEY\n")
	for link, to := range map[string]string{"a": "m", "z": "m", "v": "m/vault"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		// named is the credential as the operator names it (and lends it),
		// granted the path the grant names, where not named.
		named, granted string
		lent           bool
	}{
		{name: "named through a link sorted before its target", named: "a/vault", lent: true},
		{name: "named through a link sorted after its target", named: "z/vault", lent: true},
		{name: "granted as a link to it", named: "m/vault", granted: "v", lent: true},
		{name: "named as it resolves (the control)", named: "m/vault", lent: true},
		{name: "named through a link, not lent (the control)", named: "a/vault"},
	} {
		for _, confine := range []sabline.Confine{sabline.ConfineDefault, sabline.ConfineOff,
			sabline.ConfineStrict} {
			t.Run(tc.name+"/"+string(confine), func(t *testing.T) {
				vault := filepath.Join(dir, tc.named)
				granted := filepath.Join(dir, cmp.Or(tc.granted, tc.named))
				lend := ""
				if tc.lent {
					lend = vault
				}
				out, code := foldCLI(t, bin, home, filepath.Join(dir, "receipts"), vault,
					"io,fs:read:"+granted, lend, confine, foldRead, filepath.Join(granted, "k.key"))
				if got := strings.Contains(out, "VAULT-KEY"); got != tc.lent {
					t.Errorf("the credential was printed %v, want %v (code %q)", got, tc.lent, code)
				}
				if !tc.lent && code != "E329" {
					t.Errorf("code %q, want E329", code)
				}
			})
		}
	}
}

// TestRemoveALinkToAGuardedLocation: a link to a guarded location (the
// receipts) in a directory a write grant reaches is an entry of that
// directory: fs.remove removes the link, not where it leads, and is
// allowed, in the language and in the kernel; the language judges the
// link's own identity, not its target's. The witnesses are read from
// outside: the link gone, the receipts and what they held still there.
// The control: the receipts' file removed through the link is refused
// (E302: the link leads outside the grant), and stays.
func TestRemoveALinkToAGuardedLocation(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	const remove = "fs.remove(ARGS[0])\nprint(\"RESULT removed\")\n"
	for _, confine := range []sabline.Confine{sabline.ConfineDefault, sabline.ConfineOff} {
		t.Run(string(confine), func(t *testing.T) {
			dir := t.TempDir()
			receipts := filepath.Join(dir, "receipts")
			old := filepath.Join(receipts, "old.json")
			writeFile(t, old, "OLD-RECEIPT\n")
			links := filepath.Join(dir, "links")
			link := filepath.Join(links, "l")
			if err := os.Mkdir(links, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(receipts, link); err != nil {
				t.Fatal(err)
			}
			run := func(arg string) (string, string) {
				opts := sabline.Options{Budget: budget.MustParse(dir, "io,fs:write:"+links),
					Args: []string{arg}, Confine: confine, Timeout: time.Minute, Receipts: receipts}
				src := sabline.Source("rm.vel", []byte(remove))
				res, err := sabline.Run(context.Background(), src, opts)
				if res == nil {
					t.Fatalf("no result: %v", err)
				}
				o := res.Receipt.Outcome
				t.Logf("fs.remove(%s): %s %s: %s; %q", arg, o.Status, o.Code, o.Message, res.Stdout)
				return string(res.Stdout), string(o.Code)
			}
			// The control first: the receipt through the link.
			out, code := run(filepath.Join(link, "old.json"))
			if strings.Contains(out, "removed") || code == "" {
				t.Errorf("the receipt removed through the link: %q, code %q; want a refusal", out,
					code)
			}
			if _, err := os.Stat(old); err != nil {
				t.Errorf("the receipt is gone: %v", err)
			}
			if out, code = run(link); !strings.Contains(out, "removed") {
				t.Errorf("the link to the receipts was not removed: %q, code %q", out, code)
			}
			if _, err := os.Lstat(link); err == nil {
				t.Errorf("the link %s is still there", link)
			}
			if _, err := os.Stat(old); err != nil {
				t.Errorf("the receipt is gone with the link: %v", err)
			}
		})
	}
}
