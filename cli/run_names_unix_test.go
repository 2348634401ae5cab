//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestRunNamesNotUTF8: a program path, a working directory or an
// argument that is not UTF-8 is refused before the worker starts, E316
// for the path and E301 for the others, with the receipt of its refusal
// and the name quoted in the message, escaped. The worker is handed each
// in a JSON string, and before a byte that is not UTF-8 reached it as
// U+FFFD: the program /dir/p\xff.vel was E316 "no such file or
// directory" though it was there, the argument x\xffy reached the
// program as the five bytes "x\ufffdy", and a relative read from the
// working directory /dir/w\xff was read in /dir/w\ufffd. The control of
// each is the same run with a name beyond ASCII in UTF-8 (é), which runs.
func TestRunNamesNotUTF8(t *testing.T) {
	for _, tt := range []struct {
		name string
		code codes.Code
		want string // in the refusal's message
	}{
		{name: "program path", code: codes.E316, want: `its path is not UTF-8`},
		{name: "argument", code: codes.E301, want: `argument 1, "x\xffy", is not UTF-8`},
		{name: "working directory", code: codes.E301, want: `is not UTF-8, which the worker`},
	} {
		for _, odd := range []string{"\xff", "\u00e9"} {
			control, name := odd != "\xff", tt.name
			if control {
				name += " in UTF-8"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				rc := filepath.Join(dir, "receipts")
				wd := filepath.Join(dir, "w")
				if tt.name == "working directory" {
					wd += odd
				}
				// A name of each case's, to see that this file system
				// takes it (macOS's takes no name that is not UTF-8).
				if err := os.Mkdir(filepath.Join(dir, "d"+odd), 0o700); err != nil {
					t.Skipf("this file system takes no name %q: %v", "d"+odd, err)
				}
				if err := os.Mkdir(wd, 0o700); err != nil {
					t.Fatal(err)
				}
				prog := filepath.Join(dir, "p.vel")
				text := "print(ARGS[0], len(ARGS[0]))\n"
				args := []string{"--allow", "io", "--receipts", rc}
				var progArgs []string
				wantOut := ""
				switch tt.name {
				case "program path":
					prog, text, wantOut = filepath.Join(dir, "p"+odd+".vel"), "print(\"ran\")\n", "ran\n"
				case "argument":
					progArgs = []string{"--", "x" + odd + "y"}
					wantOut = "x" + odd + "y 4\n"
				case "working directory":
					text = "print(fs.read(\"in.txt\"))\n"
					args[1] = "io,fs:read:" + dir
					wantOut = "INSIDE\n"
					if err := os.WriteFile(filepath.Join(wd, "in.txt"), []byte("INSIDE"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(prog, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
				t.Chdir(wd)
				var out, errb bytes.Buffer
				status := Main(append(append(args, prog), progArgs...), strings.NewReader(""), &out,
					&errb)
				runs, err := receipt.List(rc)
				if err != nil || len(runs) != 1 {
					t.Fatalf("want one receipt in %s, got %d (%v); stderr:\n%s", rc, len(runs), err,
						errb.String())
				}
				o := runs[0].Receipt.Outcome
				if control {
					if status != 0 || out.String() != wantOut {
						t.Fatalf("the control: status %d, stdout %q, want 0 and %q; stderr:\n%s",
							status, out.String(), wantOut, errb.String())
					}
					return
				}
				wantSaid := string(tt.code) + ": "
				if status != codes.ExitUsage || o.Code != tt.code || out.Len() != 0 ||
					!strings.Contains(errb.String(), wantSaid) ||
					!strings.Contains(o.Message, tt.want) {
					t.Fatalf("status %d, outcome %s %q, stdout %q, stderr:\n%s\nwant %d, %s with %q, "+
						"nothing run", status, o.Code, o.Message, out.String(), errb.String(),
						codes.ExitUsage, tt.code, tt.want)
				}
				if strings.Contains(errb.String(), "\xff") || strings.Contains(errb.String(), "\ufffd") {
					t.Errorf("the refusal prints the name's byte raw, or as U+FFFD:\n%s", errb.String())
				}
			})
		}
	}
}

// TestRunGrantThroughALinkNotUTF8: a grant of a link whose target's path
// is not UTF-8 is refused before the worker starts, E301 naming the
// grant and where it leads, with the receipt of its refusal, and the
// program writes nothing. The worker is handed where each grant
// resolved in a JSON string, and before, the byte reached it as U+FFFD:
// it withheld the grant from the kernel's ruleset as one "a link was
// made on its way after the run was admitted", which no one had made,
// and the program's write the grant allowed was E319. The control: the
// same grant of a link to a directory in UTF-8 beyond ASCII (é), where
// the write lands.
func TestRunGrantThroughALinkNotUTF8(t *testing.T) {
	for _, odd := range []string{"\xff", "\u00e9"} {
		control := odd != "\xff"
		name := "not UTF-8"
		if control {
			name = "in UTF-8"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			target, link := filepath.Join(dir, "t"+odd), filepath.Join(dir, "lnk")
			if err := os.Mkdir(target, 0o700); err != nil {
				t.Skipf("this file system takes no name %q: %v", "t"+odd, err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			prog, rc := filepath.Join(dir, "w.vel"), filepath.Join(dir, "receipts")
			text := "fs.write(\"" + link + "/f.txt\", \"x\")\nprint(\"wrote\")\n"
			if err := os.WriteFile(prog, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			status := Main([]string{"--allow", "io,fs:write:" + link, "--receipts", rc, prog},
				strings.NewReader(""), &out, &errb)
			_, statErr := os.Stat(filepath.Join(target, "f.txt"))
			if control {
				if status != 0 || out.String() != "wrote\n" || statErr != nil {
					t.Fatalf("the control: status %d, stdout %q, the file: %v; stderr:\n%s", status,
						out.String(), statErr, errb.String())
				}
				return
			}
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("want one receipt in %s, got %d (%v); stderr:\n%s", rc, len(runs), err,
					errb.String())
			}
			o := runs[0].Receipt.Outcome
			if status != codes.ExitUsage || o.Code != codes.E301 || out.Len() != 0 ||
				!strings.Contains(o.Message, "leads to "+strconv.Quote(target)+", a path that is not UTF-8") ||
				strings.Contains(errb.String(), "\xff") {
				t.Fatalf("status %d, outcome %s %q, stdout %q, stderr:\n%s\nwant 2, E301 naming where "+
					"the grant leads, escaped, nothing run", status, o.Code, o.Message, out.String(),
					errb.String())
			}
			if !os.IsNotExist(statErr) {
				t.Errorf("the file the program writes: %v, want none", statErr)
			}
		})
	}
}
