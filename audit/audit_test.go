package audit

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/codes"
)

var updateAudit = flag.Bool("update-audit", false, "rewrite testdata/audit/*.json from the code")

// TestAuditGolden holds `sabline audit --json` of the examples to
// committed bytes. The audit reads nothing of the machine, so the same
// golden must match on every operating system's CI leg: a byte that
// depended on the system, the home directory or the working directory
// would fail there.
func TestAuditGolden(t *testing.T) {
	tests := []struct {
		name    string
		program string // relative to the repository root, as an operator types it
		allow   []string
		mode    core.Mode
	}{
		{name: "hello", program: "examples/hello.vel"},
		{name: "report", program: "examples/report/report.vel"},
		{name: "client", program: "examples/client.vel"},
		{name: "tool", program: "examples/tool.vel"},
		{name: "report-strict-ffi", program: "examples/report/report.vel", allow: []string{"io,fs:read:data,ffi:pathlib"}, mode: core.ModeStrict},
		{name: "hello-ffi-os", program: "examples/hello.vel", allow: []string{"io,ffi:os"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(tc.program)))
			if err != nil {
				t.Fatal(err)
			}
			a, err := MakeAudit(tc.program, src, tc.allow, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			got := a.JSON()
			again, err := MakeAudit(tc.program, src, tc.allow, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, again.JSON()) {
				t.Fatalf("two audits of %s differ", tc.program)
			}
			golden := filepath.Join("testdata", "audit", tc.name+".json")
			if *updateAudit {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./audit -run TestAuditGolden -update-audit)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("audit of %s differs from %s:\n%s", tc.program, golden, got)
			}
		})
	}
}

// TestAuditIgnoresTheMachine makes the same audit under another working
// directory, home and environment: the bytes must not move.
func TestAuditIgnoresTheMachine(t *testing.T) {
	src := []byte("# allow: io,fs:read:data,net:localhost:8080\nprint(1)\n")
	first, err := MakeAudit("p.vel", src, nil, core.ModeDefault)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
	second, err := MakeAudit("p.vel", src, nil, core.ModeDefault)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.JSON(), second.JSON()) {
		t.Fatalf("the audit moved with the machine:\n%s\n%s", first.JSON(), second.JSON())
	}
}

// TestAuditAllowReplacesTheDeclared: --allow, of one item or more, is the
// budget audited in place of the program's own # allow: line, and the
// safe command grants it; the control, no --allow, audits the declared
// one. A golden alone (TestAuditGolden) holds this only as bytes to
// regenerate.
func TestAuditAllowReplacesTheDeclared(t *testing.T) {
	src := []byte("# allow: io,fs:read:data\nprint(1)\n")
	for _, tt := range []struct {
		name  string
		allow []string
		want  string
	}{
		{name: "one item", allow: []string{"io"}, want: "io"},
		{name: "two items", allow: []string{"io", "clock"}, want: "io,clock"},
		{name: "none: the declared (the control)", want: "io,fs:read:data"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := MakeAudit("p.vel", src, tt.allow, core.ModeDefault)
			if err != nil {
				t.Fatal(err)
			}
			if a.Audited != tt.want || a.Declared != "io,fs:read:data" ||
				a.SafeCommand != "sabline p.vel --allow "+ShellQuote(tt.want) {
				t.Fatalf("audited %q, declared %q, safe command %q; want %s audited, the "+
					"declared kept, and the command granting it", a.Audited, a.Declared,
					a.SafeCommand, tt.want)
			}
		})
	}
}

func TestDeclaredBudget(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantText string
		wantErr  bool
	}{
		{name: "first line", src: "# allow: io,rand@2\nprint(1)\n", wantText: "io,rand@2"},
		{name: "after other comments", src: "#!/usr/bin/env sabline\n# a program\n# allow: io\n", wantText: "io"},
		{name: "none", src: "print(1)\n", wantText: ""},
		{name: "after code is not read", src: "print(1)\n# allow: io\n", wantText: ""},
		{name: "malformed", src: "# allow: io,fs:bogus\n", wantErr: true},
		{name: "after a comment longer than a scanner's line", src: "# " + strings.Repeat("x", 70000) + "\n# allow: fs,net\n", wantText: "fs,net"},
		// The line is the program's: past the bound it is refused before
		// it is parsed or a policy derived (which costs the square of its
		// items); at the bound it is read.
		{name: "items at the bound", src: "# allow: " + strings.Repeat("io,", maxDeclaredItems-1) + "io\n",
			wantText: strings.Repeat("io,", maxDeclaredItems-1) + "io"},
		{name: "items past the bound", src: "# allow: " + strings.Repeat("io,", maxDeclaredItems) + "io\n", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, _, err := DeclaredBudget([]byte(tc.src))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				if codes.CodeOf(err) != codes.E301 {
					t.Fatalf("code = %s, want E301", codes.CodeOf(err))
				}
				return
			}
			if text != tc.wantText {
				t.Fatalf("declared %q, want %q", text, tc.wantText)
			}
		})
	}
}

