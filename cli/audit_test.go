package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/sabline/sabline/runtime"
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

// TestAuditSafeCommand checks that the safe command audit prints names
// the directory to run it in, absolute, whatever directory audit ran in,
// and that the budget's relative paths are read there.
func TestAuditSafeCommand(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "job", "report.vel")
	if err := os.MkdirAll(filepath.Join(dir, "job", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, []byte("# allow: io,fs:read:data\nprint(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	if status := Main([]string{"audit", filepath.Join("job", "report.vel")}, nil, &stdout, &stderr); status != 0 {
		t.Fatalf("exit %d: %s", status, stderr.String())
	}
	abs, err := filepath.Abs("job")
	if err != nil {
		t.Fatal(err)
	}
	want := "safe command:  cd " + runtime.ShellQuote(abs) + " && sabline report.vel --allow io,fs:read:data\n"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("audit printed\n%s\nwant the line %q", stdout.String(), want)
	}
	stdout.Reset()
	if status := Main([]string{"audit", "--json", filepath.Join("job", "report.vel")}, nil, &stdout, &stderr); status != 0 {
		t.Fatalf("exit %d: %s", status, stderr.String())
	}
	for _, want := range []string{`"run_in": "job"`, `"safe_command": "sabline report.vel --allow io,fs:read:data"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("audit --json does not hold %s (it stays relative, the same on every machine):\n%s", want, stdout.String())
		}
	}
}
