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
// r\xe9c runs and writes there, as does one of the directory beside it
// named r\ufffdc, the path r\xe9c's byte became in JSON: the worker was
// handed r\ufffdc to guard, and refused its write there (E318,
// "Sabline's receipts").
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
		{name: "a grant of r\ufffdc beside it", receipts: "r\xe9c", grant: "r\ufffdc"},
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
				if tc.grant == "link" { // a link to the directory that holds it
					if err := os.Symlink(r.Cwd, filepath.Join(r.Cwd, "link")); err != nil {
						t.Fatal(err)
					}
				}
				target = receipts
				if tc.grant != "." && tc.grant != "*" && tc.grant != "link" {
					target = filepath.Join(r.Cwd, tc.grant)
					if err := os.Mkdir(target, 0o700); err != nil {
						t.Fatal(err)
					}
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

// TestRefusedPathNotUTF8Recorded: a program's write refused at a path
// that is not UTF-8, n\xe9/x (its name read from standard input), was
// recorded as refused at n\ufffd/x: the worker's record and the receipt
// are JSON, whose strings hold only UTF-8, and the receipt on the disk
// named another file than the one the program wrote. It names n\xe9/x
// now, as the terminal does. The control: a path named in UTF-8,
// n\u00e9/x, is recorded as it is.
func TestRefusedPathNotUTF8Recorded(t *testing.T) {
	const prog = `fs.write(io.read_line(), "x")` + "\n"
	for _, tc := range []struct{ name, want string }{
		{name: "n\xe9", want: `n\xe9/x`},
		{name: "control: n\u00e9", want: "n\u00e9/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := superviseProgram(t, prog, []string{"io", "fs:write:out"}, func(r *Run) {
				name := strings.TrimPrefix(tc.name, "control: ")
				r.Stdin = strings.NewReader(filepath.Join(r.Cwd, name, "x") + "\n")
			})
			got := s.stored(t).Outcome // from the disk
			t.Logf("outcome %s %q", got.Code, got.Message)
			if got.Code != codes.E302 || !strings.Contains(got.Message, "/"+tc.want+":") ||
				strings.ContainsRune(got.Message, '\uFFFD') {
				t.Fatalf("the receipt's outcome %s %q: want E302 naming %s", got.Code, got.Message,
					tc.want)
			}
		})
	}
}
