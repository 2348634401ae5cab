package doorcmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/internal/testkit"
)

// gcGoal is a line of the Go runtime's collector trace, the heap goal
// of one collection in MB.
var gcGoal = regexp.MustCompile(`(?m)^gc \d+ @.* (\d+) MB goal`)

// TestMCPCollectorPace: sabline mcp collects at mcpGCPercent unless its
// environment sets GOGC, read from outside the server in the goals its
// runtime's trace (GODEBUG=gctrace=1) gives for the collections after it
// began serving: at 400 no goal is below 16 MB (four times the runtime's
// smallest, 4 MB); at the environment's 100 the server's small heap
// gives goals below it (the control).
func TestMCPCollectorPace(t *testing.T) {
	const bound = 16 // MB: the smallest goal at GOGC=400
	for _, tc := range []struct {
		name      string
		gogc      string
		wantBelow bool // a goal below bound
	}{
		{name: "the door's pace", gogc: ""},
		{name: "the environment's GOGC=100", gogc: "100", wantBelow: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goals := mcpGoals(t, tc.gogc)
			below := false
			for _, g := range goals {
				below = below || g < bound
			}
			if below != tc.wantBelow {
				t.Errorf("heap goals %v MB after serving began: a goal below %d MB is %v, want %v",
					goals, bound, below, tc.wantBelow)
			}
		})
	}
}

// mcpGoals starts sabline mcp with GODEBUG=gctrace=1 (and GOGC=gogc when
// not empty), calls its run tool until its trace shows two collections
// after it said it serves, and returns their heap goals in MB.
func mcpGoals(t *testing.T, gogc string) []int {
	t.Helper()
	bin := sablineBin(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--import-root", root, "--allow", "io",
		"--receipts", filepath.Join(dir, "receipts"), "--durability", "none")
	// The test's own GOGC, if any, is not the server's: the pace under
	// test is the one it sets itself, or gogc.
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GOGC=")
	}), "GODEBUG=gctrace=1")
	if gogc != "" {
		cmd.Env = append(cmd.Env, "GOGC="+gogc)
	}
	stderr := &testkit.LockedBuffer{}
	cmd.Stderr = stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	goals := func() []int {
		_, after, _ := strings.Cut(stderr.String(), "serving on standard input")
		var out []int
		for _, m := range gcGoal.FindAllStringSubmatch(after, -1) {
			g, _ := strconv.Atoi(m[1])
			out = append(out, g)
		}
		return out
	}
	const maxCalls = 5000
	for i := 0; i < maxCalls && len(goals()) < 2; i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run",
			Arguments: map[string]any{"path": "hello.vel"}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %v", i, err, res)
		}
	}
	g := goals()
	if len(g) < 2 {
		t.Fatalf("%d calls, and the server's trace shows %d collections after it began serving, "+
			"want 2:\n%s", maxCalls, len(g), stderr.String())
	}
	return g
}
