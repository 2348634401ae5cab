package buildbin

import "testing"

// TestContentOf: the name of a shared binary changes with the build tags
// and with the package, and not from one call to the next.
func TestContentOf(t *testing.T) {
	const pkg = "github.com/sabline/sabline/internal/testkit/buildbin"
	plain, err := contentOf(pkg, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := contentOf(pkg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tagged, err := contentOf(pkg, []string{"sabline_knockout"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := contentOf("github.com/sabline/sabline/codes", nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain != again {
		t.Errorf("two calls named the same build %s and %s", plain, again)
	}
	if plain == tagged || plain == other {
		t.Errorf("a change of tags or package kept the name %s", plain)
	}
}
