package testkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
)

// userOwn are the entries of the home TestExamplesLeaveTheUserAlone
// gives the tests: the state and cache directories, each a regular file,
// so that nothing can be made beneath them, by root either.
var userOwn = []string{".cache", ".local", ".local/state"}

// TestExamplesLeaveTheUserAlone runs the examples' tests, the embedding
// program that skips HandOver and the library's Example functions as a
// user's `go test` would, with a home whose receipts store and cache
// cannot be written (each beneath a regular file) and no SABLINE_RECEIPTS,
// XDG_STATE_HOME or XDG_CACHE_HOME of the user's: they pass, and the home
// holds what it held. The control is a run of the command line, which
// keeps its receipt in the user's store: it is refused in that home
// (E317), so a test that wrote there would fail too.
func TestExamplesLeaveTheUserAlone(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skipf("skipped: the user's store on %s is beneath its configuration directory, "+
			"not the home's .local/state this test makes unwritable", goruntime.GOOS)
	}
	if testing.Short() {
		t.Skip("skipped in -short: it runs other packages' tests")
	}
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".local"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".cache", ".local/state"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("not a directory\n"), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	env := userEnv(t, home)
	root := moduleRoot(t)

	// The control: the command line's receipt goes to the user's store,
	// which this home refuses.
	cli := exec.Command("go", "run", "./cmd/sabline", "examples/hello.vel", "--allow", "io")
	cli.Dir, cli.Env = root, env
	out, err := cli.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "E317") {
		t.Fatalf("the control: sabline with this home: %v\n%s\nwant E317, its store refused", err, out)
	}

	cmd := exec.Command("go", "test", "-count=1",
		"-run", "^(Example.*|TestLibraryRuns|TestEmbeddedModule|TestSkippedHandOver)$",
		".", "./examples/...", "./internal/testkit/nohandover")
	cmd.Dir, cmd.Env = root, env
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the examples' tests with the user's store refused: %v\n%s", err, out)
	}
	var got []string
	err = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if rel, _ := filepath.Rel(home, p); rel != "." {
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil || !slices.Equal(got, userOwn) {
		t.Errorf("the home holds %q (%v), want only %q:\n%s", got, err, userOwn, out)
	}
}

// userEnv is the environment of a user whose home is home: the process's
// own but the variables that would point Sabline away from it, with the
// Go command's caches where they are, so that nothing is built anew.
func userEnv(t *testing.T, home string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "SABLINE_RECEIPTS", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	// The Go command keeps its telemetry in the configuration directory:
	// the Go command's file, not Sabline's, kept out of the home compared.
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+t.TempDir())
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// startsSabline are the packages a test binary links when its tests start
// Sabline's runs: the supervisor, which starts workers, or the builder of
// the sabline binaries, which the tests then run. A run joins the
// register of the store it writes to.
var startsSabline = []string{
	"github.com/sabline/sabline/internal/run",
	"github.com/sabline/sabline/internal/testkit/buildbin",
}

// TestTestsThatStartSablineRunApart: every package of the module whose
// tests link what starts Sabline (startsSabline) has a TestMain and calls
// RunApart, or PrivateRegister where its tests make a home of their own,
// so that no run its tests start writes a receipt, a runs directory or
// an entry in the machine's register. The controls: cli's tests are
// named, codes's are not, and codes's tests call neither.
func TestTestsThatStartSablineRunApart(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: it lists every package of the module with the go command")
	}
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-test", "-f",
		`{{if .ForTest}}{{.ForTest}}|{{.Dir}}|{{join .Deps ","}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	starting := map[string]string{} // package path: its directory
	for line := range strings.Lines(string(out)) {
		pkg, rest, _ := strings.Cut(strings.TrimSpace(line), "|")
		dir, deps, _ := strings.Cut(rest, "|")
		for _, dep := range strings.Split(deps, ",") {
			if slices.Contains(startsSabline, dep) {
				starting[pkg] = dir
			}
		}
	}
	const module = "github.com/sabline/sabline/"
	if _, ok := starting[module+"cli"]; !ok {
		t.Errorf("the control: cli's tests start Sabline, and are not among %d packages",
			len(starting))
	}
	if _, ok := starting[module+"codes"]; ok {
		t.Errorf("the control: codes's tests start no Sabline, and are listed")
	}
	if runsApart(t, filepath.Join(root, "codes")) {
		t.Errorf("the control: codes's tests are read as calling RunApart")
	}
	for pkg, dir := range starting {
		if !runsApart(t, dir) {
			t.Errorf("%s: its tests start Sabline, and no TestMain of theirs runs them apart "+
				"(testkit.RunApart)", pkg)
		}
	}
}

// runsApart reports whether the test files in dir have a TestMain and
// call RunApart or PrivateRegister.
func runsApart(t *testing.T, dir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	var main, apart bool
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				main = main || (n.Name.Name == "TestMain" && n.Recv == nil)
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok &&
					(sel.Sel.Name == "RunApart" || sel.Sel.Name == "PrivateRegister") {
					apart = true
				}
			}
			return true
		})
	}
	return main && apart
}
