package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/receipt"
)

// TestTypeScriptClient runs the TypeScript SDK's client
// (testdata/npm/client.mjs) against sabline mcp over its standard input
// and output, and against sabline serve's /mcp: it calls run with a
// progress handler on a program that never ends, cancels the call after
// two notifications, reads the run's receipt as its resource, and tries
// to read a run that is not its own (a command-line run in the same
// store). The run must have stopped, E307, its receipt saying the client
// cancelled it; the progress must rise; the other run must not be found.
func TestTypeScriptClient(t *testing.T) {
	dir := npmClients(t)
	bin := sablineBin(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var args, env []string
			var rc string
			if transport == "stdio" {
				rc = t.TempDir()
				args = []string{"stdio", bin, "mcp", "--import-root", t.TempDir(), "--allow", "io", "--receipts", rc}
			} else {
				s := startServe(t)
				rc = s.rc
				args = []string{"http", s.url + "/mcp"}
				env = append(env, "SABLINE_TOKEN="+s.token)
			}
			other := commandLineRun(t, bin, rc)
			cmd := exec.Command("node", append([]string{filepath.Join(dir, "client.mjs")}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(append(os.Environ(), env...), "OTHER_ID="+other)
			out, err := cmd.Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("node client.mjs %s: %v\n%s%s", transport, err, out, stderr)
			}
			var seen struct {
				Progress []struct {
					Progress float64 `json:"progress"`
					Message  string  `json:"message"`
				} `json:"progress"`
				Cancel  string          `json:"cancel"`
				Listed  []string        `json:"listed"`
				Receipt receipt.Receipt `json:"receipt"`
				Other   string          `json:"other"`
			}
			if err := json.Unmarshal(out, &seen); err != nil {
				t.Fatalf("client.mjs printed %q: %v", out, err)
			}
			if len(seen.Progress) < 2 || seen.Progress[1].Progress <= seen.Progress[0].Progress {
				t.Errorf("progress %+v: want two notifications, rising", seen.Progress)
			}
			if seen.Cancel == "the call returned" {
				t.Error("the cancelled call returned a result")
			}
			o := seen.Receipt.Outcome
			if len(seen.Listed) == 0 || o.Code != "E307" || !strings.Contains(o.Message, "the client cancelled the tools/call") {
				t.Errorf("listed %v, the newest's outcome %+v: want the cancelled run, E307, saying the client cancelled it", seen.Listed, o)
			}
			if !strings.Contains(seen.Other, "Resource not found") {
				t.Errorf("reading %s, another's run in the same store: %q, want Resource not found", other, seen.Other)
			}
			t.Logf("TypeScript SDK over %s: %d progress notifications (%s, %s); cancel: %s; receipt %s: %s %s: %s; another's run %s: %s",
				transport, len(seen.Progress), seen.Progress[0].Message, seen.Progress[1].Message, seen.Cancel,
				seen.Receipt.RunID, o.Status, o.Code, o.Message, other, seen.Other)
		})
	}
}

// commandLineRun runs hello.vel on the command line with its receipt in
// rc, and returns its run id.
func commandLineRun(t *testing.T, bin, rc string) string {
	t.Helper()
	prog := filepath.Join(t.TempDir(), "hello.vel")
	if err := os.WriteFile(prog, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "--receipts", rc, "--allow", "io", prog).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	runs, err := receipt.List(rc)
	if err != nil || len(runs) == 0 {
		t.Fatalf("the command-line run's receipt: %v", err)
	}
	return runs[len(runs)-1].RunID
}
