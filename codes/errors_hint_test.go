package codes

import (
	"strings"
	"testing"
)

// TestHint checks what to do for an error: its own Do, the words for a
// name with no definition (which is no syntax error), else the
// catalogue's.
func TestHint(t *testing.T) {
	tests := []struct {
		name   string
		err    *Error
		wantDo string
	}{
		{name: "the catalogue's", err: &Error{Code: E304, Msg: "got '=', want primary expression"}, wantDo: "Fix the error at the position the message gives"},
		{name: "an undefined name", err: &Error{Code: E304, Msg: "undefined: prnt"}, wantDo: "prnt is not defined where it is used: check its spelling"},
		{name: "an undefined name in a loaded file", err: &Error{Code: E306, Msg: "undefined: x (did you mean y?)"}, wantDo: "x is not defined where it is used"},
		{name: "the words only for compile errors", err: &Error{Code: E305, Msg: "undefined: x"}, wantDo: "the program raised the error, or an operation it made failed"},
		{name: "the error's own", err: &Error{Code: E317, Msg: "m", Do: "Give more of the run id."}, wantDo: "Give more of the run id."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Hint(); !strings.Contains(got, tt.wantDo) {
				t.Errorf("Hint() = %q, want it to hold %q", got, tt.wantDo)
			}
		})
	}
}

// TestTerminalSafe checks that every rune a terminal could act on is
// escaped, and that printable text, spaces and other scripts are kept.
func TestTerminalSafe(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "plain", in: "fs read of /tmp/a b.txt", want: "fs read of /tmp/a b.txt"},
		{name: "other scripts kept", in: "/tmp/données/日本", want: "/tmp/données/日本"},
		{name: "OSC 52 clipboard write", in: "\x1b]52;c;aGk=\x07", want: `\x1b]52;c;aGk=\x07`},
		{name: "carriage return and a fake line", in: "x\r\nsabline: ok", want: `x\r\nsabline: ok`},
		{name: "tab and DEL", in: "a\tb\x7f", want: `a\tb\x7f`},
		{name: "C1 CSI", in: "\u009b2J", want: `\u009b2J`},
		{name: "bidi override and zero-width", in: "a\u202eb\u200bc", want: `a\u202eb\u200bc`},
		{name: "invalid UTF-8", in: "a\xffb", want: `a\xffb`},
		{name: "outside the BMP, unprintable", in: "\U000e0001", want: `\U000e0001`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TerminalSafe(tt.in); got != tt.want {
				t.Errorf("TerminalSafe(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
