package lang

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// hostModuleRows are the rows of docs/language.md's table of host
// modules: each module's name and its functions cell.
func hostModuleRows(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "language.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n## Host modules (ffi)\n")
	if !ok {
		t.Fatal("docs/language.md has no section Host modules (ffi)")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	rows := map[string]string{}
	row := regexp.MustCompile("(?m)^\\| `([a-z]+)` \\| ([^|]*) \\|")
	for _, m := range row.FindAllStringSubmatch(sec, -1) {
		rows[m[1]] = m[2]
	}
	return rows
}

// docNames are the names a functions cell gives a call: `name(` or
// `name`, but struct, the type of what some return.
func docNames(cell string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([a-z_0-9]+)[(`]").FindAllStringSubmatch(cell, -1) {
		if m[1] != "struct" {
			out = append(out, m[1])
		}
	}
	return out
}

// TestHostModulesDocumented: the table of host modules in
// docs/language.md has a row for each module Sabline registers, and the
// row names every function the module has (but where it ends "...", as
// math's does, naming a library's by example) and none it lacks, so that
// whoever grants ffi:MODULE reads in the table all that the grant hands
// the program: ctypes.syscall32, the i386 entry's raw calls, among them.
// Its control: a cell is read for the calls it names, struct passed over.
func TestHostModulesDocumented(t *testing.T) {
	rows := hostModuleRows(t)
	for _, name := range DefaultRegistry.Names() {
		cell, ok := rows[name]
		if !ok {
			t.Errorf("docs/language.md, Host modules: no row for the module %s", name)
			continue
		}
		v, _ := DefaultRegistry.Build(name)
		mod, ok := v.(starlark.HasAttrs)
		if !ok {
			t.Errorf("the module %s has no members", name)
			continue
		}
		members := mod.AttrNames()
		named := docNames(cell)
		if !strings.Contains(cell, "...") {
			for _, m := range members {
				if !slices.Contains(named, m) {
					t.Errorf("docs/language.md, Host modules, %s: does not name %s.%s, which it has",
						name, name, m)
				}
			}
		}
		for _, n := range named {
			if !slices.Contains(members, n) {
				t.Errorf("docs/language.md, Host modules, %s: names %s.%s, which it does not have",
					name, name, n)
			}
		}
	}
	if got := docNames("`read_text(path)`, `nosuch(x)`: `struct(a)`"); !slices.Equal(got,
		[]string{"read_text", "nosuch"}) {
		t.Errorf("the control: docNames read %q", got)
	}
}
