package runtime

import (
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"

	"github.com/sabline/sabline/budget"
)

// credentialNames are the places beneath a home directory where tools keep
// secrets. A broad grant (one whose directory lies above such a place)
// never reaches them: E318. Granting the place itself does.
var credentialNames = []string{
	".ssh", ".aws", ".gnupg", ".netrc", ".docker/config.json", ".kube/config",
	".config/gcloud", ".config/gh", ".azure", ".git-credentials", ".pgpass",
	".npmrc", ".pypirc", ".password-store", ".vault-token", ".terraform.d/credentials.tfrc.json",
}

// credentialRoot reports whether path lies in a credential location of
// home, of /root, or of any user's home under /home or /Users (each also
// as its links resolve), or in one of the extra locations, and returns
// that location. path must be absolute, cleaned and resolved; home and
// extra must be resolved by the caller. On macOS and Windows, whose file
// systems ignore case, names are compared without it.
func credentialRoot(path, home string, extra ...string) (string, bool) {
	var homes []string
	if home != "" {
		homes = append(homes, filepath.Clean(home))
	}
	roots, bases := systemHomes()
	homes = append(homes, roots...)
	for _, base := range bases {
		if rest, ok := cutPrefixFold(path, base+string(filepath.Separator)); ok {
			user, _, _ := strings.Cut(rest, string(filepath.Separator))
			homes = append(homes, filepath.Join(base, user))
		}
	}
	if vol := filepath.VolumeName(path); vol != "" { // Windows: every user's home
		if rest, ok := cutPrefixFold(path, vol+`\Users\`); ok {
			user, _, _ := strings.Cut(rest, `\`)
			homes = append(homes, vol+`\Users\`+user)
		}
	}
	for _, root := range extra {
		if withinFold(path, root) {
			return root, true
		}
	}
	for _, h := range homes {
		for _, n := range credentialNames {
			if root := filepath.Join(h, filepath.FromSlash(n)); withinFold(path, root) {
				return root, true
			}
		}
	}
	return "", false
}

// systemHomes are root's home and the directories that hold users' homes,
// each as written and as its links resolve; read once, not at every check.
var systemHomes = sync.OnceValues(func() (roots, bases []string) {
	return []string{"/root", resolvePath("/root")},
		[]string{"/home", "/Users", resolvePath("/home"), resolvePath("/Users")}
})

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
