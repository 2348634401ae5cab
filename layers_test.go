package sabline_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// module is this module's import path; a layer is named below without it.
const module = "github.com/sabline/sabline"

// TestLayers reads the import graph (go list, on each system the
// project builds for) and fails when a package depends, directly or
// through another, on a layer it must not: the language knows nothing of
// confinement; the receipt nothing of the language; a job nothing of
// confinement or the worker; and, as DESIGN.md draws them (cmd, cli,
// door, the library, internal/run, then the language and confinement,
// then budget), no layer reaches one above it. The doors reach the
// language through the library, as that order has it, and import nothing
// of it themselves. The control: arrows the layers do draw are seen.
func TestLayers(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the packages with: %v", err)
	}
	forbidden := []struct {
		from   string
		to     []string // each a layer: the package and those beneath it ("" is the library)
		direct bool     // an import of from's own, not one through another layer
	}{
		{from: "lang", to: []string{"confine", "internal/run", "receipt", "door", "cli", ""}},
		{from: "receipt", to: []string{"lang", "internal/run", "door", "cli", ""}},
		{from: "door", to: []string{"cli"}},
		{from: "door", to: []string{"lang"}, direct: true},
		{from: "confine", to: []string{"lang", "internal/run", "receipt", "door", "cli", ""}},
		{from: "budget", to: []string{"confine", "lang", "internal/run", "receipt", "door", "cli", ""}},
		{from: "program", to: []string{"budget", "confine", "lang", "internal/run", "receipt", "door", "cli", ""}},
		{from: "internal/run", to: []string{"door", "cli", ""}},
		{from: "", to: []string{"door", "cli"}},
		{from: "cli", to: []string{"checks"}},
		{from: "internal/job", to: []string{"confine", "internal/run", "internal/worker", "receipt", "door", "cli", ""}},
		{from: "internal/worker", to: []string{"internal/run", "door", "cli", ""}},
		{from: "internal/wire", to: []string{"internal/run", "internal/worker", "internal/job", "door", "cli", ""}},
		{from: "internal/fault", to: []string{"internal/run", "door", "cli", ""}},
		{from: "internal/eval", to: []string{"door", "cli", ""}},
		{from: "internal/probe", to: []string{"door", "cli", ""}},
	}
	drawn := []struct{ from, to string }{
		{"internal/run", "lang"}, {"internal/run", "confine"}, {"lang", "budget"}, {"confine", "budget"}, {"cli/doorcmd", "door"}, {"", "internal/run"},
		{"receipt", "program"}, {"door", "program"}, {"door", ""},
		{"internal/worker", "internal/job"}, {"", "internal/job"}, {"internal/job", "lang"},
		{"internal/run", "internal/wire"}, {"internal/worker", "internal/wire"}, {"internal/worker", "confine"},
		{"internal/eval", "internal/run"}, {"internal/probe", "internal/run"}, {"internal/run", "internal/fault"},
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			cmd := exec.Command(goCmd, "list", "-json=ImportPath,Imports,Deps", "./...")
			cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			deps, imports := map[string][]string{}, map[string][]string{}
			dec := json.NewDecoder(bytes.NewReader(out))
			for dec.More() {
				var p struct {
					ImportPath    string
					Imports, Deps []string
				}
				if err := dec.Decode(&p); err != nil {
					t.Fatal(err)
				}
				deps[layerPath(p.ImportPath)], imports[layerPath(p.ImportPath)] = p.Deps, p.Imports
			}
			for pkg := range deps {
				for _, f := range forbidden {
					if !within(pkg, f.from) {
						continue
					}
					ds := deps[pkg]
					if f.direct {
						ds = imports[pkg]
					}
					for _, d := range ds {
						for _, to := range f.to {
							if strings.HasPrefix(d, module) && within(layerPath(d), to) {
								t.Errorf("%s depends on %s: %q must not reach %q", pkg, layerPath(d), f.from, to)
							}
						}
					}
				}
			}
			for _, a := range drawn {
				found := false
				for _, d := range deps[a.from] {
					found = found || (strings.HasPrefix(d, module) && within(layerPath(d), a.to))
				}
				if !found {
					t.Errorf("%q does not depend on %q: the graph read is not the project's", a.from, a.to)
				}
			}
		})
	}
}

// layerPath is an import path of this module without the module's: ""
// for the library itself.
func layerPath(importPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
}

// within reports whether pkg is layer or beneath it; the library, "", is
// only itself.
func within(pkg, layer string) bool {
	if layer == "" {
		return pkg == ""
	}
	return pkg == layer || strings.HasPrefix(pkg, layer+"/")
}