// FuzzDeclaredBudget: whatever a program's text, DeclaredBudget ends with
// a declaration the text holds, or none, or E301; never anything else.
func FuzzDeclaredBudget(f *testing.F) {
	for _, seed := range []string{"# allow: io,rand@2\nprint(1)\n", "#!/x\n# allow: fs:read:/tmp\n", "print(1)\n# allow: io\n",
		"# allow: io,fs:bogus\n", "# " + strings.Repeat("x", 70000) + "\n# allow: net\n", "#allow:\r\n", ""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		text, _, err := DeclaredBudget(src)
		if err != nil {
			if codes.CodeOf(err) != codes.E301 {
				t.Fatalf("error %v, want E301", err)
			}
			return
		}
		if !strings.Contains(string(src), text) {
			t.Fatalf("declared %q, which the text does not hold", text)
		}
	})
}

// TestShellQuote: what ShellQuote prints, given to a shell, is the
// string itself, a control character and a byte that is not UTF-8 among
// them (they were quoted as they are, and a terminal's escaping of them
// made the pasted line name another file); the control: a plain name is
// left bare and one with a space or a quote is single-quoted.
func TestShellQuote(t *testing.T) {
	tests := []struct {
		name, s string
		want    string // the quoting, "" when only the shell's reading of it is checked
	}{
		{name: "plain", s: "hello.vel", want: "hello.vel"},
		{name: "space and quote", s: "it's here", want: `'it'\''s here'`},
		{name: "space", s: "my program.vel", want: `'my program.vel'`},
		{name: "escape", s: "a\x1b[2Jb.vel", want: `$'a\x1b[2Jb.vel'`},
		{name: "newline, backslash and quote", s: "a\nb\\c'd", want: `$'a\x0ab\\c\'d'`},
		{name: "not UTF-8", s: "a\xffb"},
		{name: "bidi override", s: "a\u202eb.vel"},
		{name: "empty", s: "", want: "''"},
	}
	bash, err := exec.LookPath("bash")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ShellQuote(tt.s)
			if tt.want != "" && q != tt.want {
				t.Errorf("ShellQuote(%q) = %s, want %s", tt.s, q, tt.want)
			}
			if codes.TerminalSafe(q) != q {
				t.Errorf("ShellQuote(%q) = %q: a terminal would not print it as it is", tt.s, q)
			}
			if err != nil {
				t.Skip("no bash to read the quoting back: ", err)
			}
			out, err := exec.Command(bash, "-c", "printf %s "+q).Output()
			if err != nil || string(out) != tt.s {
				t.Errorf("bash read %s as %q (%v), want %q", q, out, err, tt.s)
			}
		})
	}
}

// TestAuditStrictSaysSo: an audit in strict mode says it in each part an
// operator acts on, beside the same audit in the default mode (the
// control): the command that grants the budget asks for strict, so that
// the run it starts is held as audited, and the OS policy is strict's,
// which a granted module widens nothing of. Before, only the golden of
// report-strict-ffi held either, and a golden is regenerated whenever a
// change is meant.
func TestAuditStrictSaysSo(t *testing.T) {
	src := []byte("# allow: io,ffi:pathlib\nprint(1)\n")
	const allow = "io,fs:read:data,ffi:pathlib"
	for _, tt := range []struct {
		mode    core.Mode
		strict  bool
		widened bool
	}{
		{mode: core.ModeStrict, strict: true},
		{mode: core.ModeDefault, widened: true},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			a, err := MakeAudit("p.vel", src, []string{allow}, tt.mode)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.HasSuffix(a.SafeCommand, " --confine strict"); got != tt.strict {
				t.Errorf("safe command %q: asks for strict %v, want %v", a.SafeCommand, got,
					tt.strict)
			}
			if a.Strict != tt.strict {
				t.Errorf("strict %v, want %v", a.Strict, tt.strict)
			}
			var p struct {
				Strict    bool              `json:"strict"`
				WidenedBy []json.RawMessage `json:"widened_by"`
			}
			if err := json.Unmarshal(a.OSPolicy, &p); err != nil {
				t.Fatal(err)
			}
			if p.Strict != tt.strict || (len(p.WidenedBy) > 0) != tt.widened ||
				(len(a.WidenedBy) > 0) != tt.widened {
				t.Errorf("the OS policy: strict %v, widened by %d modules (the audit says %d); "+
					"want strict %v, widened %v", p.Strict, len(p.WidenedBy), len(a.WidenedBy),
					tt.strict, tt.widened)
			}
		})
	}
}
