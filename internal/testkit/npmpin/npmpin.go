// Package npmpin installs the npm packages a test directory pins (its
// package.json and package-lock.json), for the tests that run programs no
// one here wrote: the MCP clients of cli/doorcmd/testdata/npm, the S3-compatible
// server of checks/fleet/testdata/npm. Each set of pins is installed once
// for the machine, with npm ci, into a cache directory named by the
// digest of the pins. Where node or npm is missing, or the install fails,
// the test is skipped with the reason; under SABLINE_REQUIRE_NPM=1 (.ci/run
// sets it) it fails instead.
package npmpin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// RequireEnv, set to 1, makes a test that needs pinned packages fail where
// they cannot be installed, instead of skipping.
const RequireEnv = "SABLINE_REQUIRE_NPM"

// Pins names a directory of pins.
type Pins struct {
	// Dir holds package.json and package-lock.json, and the files (the
	// scripts the tests run) copied beside the installed packages.
	Dir string
	// What they are, for the messages: "the MCP clients of cli/doorcmd/testdata/npm".
	What string
	// MinNode is the least major version of the machine's node they need.
	MinNode int
}

// installed is one install, made once per directory of pins.
type installed struct {
	once sync.Once
	dir  string
	err  error
}

var (
	mu       sync.Mutex
	installs = map[string]*installed{}
)

// Install returns the directory the pins of p are installed in (its
// node_modules beside the files of p.Dir), installing them the first time;
// it skips the test, saying why, where they cannot be (fails it under
// SABLINE_REQUIRE_NPM=1).
func Install(t testing.TB, p Pins) string {
	t.Helper()
	src, err := filepath.Abs(p.Dir)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	in := installs[src]
	if in == nil {
		in = &installed{}
		installs[src] = in
	}
	mu.Unlock()
	in.once.Do(func() { in.dir, in.err = install(src, p.MinNode) })
	if in.err != nil {
		Missing(t, p.What, in.err)
	}
	return in.dir
}

// Missing skips the test, saying why what is pinned cannot be had here;
// under SABLINE_REQUIRE_NPM=1 it fails it instead.
func Missing(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s: %v", what, err)
	}
	t.Skipf("skipped: %s: not installed here: %v", what, err)
}

// install installs the pins of src into the cache, or finds them there;
// the files beside the pins are copied in each time.
func install(src string, minNode int) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("no node on PATH: %w", err)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("no npm on PATH: %w", err)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("node --version: %w", err)
	}
	version := strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(version, "v"), ".", 2)[0])
	if major < minNode {
		return "", fmt.Errorf("node %s: the pinned packages need %d or later", version, minNode)
	}
	h := sha256.New()
	for _, f := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return "", err
		}
		h.Write(data)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w", err)
	}
	dir := filepath.Join(cache, "sabline-test", "npm-"+hex.EncodeToString(h.Sum(nil))[:16])
	done := filepath.Join(dir, "node_modules", ".package-lock.json")
	if _, err := os.Stat(done); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", err
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "installing-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		if err := CopyFiles(src, tmp); err != nil {
			return "", err
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm ci: %w\n%s", err, out)
		}
		// Another test binary may have installed it meanwhile: either
		// copy is whole.
		if err := os.Rename(tmp, dir); err != nil {
			if _, serr := os.Stat(done); serr != nil {
				return "", fmt.Errorf("install into %s: %w", dir, err)
			}
		}
	}
	return dir, CopyFiles(src, dir)
}

// CopyFiles copies the regular files of src into dst.
func CopyFiles(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
