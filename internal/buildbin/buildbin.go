// Package buildbin builds the sabline command once per test process, for
// the suites, scripts and benchmarks that run it as a user would.
package buildbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
)

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// Sabline builds github.com/sabline/sabline/cmd/sabline with the given
// build tags (none, or "sabline_knockout") and CGO_ENABLED=0, once per
// process and tag set, and returns the binary's path. The binary lives in
// a temporary directory removed by Cleanup.
func Sabline(tags ...string) (string, error) {
	return Build("github.com/sabline/sabline/cmd/sabline", "sabline", tags...)
}

// Build builds the package pkg into a binary called name, with tags.
func Build(pkg, name string, tags ...string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	key := pkg + " " + strings.Join(tags, ",")
	if p, ok := built[key]; ok {
		return p, nil
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "sabline-bin-")
		if err != nil {
			return "", fmt.Errorf("buildbin: %w", err)
		}
		dir = d
	}
	sub := filepath.Join(dir, fmt.Sprint(len(built)))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return "", fmt.Errorf("buildbin: %w", err)
	}
	out := filepath.Join(sub, name)
	if goruntime.GOOS == "windows" {
		out += ".exe"
	}
	args := []string{"build", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("buildbin: go build %s: %w\n%s", pkg, err, msg)
	}
	built[key] = out
	return out, nil
}

// Cleanup removes every binary built. Call it from TestMain after the
// tests have run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	dir, built = "", map[string]string{}
}
