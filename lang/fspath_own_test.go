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

// TestNullDeviceIsNobodysOwn: a standard descriptor or a relayed file that
// is the null device (a worker given no input has it) is not the run's
// own: a read of it under a grant goes through, where an effect on the
// run's own output is refused (TestOwnDescriptorsByPath).
func TestNullDeviceIsNobodysOwn(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	id, ok := FileIDOf(null)
	if !ok {
		t.Skip("no file identity on this system: nothing is compared by identity")
	}
	saved := os.Stdin
	os.Stdin = null
	defer func() { os.Stdin = saved }()
	g := testkit.Scratch(t)
	c := Config{Budget: budget.MustParse(g, "fs:read:"+os.DevNull), Cwd: g, Relayed: []FileID{id}}
	if r := runSrc(t, c, `fs.read("`+filepath.ToSlash(os.DevNull)+`")`); r.err != nil {
		t.Errorf("a read of the null device, the run's standard input and relayed: %v, want it to go through", r.err)
	}
}
