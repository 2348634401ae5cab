package doorcmd

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sabline/sabline/receipt"
)

// TestMCPStdio runs sabline mcp under the SDK's own client, over its
// standard input and output: the tools are listed, a run by path is full,
// and a request naming the confinement is a tool error that runs nothing.
func TestMCPStdio(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	root, rc := filepath.Join(dir, "root"), filepath.Join(dir, "receipts")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(\"hello, world\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--import-root", root, "--allow", "io", "--receipts", rc)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "audit,run" {
		t.Errorf("tools %v, want audit and run", names)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"path": "hello.vel"}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Stdout     string `json:"stdout"`
		ExitStatus int    `json:"exit_status"`
		Level      string `json:"level"`
		RunID      string `json:"run_id"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil || res.IsError {
		t.Fatalf("run: %v %s (%v)", res.IsError, data, err)
	}
	if out.Stdout != "hello, world\n" || out.ExitStatus != 0 || out.RunID == "" {
		t.Errorf("run: %s", data)
	}
	wantFull(t, "hello.vel through MCP", out.Level)
	if got, err := receipt.Find(rc, out.RunID); err != nil || got.RunID != out.RunID {
		t.Errorf("run %s: its receipt: %v", out.RunID, err)
	}

	before, _ := receipt.List(rc)
	for _, args := range []map[string]any{
		{"path": "hello.vel", "no_confine": true},
		{"path": "hello.vel", "allow": []string{"fs"}},
		{"path": "../x.vel"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !res.IsError || !strings.Contains(text, `"code":"E3`) {
			t.Errorf("run %v: IsError %v, %s: want a tool error with its code", args, res.IsError, text)
		}
	}
	onlyRefusals(t, rc, len(before))

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "audit", Arguments: map[string]any{"source": "# allow: io\nprint(1)\n"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ = json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(data), `"budget":"io"`) || !strings.Contains(string(data), `"within_ceiling":true`) {
		t.Errorf("audit: %v %s", res.IsError, data)
	}
}
