package buildbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// contentNamed is contentOf of pkg with tags, as Build takes it.
func contentNamed(t *testing.T, pkg string, tags ...string) string {
	t.Helper()
	list, err := listing(pkg, tags)
	if err != nil {
		t.Fatal(err)
	}
	return contentOf(pkg, tags, list)
}

// TestContentOf: the name of a shared binary changes with the build tags
// and with the package, and not from one call to the next.
func TestContentOf(t *testing.T) {
	const pkg = "github.com/sabline/sabline/internal/testkit/buildbin"
	plain, again := contentNamed(t, pkg), contentNamed(t, pkg)
	tagged := contentNamed(t, pkg, "sabline_knockout")
	other := contentNamed(t, "github.com/sabline/sabline/codes")
	if plain != again {
		t.Errorf("two calls named the same build %s and %s", plain, again)
	}
	if plain == tagged || plain == other {
		t.Errorf("a change of tags or package kept the name %s", plain)
	}
}

// TestListingNamesSources: the listing names the files of this module's
// packages that a build reads (a Go file, an assembly file where the
// package has one, go.mod), and no file outside the module: the packages
// of the standard library and of other modules (starlark, x/sys) it lists
// by their export files alone.
func TestListingNamesSources(t *testing.T) {
	const pkg = "github.com/sabline/sabline/lang"
	list, err := listing(pkg, nil)
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(wd, "..", "..", "..")
	var sources []string
	others := 0
	for line := range strings.Lines(string(list)) {
		line = strings.TrimSuffix(line, "\n")
		if path, ok := strings.CutPrefix(line, sourcePrefix); ok {
			sources = append(sources, filepath.Clean(path))
		} else if other, _, _ := strings.Cut(line, "/"); other == "go.starlark.net" ||
			strings.HasPrefix(line, "golang.org/x/sys/") {
			others++
		}
	}
	want := []string{filepath.Join(root, "lang", "fspath.go"), filepath.Join(root, "go.mod")}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		want = append(want, filepath.Join(root, "lang", "int80_linux_amd64.s"))
	}
	for _, w := range want {
		if !slices.Contains(sources, w) {
			t.Errorf("the listing names no %s among its %d sources", w, len(sources))
		}
	}
	for _, s := range sources {
		if !strings.HasPrefix(s, root+string(filepath.Separator)) {
			t.Errorf("the listing names %s, outside the module at %s", s, root)
		}
	}
	if others == 0 {
		t.Errorf("the listing names no package of starlark or x/sys, which %s imports:\n%s", pkg, list)
	}
}

// TestGoTestSeesSourceChange: go test does not answer from its cache a
// test that runs a binary Build made, once a source file of that binary
// has changed; the test runs again and runs the new binary. The control:
// with nothing changed, the second go test is answered from the cache.
// The module is one of the test's own: a command, two tests that build
// it with this package's sources and run it (one also builds it in its
// TestMain, before go test watches what it looks at, so that the test's
// own Build is the one done already), and those sources.
func TestGoTestSeesSourceChange(t *testing.T) {
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":            "module probe\n\ngo 1.26\n",
		"cmd/hi/main.go":    "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(\"one\") }\n",
		"fresh/run_test.go": strings.NewReplacer("PKG", "fresh", "EARLY\n", "").Replace(probeTest),
		"early/run_test.go": strings.NewReplacer("PKG", "early", "EARLY\n", earlyBuild).
			Replace(probeTest),
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			files["buildbin/"+n] = string(b)
		}
	}
	write := func(name, text string) {
		p := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		write(name, text)
	}
	goTest := func() string {
		cmd := exec.Command("go", "test", "-v", "./fresh", "./early")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local",
			"CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go test in %s: %v\n%s", mod, err, out)
		}
		return string(out)
	}

	// The first run, and the control: the same again, from the cache.
	if out := goTest(); strings.Count(out, "the command said one") != 2 {
		t.Fatalf("the first go test:\n%s\nwant the command's output, one, in both", out)
	}
	if out := goTest(); strings.Count(out, "(cached)") != 2 {
		t.Fatalf("go test again, nothing changed:\n%s\nwant both answered from the cache", out)
	}
	// A change to the command alone: both tests run again, the new binary.
	write("cmd/hi/main.go", strings.Replace(files["cmd/hi/main.go"], "one", "two!", 1))
	if out := goTest(); strings.Contains(out, "(cached)") ||
		strings.Count(out, "the command said two!") != 2 {
		t.Errorf("go test after the command changed:\n%s\nwant both run again, the command "+
			"saying two!", out)
	}
}

// earlyBuild is the early probe's build in its TestMain.
const earlyBuild = `	if _, err := buildbin.Build("probe/cmd/hi", "hi"); err != nil {
		panic(err)
	}
`

// probeTest is a test of TestGoTestSeesSourceChange's module, of package
// PKG, with EARLY in its TestMain.
const probeTest = `package PKG

import (
	"os"
	"os/exec"
	"testing"

	"probe/buildbin"
)

func TestMain(m *testing.M) {
EARLY
	code := m.Run()
	buildbin.Cleanup()
	os.Exit(code)
}

func TestRun(t *testing.T) {
	bin, err := buildbin.Build("probe/cmd/hi", "hi")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the command said %s", out)
}
`
