package guard

import "testing"

// TestFold: names a file system that ignores case may take for one fold
// to one string, those beyond ASCII among them, which strings.ToLower
// left apart; names it takes for two stay two.
func TestFold(t *testing.T) {
	for _, tt := range []struct {
		name, a, b string
		wantSame   bool
	}{
		{name: "ASCII cases", a: ".SSH", b: ".ssh", wantSame: true},
		{name: "the long s", a: ".config/ſops", b: ".config/SOPS", wantSame: true},
		{name: "the dotless i", a: ".fıle", b: ".file", wantSame: true},
		{name: "the Kelvin sign", a: ".\u212aube", b: ".kube", wantSame: true},
		{name: "final and medial sigma", a: "ς", b: "Σ", wantSame: true},
		{name: "a name of its own", a: ".config/tops", b: ".config/sops"},
		{name: "accents are not cases", a: ".ssé", b: ".sse"},
		{name: "lengths differ", a: ".ssh", b: ".sshh"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if same := Fold(tt.a) == Fold(tt.b); same != tt.wantSame {
				t.Errorf("Fold(%q) = %q, Fold(%q) = %q: the same %v, want %v", tt.a, Fold(tt.a),
					tt.b, Fold(tt.b), same, tt.wantSame)
			}
		})
	}
}
