package guard

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/cases"
)

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

// TestAPFSNameAsCasesFold: APFSName, which folds in full by a table of
// its own (fullFolds, made by genfold), names every rune and each of
// 200,000 random names as it would with golang.org/x/text/cases's full
// folding, the reference the table is made from. Names are drawn from
// runes a fold or a decomposition moves (the table's, letters of every
// case, combining marks of several classes, Greek, the ligatures) among
// ASCII, and bytes that are not UTF-8.
func TestAPFSNameAsCasesFold(t *testing.T) {
	fold := cases.Fold()
	want := func(p string) string { return Fold(decompose(fold.String(decompose(p)))) }
	differ := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if s := string(r); APFSName(s) != want(s) {
			if differ++; differ <= 5 {
				t.Errorf("%U %q: %q, want %q", r, s, APFSName(s), want(s))
			}
		}
	}
	var pool []string
	for _, f := range fullFolds {
		pool = append(pool, string(f.r))
	}
	pool = append(pool, "a", "s", "S", "I", "i", "K", "/", ".", "\u0131", "\u017f", "\u212a",
		"\u0301", "\u0308", "\u0345", "\u0307", "\u0331", "\u0313", "\u03b9", "\u0399",
		"\u1fbe", "\u00e9", "\u00c5", "\u212b", "\u01c5", "\u1f80", "\u1fb3", "\u1fbc",
		"\xff", "\xc3", "\u00b5", "\u03c2", "\u03a3", "\ufb00", "\ufb01", "\ufb06")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pool[rng.IntN(len(pool))])
		}
		if s := b.String(); APFSName(s) != want(s) {
			if differ++; differ <= 10 {
				t.Errorf("%q: %q, want %q", s, APFSName(s), want(s))
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d names folded apart from cases.Fold's", differ)
	}
}
