package codes

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestErrorsMarkdown checks that the committed docs/errors.md is what
// ErrorsMarkdown renders from Codes.
func TestErrorsMarkdown(t *testing.T) {
	committed, err := os.ReadFile("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	got := ErrorsMarkdown()
	if !bytes.Equal(got, committed) {
		gl, cl := strings.Split(string(got), "\n"), strings.Split(string(committed), "\n")
		i := 0
		for i < len(gl) && i < len(cl) && gl[i] == cl[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end of file)"
		}
		t.Errorf("docs/errors.md differs from codes.Codes at line %d; run `go generate ./codes`\nrendered:  %s\ncommitted: %s",
			i+1, line(gl), line(cl))
	}
	for _, c := range Codes {
		if !bytes.Contains(got, []byte("| "+string(c.Code)+" | "+c.Title+" | ")) {
			t.Errorf("the rendered table has no row for %s", c.Code)
		}
	}
}

// codeConstants reads errors.go and returns the values of its constants of
// type Code, in the order they are declared.
func codeConstants(t *testing.T) []Code {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []Code
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("a Code constant is not a string literal: %#v", v)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, Code(s))
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("errors.go declares no Code constants")
	}
	return out
}

// TestCodes checks the catalogue against the constants: each once, in the
// order declared, documented, and found by Info.
func TestCodes(t *testing.T) {
	consts := codeConstants(t)
	var got []Code
	seen := map[Code]int{}
	for _, c := range Codes {
		got = append(got, c.Code)
		seen[c.Code]++
	}
	if fmt.Sprint(got) != fmt.Sprint(consts) {
		t.Errorf("Codes lists %v, want the constants in order: %v", got, consts)
	}
	for i, c := range Codes {
		if seen[c.Code] != 1 {
			t.Errorf("%s appears %d times in Codes", c.Code, seen[c.Code])
		}
		if i > 0 && Codes[i-1].Code >= c.Code {
			t.Errorf("%s follows %s: Codes must be in ascending order", c.Code, Codes[i-1].Code)
		}
		if len(c.Code) != 4 || c.Code[0] != 'E' {
			t.Errorf("%q is not E and three digits", c.Code)
		}
		if c.Title == "" || c.Do == "" {
			t.Errorf("%s: empty title or what to do: %+v", c.Code, c)
		}
		if c.Exit == ExitOK {
			t.Errorf("%s exits 0", c.Code)
		}
		info, ok := Info(c.Code)
		if !ok || info != c {
			t.Errorf("Info(%s) = %+v, %v, want %+v", c.Code, info, ok, c)
		}
	}
	for _, c := range consts {
		if _, ok := Info(c); !ok {
			t.Errorf("Info does not find the constant %s", c)
		}
	}
	for _, c := range []Code{"", "E300", "E399", "E999", "e302"} {
		if info, ok := Info(c); ok {
			t.Errorf("Info(%q) = %+v, want not found", c, info)
		}
	}
}

// TestError checks how an *Error prints, wraps and is found in a chain.
func TestError(t *testing.T) {
	inner := &Error{Code: E305, Msg: "boom", Pos: "p.vel:1:2"}
	tests := []struct {
		name       string
		err        error
		wantString string
		wantCode   Code
		wantIs     error // nil to not check
	}{
		{name: "with a position", err: inner, wantString: "p.vel:1:2: E305: boom", wantCode: E305},
		{name: "without a position", err: &Error{Code: E302, Msg: "no"}, wantString: "E302: no", wantCode: E302},
		{name: "Errorf wraps with %w", err: Errorf(E314, "read %s: %w", "/x", fs.ErrNotExist),
			wantString: "E314: read /x: file does not exist", wantCode: E314, wantIs: fs.ErrNotExist},
		{name: "Errorf without %w", err: Errorf(E317, "no %d", 3), wantString: "E317: no 3", wantCode: E317},
		{name: "an *Error in a chain", err: fmt.Errorf("context: %w", inner),
			wantString: "context: p.vel:1:2: E305: boom", wantCode: E305, wantIs: inner},
		{name: "a plain error", err: errors.New("plain"), wantString: "plain", wantCode: ""},
		{name: "nil", err: nil, wantCode: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err != nil && tt.err.Error() != tt.wantString {
				t.Errorf("Error() = %q, want %q", tt.err.Error(), tt.wantString)
			}
			if got := CodeOf(tt.err); got != tt.wantCode {
				t.Errorf("CodeOf = %q, want %q", got, tt.wantCode)
			}
			if tt.wantIs != nil && !errors.Is(tt.err, tt.wantIs) {
				t.Errorf("%v does not wrap %v", tt.err, tt.wantIs)
			}
			var e *Error
			if errors.As(tt.err, &e) {
				info, _ := Info(e.Code)
				if e.Hint() != info.Do || e.Hint() == "" {
					t.Errorf("Hint() = %q, want %q", e.Hint(), info.Do)
				}
			}
		})
	}
}
