package runtime

import (
	"path/filepath"
	"strings"
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
// home, of /root, or of any user's home under /home or /Users, and returns
// that location. path must be absolute and cleaned.
func credentialRoot(path, home string) (string, bool) {
	var homes []string
	if home != "" {
		homes = append(homes, filepath.Clean(home))
	}
	homes = append(homes, "/root")
	for _, base := range []string{"/home", "/Users"} {
		if rest, ok := strings.CutPrefix(path, base+"/"); ok {
			user, _, _ := strings.Cut(rest, "/")
			homes = append(homes, base+"/"+user)
		}
	}
	for _, h := range homes {
		for _, n := range credentialNames {
			root := filepath.Join(h, filepath.FromSlash(n))
			if path == root || strings.HasPrefix(path, root+string(filepath.Separator)) {
				return root, true
			}
		}
	}
	return "", false
}
