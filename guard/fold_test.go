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

// TestAPFSFoldsInFull: a volume of APFS that ignores case folds a name
// in full, as Unicode's canonical caseless match does (xnu's
// utf8_normalizeOptCaseFold): one letter may fold to two or three (ß and
// ẞ to ss, the ligatures ﬁ and ﬅ to fi and st, ŉ to ʼn), so that the
// pairs below name one file there. APFSName takes each pair for one name;
// names APFS takes for two stay two (the controls).
func TestAPFSFoldsInFull(t *testing.T) {
	for _, tt := range []struct {
		name, a, b string
		wantSame   bool
	}{
		{name: "the sharp s", a: "/private/etc/ßh/ßh_host_ed25519_key",
			b: "/private/etc/ssh/ssh_host_ed25519_key", wantSame: true},
		{name: "the capital sharp s", a: "/etc/\u1e9eH", b: "/etc/ssh", wantSame: true},
		{name: "the ligature fi", a: "/Users/ana/Library/Application Support/\ufb01refox",
			b: "/Users/ana/Library/Application Support/Firefox", wantSame: true},
		{name: "the ligature st", a: "/Users/ana/\ufb05ore", b: "/Users/ana/store", wantSame: true},
		{name: "n after an apostrophe", a: "/Users/\u0149a", b: "/Users/\u02bcNA", wantSame: true},
		{name: "the ligature fi in a decomposed name", a: "/Users/Jose\u0301/\ufb01le",
			b: "/Users/JOSÉ/FILE", wantSame: true},
		{name: "one s for two, the control", a: "/etc/sh", b: "/etc/ssh"},
		{name: "a letter of a ligature alone, the control", a: "/Users/ana/file",
			b: "/Users/ana/fle"},
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
