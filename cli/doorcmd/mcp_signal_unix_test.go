//go:build unix

package doorcmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestMCPSignalAnswersTheRunInFlight: sabline mcp sent SIGTERM, SIGINT or
// SIGHUP (its client's terminal gone) while a run is in flight (its client has been told of its progress)
// reads no more, answers the run once it ends (here at its 3s timeout),
// with nothing but JSON-RPC on its standard output, and exits 0, the
// run's receipt finished on the disk. Before, the signal closed the
// session at once: the run went on to its end answered to no one, and
// the client read the end of the output with no answer. The control is
// the same exchange ended by the client closing its input. A second
// SIGTERM ends the run now (E307 naming the halt), its receipt kept.
func TestMCPSignalAnswersTheRunInFlight(t *testing.T) {
	bin := sablineBin(t)
	for _, end := range []string{"SIGTERM", "SIGINT", "SIGHUP", "input closed", "SIGTERM twice"} {
		t.Run(end, func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "receipts")
			timeout := "3s"
			if end == "SIGTERM twice" {
				timeout = "10m" // the run ends at the second signal, not at its timeout
			}
			cmd := exec.Command(bin, "mcp", "--import-root", t.TempDir(), "--allow", "io",
				"--receipts", rc, "--workers", "1", "--timeout", timeout)
			var stderr testkit.LockedBuffer
			cmd.Stderr = &stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			lines := make(chan string, 64)
			go func() {
				sc := bufio.NewScanner(out)
				sc.Buffer(nil, 4<<20)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
				"params": map[string]any{"name": "run", "arguments": map[string]any{"source": loopAt},
					"_meta": map[string]any{"progressToken": "p"}}})
			opening, _, _ := strings.Cut(mcpRunLines, `{"jsonrpc":"2.0","id":2`)
			if _, err := io.WriteString(in, opening+string(call)+"\n"); err != nil {
				t.Fatal(err)
			}
			var seen []string
			next := func(what string) (string, bool) {
				select {
				case l, ok := <-lines:
					if ok {
						seen = append(seen, l)
					}
					return l, ok
				case <-time.After(testkit.Bound(30 * time.Second)):
					t.Fatalf("no %s; read %q", what, seen)
					return "", false
				}
			}
			for l := ""; !strings.Contains(l, `"notifications/progress"`); {
				if l, _ = next("progress of the run"); l == "" {
					t.Fatalf("the output ended before the run's progress: %q", seen)
				}
			}
			switch end {
			case "SIGTERM":
				err = cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				err = cmd.Process.Signal(syscall.SIGINT)
			case "SIGHUP":
				err = cmd.Process.Signal(syscall.SIGHUP)
			case "SIGTERM twice":
				// The second once the first is taken: two sent at once may
				// reach the process as one.
				if err = cmd.Process.Signal(syscall.SIGTERM); err != nil {
					break
				}
				for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); !strings.Contains(
					stderr.String(), "a second SIGINT, SIGTERM or SIGHUP ends them now"); time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("no word of stopping: %q", stderr.String())
					}
				}
				err = cmd.Process.Signal(syscall.SIGTERM)
			default:
				err = in.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			var answer struct {
				Result struct {
					Structured struct {
						RunID   string `json:"run_id"`
						Status  string `json:"status"`
						Message string `json:"message"`
					} `json:"structuredContent"`
				} `json:"result"`
			}
			for l, ok := next("end of the output"); ok; l, ok = next("end of the output") {
				if !json.Valid([]byte(l)) {
					t.Errorf("a line of the output is not JSON: %.300q", l)
				}
				if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":2,`) {
					if err := json.Unmarshal([]byte(l), &answer); err != nil {
						t.Fatal(err)
					}
				}
			}
			err = cmd.Wait()
			if sig, ended := testkit.EndedBy(cmd.ProcessState); ended || err != nil {
				t.Errorf("sabline mcp ended %v (by %v), want exit 0", err, sig)
			}
			got := answer.Result.Structured
			if got.RunID == "" || got.Status != "timeout" {
				t.Fatalf("the run's answer %+v, want its run id and its timeout; read %.2000q", got, seen)
			}
			if halted := strings.Contains(got.Message, "halted"); halted != (end == "SIGTERM twice") {
				t.Errorf("the run's message %q: naming the halt %v, want %v", got.Message, halted,
					!halted)
			}
			runs, _, err := receipt.Scan(rc)
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, r := range runs {
				found = append(found, fmt.Sprintf("%s %s", r.RunID, r.Outcome.Status))
			}
			if want := got.RunID + " timeout"; len(found) != 1 || found[0] != want {
				t.Errorf("receipts %q, want %q", found, want)
			}
		})
	}
}
