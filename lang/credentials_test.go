package lang

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestCredentialRoot checks which paths lie in a credential location: of
// the given home, of /root, or of any home under /home or /Users.
func TestCredentialRoot(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		home     string
		wantRoot string // "" for a path in no credential location
	}{
		{name: "a key in the home's .ssh", path: "/h/me/.ssh/id_x", home: "/h/me", wantRoot: "/h/me/.ssh"},
		{name: "the location itself", path: "/h/me/.ssh", home: "/h/me", wantRoot: "/h/me/.ssh"},
		{name: "a home written with a trailing slash", path: "/h/me/.aws/credentials", home: "/h/me/", wantRoot: "/h/me/.aws"},
		{name: "a nested location", path: "/h/me/.config/gcloud/creds.db", home: "/h/me", wantRoot: "/h/me/.config/gcloud"},
		{name: "a file location", path: "/h/me/.docker/config.json", home: "/h/me", wantRoot: "/h/me/.docker/config.json"},
		{name: "beside a file location", path: "/h/me/.docker/other.json", home: "/h/me"},
		{name: "a name that only starts like one", path: "/h/me/.sshrc", home: "/h/me"},
		{name: "the home itself", path: "/h/me", home: "/h/me"},
		{name: "a .ssh deeper than the home", path: "/h/me/src/.ssh/id_x", home: "/h/me"},
		{name: "root's home with no home given", path: "/root/.gnupg/pubring.kbx", home: "", wantRoot: "/root/.gnupg"},
		{name: "another user under /home", path: "/home/bob/.kube/config", home: "/h/me", wantRoot: "/home/bob/.kube"},
		{name: "another user under /Users", path: "/Users/ana/.netrc", home: "", wantRoot: "/Users/ana/.netrc"},
		{name: "/home itself", path: "/home", home: ""},
		{name: "a .ssh outside any home", path: "/srv/.ssh/id_x", home: "/h/me"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, ok := credentialRoot(filepath.FromSlash(tt.path), tt.home)
			if ok != (tt.wantRoot != "") || root != filepath.FromSlash(tt.wantRoot) {
				t.Errorf("credentialRoot(%q, %q) = %q, %v; want %q", tt.path, tt.home, root, ok, tt.wantRoot)
			}
		})
	}
	for _, l := range credentialLocations {
		if strings.HasPrefix(l.Path, "/") || strings.Contains(l.Path, "*") {
			continue
		}
		p := filepath.Join("/h/me", filepath.FromSlash(l.Path))
		if root, ok := credentialRoot(filepath.Join(p, "x"), "/h/me"); !ok || root != p {
			t.Errorf("a path under %s: root %q, %v", p, root, ok)
		}
	}
}

// TestCredentials checks E318: a grant above a credential location of the
// home directory never reaches it; granting the location itself does.
func TestCredentials(t *testing.T) {
	tests := []struct {
		name     string
		grant    string
		stmt     string
		wantCode codes.Code // "" for allowed
		wantMsg  string     // what a refusal names
	}{
		{name: "any path read", grant: "fs:read",
			stmt: `v = fs.read("$H/.ssh/id_x")`, wantCode: codes.E318, wantMsg: "$H/.ssh/id_x is in $H/.ssh, a credential location or Sabline's receipts; the grant fs:read "},
		{name: "any path any direction", grant: "fs",
			stmt: `v = fs.read("$H/.ssh/id_x")`, wantCode: codes.E318, wantMsg: "the grant fs is broader"},
		{name: "the home directory", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/.ssh/id_x")`, wantCode: codes.E318, wantMsg: "the grant fs:read:$H is broader"},
		{name: "the home directory: listing the location", grant: "fs:read:$H",
			stmt: `v = fs.list("$H/.ssh")`, wantCode: codes.E318, wantMsg: "is in $H/.ssh, a credential location"},
		{name: "the home directory: a nested location", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/.config/gh/hosts.yml")`, wantCode: codes.E318, wantMsg: "is in $H/.config/gh, a credential location"},
		{name: "the home directory: a file location", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/.netrc")`, wantCode: codes.E318, wantMsg: "is in $H/.netrc, a credential location"},
		{name: "write under the home directory", grant: "fs:write:$H",
			stmt: `fs.write("$H/.ssh/authorized_keys", "key")`, wantCode: codes.E318, wantMsg: "is in $H/.ssh, a credential location"},
		{name: "the location itself", grant: "fs:read:$H/.ssh",
			stmt: `v = fs.read("$H/.ssh/id_x")`},
		{name: "the file itself", grant: "fs:read:$H/.ssh/id_x",
			stmt: `v = fs.read("$H/.ssh/id_x")`},
		{name: "the location beside the home directory", grant: "fs:read:$H,fs:read:$H/.ssh",
			stmt: `v = fs.read("$H/.ssh/id_x")`},
		{name: "another file under the home directory", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/notes.txt")`},
		{name: "a name that only starts like a location", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/.sshrc")`},
		{name: "a directory that only starts like a location", grant: "fs:read",
			stmt: `v = fs.read("$H/.ssh-old/x")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := testkit.Scratch(t)
			for _, f := range []string{".ssh/id_x", ".config/gh/hosts.yml", ".netrc", "notes.txt", ".sshrc", ".ssh-old/x"} {
				testkit.WriteFile(t, filepath.Join(home, f), "data")
			}
			fill := strings.NewReplacer("$H", home).Replace
			src := "x = 1\n" + fill(tt.stmt) + "\n"
			before := snapshot(t, home)
			r := runSrc(t, Config{Budget: budget.MustParse(home, fill(tt.grant)), Cwd: home, Home: home}, src)
			if tt.wantCode == "" {
				if r.err != nil {
					t.Fatalf("run under %s: %v", fill(tt.grant), r.err)
				}
				return
			}
			testkit.WantError(t, r.err, tt.wantCode, callPos(r.prog, src, 2), fill(tt.wantMsg))
			sameSnapshot(t, before, snapshot(t, home))
			for _, u := range r.in.Usage() {
				if u.Uses != 0 {
					t.Errorf("a refused effect charged %s", u.Grant)
				}
			}
		})
	}
}

var updateCredentials = flag.Bool("update-credentials", false, "rewrite the table of credential locations in docs/language.md from the code")

// TestCredentialsTable checks that the table of credential locations in
// docs/language.md is the one CredentialsMarkdown renders from the list
// the runtime checks.
func TestCredentialsTable(t *testing.T) {
	const begin, end = "<!-- credentials: generated from lang.credentialLocations; go test ./lang checks it -->\n", "<!-- end credentials -->"
	path := filepath.Join("..", "docs", "language.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), begin)
	table, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated table of credential locations", path)
	}
	want := string(CredentialsMarkdown())
	if *updateCredentials {
		if err := os.WriteFile(path, []byte(before+begin+want+end+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if table != want {
		t.Errorf("the table in %s differs from the code; run go test ./lang -run TestCredentialsTable -update-credentials\ngot:\n%s\nwant:\n%s", path, table, want)
	}
}
