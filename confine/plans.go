package confine

import "github.com/sabline/sabline/confine/darwin"

// DarwinProfile returns the text of the sandbox profile that holds a macOS
// worker to p (darwin.Profile): n are the needs' paths, home and cwd the
// worker's, all as the sandbox matches them.
func DarwinProfile(p Policy, n Needs, home, cwd string) (string, error) {
	return darwin.Profile(p, n, home, cwd)
}
