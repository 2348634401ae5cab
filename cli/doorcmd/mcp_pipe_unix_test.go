//go:build unix

package doorcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// mcpRunLines are a client's initialize, its initialized notification and
// a call of the run tool on hello.vel, one JSON-RPC message a line.
const mcpRunLines = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"path":"hello.vel"}}}
`

// TestMCPClientGone: sabline mcp whose client no longer reads its answers
// (the reading end of its standard output closed) ends on its own, not
// by SIGPIPE: the door catches the signal (internal/brokenpipe), so that
// a write to a reader gone fails; here the first answer fails and no run
// begins, and no receipt is left unfinished. The control is the same
// exchange read to its end: the run's answer, and its receipt ok.
func TestMCPClientGone(t *testing.T) {
	bin := sablineBin(t)
	root := t.TempDir()
	prog := []byte("print('hello')\n")
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), prog, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, readerGone := range []bool{true, false} {
		name := map[bool]string{true: "reader gone", false: "reader there"}[readerGone]
		t.Run(name, func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "receipts")
			cmd := exec.Command(bin, "mcp", "--import-root", root, "--allow", "io", "--receipts", rc,
				"--workers", "1")
			cmd.Stdin = strings.NewReader(mcpRunLines)
			var out strings.Builder
			cmd.Stdout = &out
			if readerGone {
				cmd.Stdout = testkit.ReaderGone(t)
			}
			err := cmd.Run()
			if sig, ended := testkit.EndedBy(cmd.ProcessState); ended {
				t.Fatalf("sabline mcp was ended by %v: its client's reader went away", sig)
			}
			runs, _, serr := receipt.Scan(rc)
			if serr != nil {
				t.Fatal(serr)
			}
			for _, r := range runs {
				if r.Outcome.Status != receipt.StatusOK {
					t.Errorf("receipt %s: %s %s %s, want ok", r.RunID, r.Outcome.Status, r.Outcome.Code,
						r.Outcome.Message)
				}
			}
			t.Logf("%v; %d receipts", err, len(runs))
			if !readerGone && (err != nil || len(runs) != 1 || !strings.Contains(out.String(), `"id":2`)) {
				t.Errorf("with a reader: %v, %d receipts, answers %q; want the run's", err, len(runs),
					out.String())
			}
		})
	}
}
