package lang

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"

	"github.com/sabline/sabline/budget"
)

// CredentialsEnv names the environment variable in which the operator
// adds credential locations: absolute paths separated by the system's
// list separator (":" on Unix, ";" on Windows). It is read from the
// environment the run was started with, once; a program has no way to
// set it.
const CredentialsEnv = "SABLINE_CREDENTIALS"

// credentialLocation is one place where tools keep secrets. A broad grant
// (one whose directory lies above the place) never reaches it: E318.
// Granting the place itself, or a directory within it, does.
type credentialLocation struct {
	Path  string // beneath each home directory, or absolute; the last component may be a pattern (path.Match)
	Holds string // what is kept there, for the docs
}

// credentialLocations is the one list of credential locations; the table
// in docs/language.md is generated from it.
var credentialLocations = []credentialLocation{
	{"/etc/shadow", "local users' password hashes"},
	{"/etc/gshadow", "local groups' password hashes"},
	{"/etc/ssh/ssh_host_*_key", "the SSH server's private host keys"},
	{".ssh", "SSH keys and authorized_keys"},
	{".gnupg", "GnuPG keys"},
	{".password-store", "pass, the password store"},
	{".netrc", "passwords for FTP, curl, git over HTTP"},
	{".pgpass", "PostgreSQL passwords"},
	{".git-credentials", "git's stored credentials"},
	{".config/git/credentials", "git's stored credentials"},
	{".config/gh", "GitHub CLI tokens"},
	{".config/hub", "hub, GitHub tokens"},
	{".config/github-copilot", "GitHub Copilot tokens"},
	{".npmrc", "npm registry tokens"},
	{".pypirc", "PyPI upload credentials"},
	{".cargo/credentials", "crates.io token"},
	{".cargo/credentials.toml", "crates.io token"},
	{".gem/credentials", "RubyGems API key"},
	{".m2/settings.xml", "Maven repository passwords"},
	{".docker/config.json", "container registry logins"},
	{".kube", "Kubernetes cluster credentials"},
	{".aws", "AWS keys"},
	{".azure", "Azure CLI tokens"},
	{".config/gcloud", "Google Cloud credentials"},
	{".oci", "Oracle Cloud keys"},
	{".vault-token", "HashiCorp Vault token"},
	{".terraform.d/credentials.tfrc.json", "Terraform Cloud tokens"},
	{".config/openai", "OpenAI API keys"},
	{".anthropic", "Anthropic API keys"},
	{".claude/.credentials.json", "Claude Code login"},
	{".codex/auth.json", "Codex CLI login"},
	{".cache/huggingface/token", "Hugging Face token"},
	{".huggingface/token", "Hugging Face token"},
}

// OperatorCredentials are the locations the operator added in
// CredentialsEnv: absolute paths only, cleaned.
var OperatorCredentials = sync.OnceValue(func() []string {
	var out []string
	for _, p := range filepath.SplitList(os.Getenv(CredentialsEnv)) {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
})

// credentialRoot reports whether path lies in a credential location: one
// of the system's, one beneath home, /root, or any user's home under
// /home or /Users (each also as its links resolve), or one of the extra
// locations; and returns that location. path must be the canonical path
// of what an effect reached; home and extra must be canonical too. On
// macOS and Windows, whose file systems ignore case, names are compared
// without it.
func credentialRoot(p, home string, extra ...string) (string, bool) {
	for _, root := range extra {
		if withinFold(p, root) {
			return root, true
		}
	}
	var homes []string
	if home != "" {
		homes = append(homes, filepath.Clean(home))
	}
	roots, bases := systemHomes()
	homes = append(homes, roots...)
	for _, base := range bases {
		if rest, ok := cutPrefixFold(p, base+string(filepath.Separator)); ok {
			user, _, _ := strings.Cut(rest, string(filepath.Separator))
			homes = append(homes, filepath.Join(base, user))
		}
	}
	if vol := filepath.VolumeName(p); vol != "" { // Windows: every user's home
		if rest, ok := cutPrefixFold(p, vol+`\Users\`); ok {
			user, _, _ := strings.Cut(rest, `\`)
			homes = append(homes, vol+`\Users\`+user)
		}
	}
	for _, l := range credentialLocations {
		if strings.HasPrefix(l.Path, "/") {
			if root, ok := matchLocation(p, filepath.FromSlash(l.Path)); ok {
				return root, true
			}
			continue
		}
		for _, h := range homes {
			if root, ok := matchLocation(p, filepath.Join(h, filepath.FromSlash(l.Path))); ok {
				return root, true
			}
		}
	}
	return "", false
}

// matchLocation reports whether p is loc or lies beneath it, loc's last
// component being a pattern, and returns the location p is in.
func matchLocation(p, loc string) (string, bool) {
	if !strings.ContainsAny(filepath.Base(loc), "*?[") {
		return loc, withinFold(p, loc)
	}
	dir := filepath.Dir(loc)
	rest, ok := cutPrefixFold(p, dir+string(filepath.Separator))
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, string(filepath.Separator))
	pattern := filepath.Base(loc)
	if foldCase {
		name, pattern = strings.ToLower(name), strings.ToLower(pattern)
	}
	if m, _ := path.Match(pattern, name); !m {
		return "", false
	}
	return filepath.Join(dir, rest[:len(name)]), true
}

// systemHomes are root's home and the directories that hold users' homes,
// each as written and as its links resolve; read once, not at every check.
var systemHomes = sync.OnceValues(func() (roots, bases []string) {
	t := newFSTree(nil)
	return []string{"/root", t.canonical("/root")},
		[]string{"/home", "/Users", t.canonical("/home"), t.canonical("/Users")}
})

// CredentialsMarkdown is the table of credential locations in
// docs/language.md, generated from the list the runtime checks.
func CredentialsMarkdown() []byte {
	var b bytes.Buffer
	b.WriteString("| location | what is kept there |\n|---|---|\n")
	for _, l := range credentialLocations {
		where := "`~/" + l.Path + "`"
		if strings.HasPrefix(l.Path, "/") {
			where = "`" + l.Path + "`"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", where, l.Holds)
	}
	fmt.Fprintf(&b, "| each path in `%s` | what the operator names |\n", CredentialsEnv)
	return b.Bytes()
}

// foldCase is true where file names are compared without case.
var foldCase = goruntime.GOOS == "darwin" || goruntime.GOOS == "windows"

func cutPrefixFold(s, prefix string) (string, bool) {
	if foldCase && len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return strings.CutPrefix(s, prefix)
}

// withinFold is budget.Within, without case where names have none.
func withinFold(path, dir string) bool {
	if foldCase {
		path, dir = strings.ToLower(path), strings.ToLower(dir)
	}
	return budget.Within(path, dir)
}
