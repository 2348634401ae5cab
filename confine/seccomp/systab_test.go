package seccomp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSeccompTableMatchesXSys reads the SYS_* constants of
// golang.org/x/sys/unix for linux/amd64 and linux/arm64 from the module's
// source, the version go.mod requires, and checks each table against
// them: a call x/sys knows but the table lacks (or numbers differently)
// fails, and so does a name the table has that x/sys does not. A call the
// table lacks would have no verdict of its own: go generate
// ./internal/sysno writes the tables anew.
func TestSeccompTableMatchesXSys(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to find golang.org/x/sys with: %v", err)
	}
	out, err := exec.Command(goCmd, "list", "-m", "-f", "{{.Dir}}", "golang.org/x/sys").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go list -m golang.org/x/sys: %v (%q): is the module downloaded?", err, out)
	}
	for _, a := range []Arch{archAMD64, archARM64} {
		t.Run(a.Name, func(t *testing.T) {
			path := filepath.Join(dir, "unix", "zsysnum_linux_"+a.Name+".go")
			want := sysnum(t, path)
			if len(want) < 300 {
				t.Fatalf("%s: only %d SYS_ constants", path, len(want))
			}
			for name, nr := range want {
				got, ok := a.Table[name]
				switch {
				case !ok:
					t.Errorf("x/sys has %s (%d), the table does not: go generate ./internal/sysno", name, nr)
				case got != nr:
					t.Errorf("%s is %d in the table, %d in x/sys", name, got, nr)
				}
			}
			for name := range a.Table {
				if _, ok := want[name]; !ok {
					t.Errorf("the table has %s, x/sys does not", name)
				}
			}
			t.Logf("%s: %d calls, as in %s", a.Name, len(want), path)
		})
	}
}

// sysnum reads the SYS_* constants of a zsysnum file, by their names in
// lower case without the prefix, as the tables name them.
func sysnum(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			for i, id := range v.Names {
				name, ok := strings.CutPrefix(id.Name, "SYS_")
				if !ok || i >= len(v.Values) {
					continue
				}
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s: %s is not a literal", path, id.Name)
				}
				nr, err := strconv.ParseInt(lit.Value, 0, 32)
				if err != nil {
					t.Fatalf("%s: %s: %v", path, id.Name, err)
				}
				calls[strings.ToLower(name)] = int(nr)
			}
		}
	}
	return calls
}
