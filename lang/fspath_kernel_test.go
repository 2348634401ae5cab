package lang_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// TestPathLanguageAndKernel runs each file effect both ways: judged by the
// language alone (--no-confine) and by the language over the confined
// kernel. The two must end the same: what the language allows, the kernel
// allows too (no E319), and what it refuses it refuses with the same code.
func TestPathLanguageAndKernel(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skipf("compares with Landlock, which %s does not have", goruntime.GOOS)
	}
	if confine.Probe().LandlockABI == 0 {
		t.Skip("this kernel offers no Landlock: nothing to compare with")
	}
	if testing.Short() {
		t.Skip("builds and runs the sabline command")
	}
	bin, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		grant    string
		stmt     string
		wantCode string // "" for allowed
	}{
		{name: "read through a relative link", grant: "fs:read:$G", stmt: `fs.read("rel")`},
		{name: "read through an absolute link", grant: "fs:read:$G", stmt: `fs.read("$G/abs")`},
		{name: "read through a link to a directory", grant: "fs:read:$G", stmt: `fs.read("dir/real.txt")`},
		{name: "read out and back in", grant: "fs:read:$G", stmt: `fs.read("../g/data/real.txt")`},
		{name: "list the grant", grant: "fs:read:$G", stmt: `fs.list("$G")`},
		{name: "list through a link", grant: "fs:read:$G", stmt: `fs.list("dir")`},
		{name: "exists through a link", grant: "fs:read:$G", stmt: `fs.exists("dir/real.txt")`},
		{name: "exists of a file with a slash", grant: "fs:read:$G", stmt: `fs.exists("data/real.txt/")`},
		{name: "exists under a missing component", grant: "fs:read:$G", stmt: `fs.exists("none/../../o/secret.txt")`},
		{name: "write through an absolute link", grant: "fs:write:$G", stmt: `fs.write("$G/abs", "x")`},
		{name: "append a new file", grant: "fs:write:$G", stmt: `fs.append("new.txt", "x")`},
		{name: "write a file in a missing directory", grant: "fs:write:$G", stmt: `fs.write("none/new.txt", "x")`, wantCode: "E314"},
		{name: "remove a link to outside", grant: "fs:write:$G", stmt: `fs.remove("out")`},
		{name: "remove a file", grant: "fs:write:$G", stmt: `fs.remove("data/real.txt")`},
		{name: "remove a directory", grant: "fs:write:$G", stmt: `fs.remove("empty")`},
		{name: "mkdir with parents", grant: "fs:write:$G", stmt: `fs.mkdir("a/b/c")`},
		{name: "mkdir through a link to a directory", grant: "fs:write:$G", stmt: `fs.mkdir("dir/x")`},
		{name: "mkdir above the grant", grant: "fs:write:$G/top/deep", stmt: `fs.mkdir("$G/top/deep")`, wantCode: "E302"},
		{name: "read through a link to outside", grant: "fs:read:$G", stmt: `fs.read("out")`, wantCode: "E302"},
		{name: "exists through a link to outside", grant: "fs:read:$G", stmt: `fs.exists("outdir/secret.txt")`, wantCode: "E302"},
		{name: "write through a dangling link to outside", grant: "fs:write:$G", stmt: `fs.write("dangling", "x")`, wantCode: "E302"},
		{name: "read a file under a broad grant", grant: "fs:read", stmt: `fs.read("$O/secret.txt")`},
		{name: "a credential under a broad grant", grant: "fs:read", stmt: `fs.read("$H/.ssh/id_test")`, wantCode: "E318"},
		{name: "a magic link under a broad grant", grant: "fs", stmt: `fs.read("/proc/self/root$O/secret.txt")`, wantCode: "E302"},
	}
	code := regexp.MustCompile(`E3[0-9][0-9]`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, mode := range []string{"--no-confine", "--require-confinement=partial"} {
				root, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				g, o, h := filepath.Join(root, "g"), filepath.Join(root, "o"), filepath.Join(root, "home")
				for _, d := range []string{filepath.Join(g, "data"), filepath.Join(g, "empty"), o, filepath.Join(h, ".ssh")} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				for p, data := range map[string]string{filepath.Join(g, "data", "real.txt"): "real",
					filepath.Join(o, "secret.txt"): "secret", filepath.Join(h, ".ssh", "id_test"): "key"} {
					if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				for link, target := range map[string]string{"rel": "data/real.txt", "abs": filepath.Join(g, "data", "real.txt"),
					"dir": "data", "out": filepath.Join(o, "secret.txt"), "outdir": o, "dangling": filepath.Join(o, "new.txt")} {
					if err := os.Symlink(target, filepath.Join(g, link)); err != nil {
						t.Fatal(err)
					}
				}
				fill := strings.NewReplacer("$G", g, "$O", o, "$H", h).Replace
				prog := filepath.Join(root, "p.vel")
				if err := os.WriteFile(prog, []byte(fill(tt.stmt)+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(bin, mode, "--receipts", filepath.Join(root, "receipts"), "--allow", fill(tt.grant), prog)
				cmd.Dir = g
				cmd.Env = append(os.Environ(), "HOME="+h)
				out, _ := cmd.CombinedOutput()
				got[mode] = code.FindString(string(out))
				if got[mode] != tt.wantCode {
					t.Errorf("%s: code %q, want %q:\n%s", mode, got[mode], tt.wantCode, out)
				}
			}
			if got["--no-confine"] != got["--require-confinement=partial"] {
				t.Errorf("the language alone ends with %q, over the kernel with %q", got["--no-confine"], got["--require-confinement=partial"])
			}
		})
	}
}
