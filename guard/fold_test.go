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

// TestFoldDecomposed: names APFS takes for one, a letter written composed
// and decomposed, are one once decomposed and folded, as the guard
// compares them on macOS; names that differ by an accent stay two.
func TestFoldDecomposed(t *testing.T) {
	if Fold("é") == Fold("e\u0301") {
		t.Fatal("é composed and decomposed fold to one without decomposing: the cases prove nothing")
	}
	for _, tt := range []struct {
		name, a, b string
		wantSame   bool
	}{
		{name: "composed and decomposed", a: "/Users/José/.ssh", b: "/Users/Jose\u0301/.ssh",
			wantSame: true},
		{name: "and in other cases", a: "/Users/JOSÉ/.SSH", b: "/users/jose\u0301/.ssh",
			wantSame: true},
		{name: "a letter without its accent", a: "/Users/José/.ssh", b: "/Users/Jose/.ssh"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fa, fb := APFSName(tt.a), APFSName(tt.b)
			if same := fa == fb; same != tt.wantSame {
				t.Errorf("%q and %q: %q and %q, the same %v, want %v", tt.a, tt.b, fa, fb, same,
					tt.wantSame)
			}
		})
	}
}
