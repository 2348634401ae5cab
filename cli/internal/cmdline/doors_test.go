package cmdline

import "testing"

// TestSameBuild: a door is refused for another version, commit or set of
// build tags; a build that recorded no commit is told apart by its tags
// alone (the controls: the same build, and a build of go run beside one
// that recorded its commit).
func TestSameBuild(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{name: "the same build", a: "v1.2.3 abc", b: "v1.2.3 abc", want: true},
		{name: "another commit", a: "(devel) abc", b: "(devel) def"},
		{name: "another version", a: "v1.2.3", b: "v1.2.4"},
		{name: "modified beside not", a: "(devel) abc modified", b: "(devel) abc"},
		{name: "no commit beside a commit", a: "(devel)", b: "(devel) abc modified", want: true},
		{name: "no commit on both", a: "(devel)", b: "(devel)", want: true},
		{name: "knock-out beside not", a: "(devel) tags sabline_knockout", b: "(devel)"},
		{name: "knock-out beside a commit", a: "(devel)", b: "(devel) abc tags sabline_knockout"},
		{name: "knock-out on both", a: "(devel) tags sabline_knockout", b: "(devel) abc tags sabline_knockout",
			want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameBuild(tt.a, tt.b); got != tt.want {
				t.Errorf("SameBuild(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := SameBuild(tt.b, tt.a); got != tt.want {
				t.Errorf("SameBuild(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}
