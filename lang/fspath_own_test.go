package lang

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestOwnDescriptorsByPath: the run's own standard output, a file in the
// grant here, is refused by its path (use io) and left as it was; the
// file beside it, under the same grant, is written.
func TestOwnDescriptorsByPath(t *testing.T) {
	g := testkit.Scratch(t)
	own, beside := filepath.Join(g, "out.txt"), filepath.Join(g, "beside.txt")
	f, err := os.Create(own)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdout
	os.Stdout = f // the process's standard output, as a worker's is
	defer func() { os.Stdout = saved }()
	c := Config{Budget: budget.MustParse(g, "fs:write:"+g), Cwd: g}
	if r := runSrc(t, c, `fs.write("`+beside+`", "x")`); r.err != nil {
		t.Fatalf("the file beside: %v", r.err)
	}
	if data, err := os.ReadFile(beside); err != nil || string(data) != "x" {
		t.Errorf("the file beside holds %q (%v), want x", data, err)
	}
	r := runSrc(t, c, `fs.write("`+own+`", "forged")`)
	testkit.WantError(t, r.err, codes.E302, r.prog+":1:9", "use io")
	if data, _ := os.ReadFile(own); len(data) != 0 {
		t.Errorf("the run's own output holds %q: the write went through", data)
	}
}
