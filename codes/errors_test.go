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
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
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

// TestBounded: an error past the bounds (a message of two megabytes, a
// stack 45,000 frames deep, frames and a position of a megabyte) comes out
// within them, saying how much was left out, and cut again stays as it
// is; an error within them (the control) is unchanged.
func TestBounded(t *testing.T) {
	frames := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("/p/main.vel:%d:1 in f%s", i, strings.Repeat("x", size))
		}
		return out
	}
	tests := []struct {
		name       string
		err        Error
		wantFrames int
		wantMsg    string // what the bounded message holds
		wantSame   bool
	}{
		{name: "within the bounds", err: Error{Code: E302, Msg: "fs read of /x: not granted", Pos: "/p/main.vel:3:1",
			Stack: frames(30, 10)}, wantFrames: 30, wantSame: true},
		{name: "a message of two megabytes", err: Error{Code: E305, Msg: strings.Repeat("é", 1<<20)},
			wantMsg: "... (2088984 bytes more)"},
		{name: "45,000 frames", err: Error{Code: E302, Msg: "refused", Stack: frames(45000, 0)},
			wantFrames: MaxStackFrames, wantMsg: "refused"},
		{name: "frames and a position of a megabyte", err: Error{Code: E305, Msg: "x", Pos: strings.Repeat("p", 1<<20),
			Stack: frames(3, 1<<20)}, wantFrames: 3, wantMsg: "x"},
		// A byte that is not UTF-8 is written as \xNN: in JSON it became U+FFFD.
		{name: "a byte not UTF-8", err: Error{Code: E302, Msg: "fs write of /p/n\xe9/x: not granted"},
			wantMsg: `fs write of /p/n\xe9/x: not granted`},
		{name: "a megabyte not UTF-8", err: Error{Code: E305, Msg: strings.Repeat("\xe9", 1<<20)},
			wantMsg: `\xe9\xe9... (4186136 bytes more)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.err.Bounded()
			if len(got.Msg) > MaxMessageBytes || len(got.Pos) > MaxFrameBytes || len(got.Stack) > MaxStackFrames {
				t.Fatalf("message %d bytes, position %d, %d frames: past the bounds", len(got.Msg), len(got.Pos), len(got.Stack))
			}
			for _, fr := range got.Stack {
				if len(fr) > MaxFrameBytes {
					t.Fatalf("a frame of %d bytes", len(fr))
				}
			}
			if !utf8.ValidString(got.Msg) {
				t.Error("the message was cut inside a rune")
			}
			if len(got.Stack) != tt.wantFrames || !strings.Contains(got.Msg, tt.wantMsg) {
				t.Errorf("%d frames, message ending %q: want %d frames and %q", len(got.Stack),
					got.Msg[max(0, len(got.Msg)-40):], tt.wantFrames, tt.wantMsg)
			}
			same := got.Msg == tt.err.Msg && got.Pos == tt.err.Pos && slices.Equal(got.Stack, tt.err.Stack)
			if same != tt.wantSame {
				t.Errorf("unchanged: %v, want %v", same, tt.wantSame)
			}
			again := got.Bounded()
			if again.Msg != got.Msg || again.Pos != got.Pos || !slices.Equal(again.Stack, got.Stack) {
				t.Error("bounded twice, the error changed again")
			}
		})
	}
	cut := Stack(45000, func(i int) string { return fmt.Sprint(i) })
	if cut[0] != "0" || cut[stackInnermost-1] != fmt.Sprint(stackInnermost-1) || !IsStackGap(cut[stackInnermost]) ||
		cut[stackInnermost] != "... 44969 calls not recorded ..." || cut[MaxStackFrames-1] != "44999" {
		t.Errorf("cut stack %q: want the innermost %d frames, the count of the rest, and the outermost", cut, stackInnermost)
	}
	if IsStackGap("/p/main.vel:3:1 in f") || IsStackGap("... 3 calls not recorded ... more") {
		t.Error("a frame taken for the line that counts calls left out")
	}
}

// TestClipOf: the clip of a long text from its first bytes alone is the
// clip of the whole text, however many more of them were kept, and is
// cut on a rune's boundary, UTF-8 still (three-byte runes cut where the
// note leaves 8,170 bytes); a text within the bound (the control) is
// itself.
func TestClipOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    string
		max  int
	}{
		{name: "two-byte runes", s: strings.Repeat("é", 5000), max: MaxMessageBytes},
		{name: "three-byte runes", s: strings.Repeat("€", 5000), max: MaxMessageBytes},
		{name: "bytes", s: strings.Repeat("a", 100000), max: 100},
		{name: "within the bound", s: "slow down", max: 64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := Clip(tt.s, tt.max)
			for _, kept := range []int{tt.max, tt.max + 1, tt.max + 3, len(tt.s)} {
				head := tt.s[:min(kept, len(tt.s))]
				if got := ClipOf(head, len(tt.s), tt.max); got != want {
					t.Errorf("ClipOf of the first %d bytes = ...%q; want ...%q", kept,
						got[max(0, len(got)-30):], want[max(0, len(want)-30):])
				}
			}
			if (len(tt.s) <= tt.max) != (want == tt.s) || len(want) > tt.max {
				t.Errorf("Clip = %d bytes; want the text itself within the bound, else at most %d",
					len(want), tt.max)
			}
			if !utf8.ValidString(want) {
				t.Errorf("Clip = ...%q: a rune cut in two", want[max(0, len(want)-30):])
			}
		})
	}
}

// TestE326AdviceOnNone checks what E326 tells the reader of a refusal
// about --require-confinement none against what a run does with it: none
// asks for no least level, so the run goes however little is held, and
// only a run that asks for no level at all is held to the level this
// machine holds its budget at (internal/run's TestRequired, and the
// stacked-Landlock rows of checks/confine's --require-confinement specs).
func TestE326AdviceOnNone(t *testing.T) {
	info, ok := Info(E326)
	if !ok {
		t.Fatal("E326 is not in the catalogue")
	}
	for _, want := range []string{"none, which runs it however little is held",
		"a run that asks for no level is held, on Linux, to the level this machine holds"} {
		if !strings.Contains(info.Do, want) {
			t.Errorf("E326's advice %q does not say %q", info.Do, want)
		}
	}
	if strings.Contains(info.Do, "asks for none is asked") {
		t.Errorf("E326's advice %q says a run that asks for none is held to this machine's "+
			"level: such a run goes at any level", info.Do)
	}
}
