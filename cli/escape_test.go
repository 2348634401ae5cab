package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// hostile is text a program's author controls (its file name, its
// # allow: line, the paths it names) made to act on a terminal: a
// clipboard write (OSC 52), a carriage return and a line that pretends to
// be Sabline's, a bell, a C1 control and a bidirectional override.
const hostile = "x\x1b]52;c;aGk=\x07\r\nsabline: ok\u009b2J\u202e"

// rawControl reports whether s holds a rune a terminal could act on: a
// control character other than the newline, or a format character.
func rawControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return r != '\n' && r != ' ' && !unicode.IsPrint(r)
	}) >= 0
}

// TestAuditOutputEscaped checks that audit, in text and in JSON, prints a
// hostile program name and declaration escaped, and that the text names
// the escapes where the raw bytes were.
func TestAuditOutputEscaped(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, hostile+".vel")
	src := "# allow: io,fs:read:" + hostile + "\nprint(1)\n"
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		// Windows refuses control characters in a name: the
		// declaration alone carries them there.
		t.Logf("this file system refuses the name (%v): a plain name, the hostile declaration", err)
		prog = filepath.Join(dir, "hostile.vel")
		if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"audit", prog}, {"audit", "--json", prog}} {
		var stdout, stderr bytes.Buffer
		status := Main(args, nil, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if status != 0 {
			t.Fatalf("%q: exit %d\n%s", args, status, out)
		}
		if rawControl(out) {
			t.Errorf("%q printed a raw control character:\n%q", args, out)
		}
		for _, want := range []string{`\u001b]52;c;aGk=`, `\u0007`} {
			if args[1] == "--json" && !strings.Contains(out, want) {
				t.Errorf("%q: the JSON does not hold %s:\n%s", args, want, out)
			}
		}
		if args[1] != "--json" {
			for _, want := range []string{`\x1b]52;c;aGk=\x07\r\nsabline: ok\u009b2J\u202e`} {
				if !strings.Contains(out, want) {
					t.Errorf("%q: the text does not hold %s:\n%s", args, want, out)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "sabline: ok") {
					t.Errorf("%q: a line of the program's making: %q", args, line)
				}
			}
		}
	}
}

// TestReceiptsOutputEscaped checks that receipts list, show and diff print
// a receipt whose program path a program could have chosen (a file name
// in a submission) with every control character escaped.
func TestReceiptsOutputEscaped(t *testing.T) {
	rc := t.TempDir()
	for i, level := range []core.Level{core.Full, core.None} {
		rec := receipt.New("/srv/"+hostile+".vel", budget.Budget{}, nil)
		rec.Timings.Started = time.Now().UTC().Add(time.Duration(i) * time.Second)
		rec.SetConfinement(core.Result{Level: level, Reason: "as held " + hostile})
		rec.Outcome = receipt.Outcome{Status: receipt.StatusFailed, Code: codes.E305, Message: hostile}
		if _, err := rec.Write(rc); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"receipts", "list"}, {"receipts", "diff"}, {"receipts", "show", "last"}, {"receipts", "list", "--json"}} {
		var stdout, stderr bytes.Buffer
		Main(append(args, "--receipts", rc), nil, &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if rawControl(out) {
			t.Errorf("%q printed a raw control character:\n%q", args, out)
		}
		if !strings.Contains(out, "52;c;aGk=") {
			t.Errorf("%q does not show the program's path:\n%s", args, out)
		}
	}
}
