//go:build unix

package run

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
)

// TestGuardedNotUTF8: a run granted fs:write of a directory that holds
// its receipts directory, named r\xe9c (a name that is not UTF-8), wrote
// a file in it, at full. The worker is handed the guard's paths in JSON
// strings, where such a byte became U+FFFD: it guarded r\ufffdc, which is
// not there, and the program wrote its file in the receipts directory,
// ok. Such a budget is now refused before anything runs (E301), naming
// the location, as is one that grants every path, and one that grants a
// link to the directory that holds it, judged where it leads. The
// controls: the same run beside a receipts directory named in UTF-8
// (r\u00e9c) meets E318 at the write, and a grant of a directory beside
// r\xe9c runs and writes there.
func TestGuardedNotUTF8(t *testing.T) {
	const prog = `fs.write(io.read_line() + "/planted", "x")
print("wrote")
`
	for _, tc := range []struct {
		name, receipts, grant string
		code                  codes.Code
		said                  string
	}{
		{name: "a receipts directory not UTF-8 beneath the grant", receipts: "r\xe9c",
			grant: ".", code: codes.E301, said: `holds "` /* its path, quoted */},
		{name: "a receipts directory not UTF-8 under a grant of every path", receipts: "r\xe9c",
			grant: "*", code: codes.E301, said: `holds "`},
		{name: "a receipts directory not UTF-8 beneath a link granted", receipts: "r\xe9c",
			grant: "link", code: codes.E301, said: `holds "`},
		{name: "control: one named in UTF-8", receipts: "r\u00e9c", grant: ".",
			code: codes.E318, said: "which no grant reaches"},
		{name: "control: a grant beside it", receipts: "r\xe9c", grant: "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var receipts, target string
			item := "fs:write:" + tc.grant
			if tc.grant == "*" {
				item = "fs:write" // every path
			}
			s := superviseProgram(t, prog, []string{"io", item}, func(r *Run) {
				receipts = filepath.Join(r.Cwd, tc.receipts)
				if err := os.Mkdir(receipts, 0o700); err != nil {
					t.Skipf("this file system takes no name %q: %v", tc.receipts, err)
				}
				if err := os.Mkdir(filepath.Join(r.Cwd, "other"), 0o700); err != nil {
					t.Fatal(err)
				}
				if tc.grant == "link" { // a link to the directory that holds it
					if err := os.Symlink(r.Cwd, filepath.Join(r.Cwd, "link")); err != nil {
						t.Fatal(err)
					}
				}
				target = receipts
				if tc.grant == "other" {
					target = filepath.Join(r.Cwd, tc.grant)
				}
				// The target's name on standard input: an argument is refused
				// where it is not UTF-8.
				r.Stdin = strings.NewReader(filepath.Base(target) + "\n")
				r.Receipts, r.Guarded, r.Confine = receipts, []string{receipts}, core.ModeStrict
			})
			_, err := os.Lstat(filepath.Join(target, "planted"))
			t.Logf("outcome %s %s %q at %s, stdout %q; %s/planted: %v", s.rec.Outcome.Status,
				s.rec.Outcome.Code, s.rec.Outcome.Message, s.rec.Confinement().Level, s.stdout,
				target, err)
			if tc.code == "" {
				if s.rec.Outcome.Code != "" || err != nil {
					t.Fatalf("the control: outcome %s %q, the file %v; want it written",
						s.rec.Outcome.Code, s.rec.Outcome.Message, err)
				}
				return
			}
			wantCode(t, s, tc.code, tc.said)
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a file was written in the receipts directory %q (%v)", receipts, err)
			}
		})
	}
}
