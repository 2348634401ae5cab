package guard

import (
	"path"
	"testing"
)

// TestLiteral: a name handed to the set as a pattern (which reads a last
// element with *, ? or [ as a pattern) matches that name and no other:
// a[1].vel guarded as a pattern held a1.vel, a library, and not itself.
// The control: a name with none of them is handed as it is.
func TestLiteral(t *testing.T) {
	for _, tt := range []struct{ name, other string }{
		{"a[1].vel", "a1.vel"},
		{"l*.vel", "lx.vel"},
		{"q?.vel", "qx.vel"},
		{`b\*.vel`, `bx*.vel`},
		{"[!x].vel", "y.vel"},
		{"ab].vel", "ab.vel"},
	} {
		p := Literal(tt.name)
		if ok, err := path.Match(p, tt.name); !ok || err != nil {
			t.Errorf("%q as %q does not match itself (%v)", tt.name, p, err)
		}
		if ok, _ := path.Match(p, tt.other); ok {
			t.Errorf("%q as %q matches %q", tt.name, p, tt.other)
		}
	}
	if got := Literal(`plain\name.vel`); got != `plain\name.vel` {
		t.Errorf("a name with no pattern character: %q, want it as it is", got)
	}
}
