package doorcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/ship"
)

// shareShipEvery is how often the server of TestServeBesideMCPShareReceipts
// ships: docs/scale.md says a receipt of a live pool process beside it
// reaches the store within about two of these and half a second.
const shareShipEvery = 200 * time.Millisecond

// defaultReceiptsEnv is this process's environment for a door that keeps
// its receipts where it does by default, and that directory: without
// SABLINE_RECEIPTS (which RunApart sets for the tests), in the state
// directory XDG_STATE_HOME names, made one of the test's, as
// receipt.DefaultDir finds it on Linux and the BSDs. On macOS and
// Windows, whose default is the user's configuration directory,
// SABLINE_RECEIPTS names the same directory instead.
func defaultReceiptsEnv(t *testing.T) (env []string, dir string) {
	t.Helper()
	state := t.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, receipt.DirEnv+"=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "XDG_STATE_HOME="+state)
	dir = filepath.Join(state, "sabline", "receipts")
	if goruntime.GOOS == "darwin" || goruntime.GOOS == "windows" {
		env = append(env, receipt.DirEnv+"="+dir)
	}
	return env, dir
}

// fileURL is the file:// URL of the directory dir.
func fileURL(dir string) string {
	if p := filepath.ToSlash(dir); strings.HasPrefix(p, "/") {
		return "file://" + p
	}
	return "file:///" + filepath.ToSlash(dir)
}

// startShipping starts sabline serve on 127.0.0.1:0 with the environment
// env and no --receipts, no --token-file: its receipts and its token file
// are in the default receipts directory rc. It ships them to url every
// shareShipEvery, through the store agent at agent, as replica r1.
func startShipping(t *testing.T, bin, agent, root, rc, url string, env []string) *served {
	t.Helper()
	s := &served{root: root, rc: rc, tmp: filepath.Join(t.TempDir(), "tmp"),
		exited: make(chan error, 1)}
	s.start(t, bin, []string{"serve", "--import-root", root, "--allow", "io",
		"--listen", "127.0.0.1:0", "--workers", "1", "--receipts-url", url, "--replica", "r1",
		"--store-agent", agent, "--ship-every", shareShipEvery.String()}, env)
	return s
}

// serveHello runs hello.vel over the server's /v1/run and returns the
// run id of its answer, failing the test unless it was answered ok.
func serveHello(t *testing.T, s *served) string {
	t.Helper()
	st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`)
	id, _ := v["run_id"].(string)
	if st != 200 || v["status"] != receipt.StatusOK || v["stdout"] != "hello, world\n" || id == "" {
		t.Fatalf("run hello.vel over /v1/run: %d %v", st, v)
	}
	return id
}

// inBucket reads every receipt in the bucket through r: how many records
// of each run id it holds, and the status of the last one read.
func inBucket(t *testing.T, r *ship.Reader) (count map[string]int, status map[string]string) {
	t.Helper()
	runs, skipped, err := r.All(t.Context(), ship.AnyTenant)
	if err != nil {
		t.Fatalf("read the bucket: %v", err)
	}
	if len(skipped) > 0 {
		t.Fatalf("the bucket holds objects that do not read: %v", skipped)
	}
	count, status = map[string]int{}, map[string]string{}
	for _, run := range runs {
		count[run.RunID]++
		status[run.RunID] = run.Outcome.Status
	}
	return count, status
}

// waitShipped polls the bucket until every run of ids is in it, ok, at
// most bound, and returns how long it waited and whether they all were.
func waitShipped(t *testing.T, s *served, r *ship.Reader, ids []string,
	bound time.Duration) (time.Duration, bool) {
	t.Helper()
	start := time.Now()
	for {
		count, status := inBucket(t, r)
		all := true
		for _, id := range ids {
			all = all && count[id] > 0 && status[id] == receipt.StatusOK
		}
		if all {
			return time.Since(start), true
		}
		if time.Since(start) > bound {
			return time.Since(start), false
		}
		select {
		case err := <-s.exited:
			s.exited <- err // for the cleanup
			t.Fatalf("sabline serve ended (%v) before it shipped", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestServeBesideMCPShareReceipts: sabline serve shipping its receipts
// (--receipts-url, a file:// bucket) and sabline mcp beside it keep
// receipts in one receipts directory, as both do by default (neither
// given --receipts). Each keeps a journal of its own there; every run
// either answered ok, four over MCP and four over /v1/run, reaches the
// bucket exactly once, finished ok, as the project's Reader reads it: the
// MCP runs while sabline mcp still runs (docs/scale.md: "shipped as it
// seals its segments"), and none twice once it ended and its journal was
// shipped whole. sabline mcp's journal still holds its four, ok (it keeps
// every receipt). The control: a run id never made is not found.
func TestServeBesideMCPShareReceipts(t *testing.T) {
	bin := sablineBin(t)
	agent, err := buildbin.Build("github.com/sabline/sabline/cmd/sabline-store", "sabline-store")
	if err != nil {
		t.Fatalf("build sabline-store: %v", err)
	}
	env, rc := defaultReceiptsEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	testkit.WriteFile(t, filepath.Join(root, "hello.vel"), "print(\"hello, world\")\n")
	store := filepath.Join(t.TempDir(), "bucket")
	if err := os.MkdirAll(store, 0o700); err != nil {
		t.Fatal(err)
	}
	url := fileURL(store)

	s := startShipping(t, bin, agent, root, rc, url, env)
	mcpCmd := exec.Command(bin, "mcp", "--import-root", root, "--allow", "io", "--workers", "1")
	mcpCmd.Env = env
	var mcpLog testkit.LockedBuffer
	mcpCmd.Stderr = &mcpLog
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(
		t.Context(), &mcp.CommandTransport{Command: mcpCmd}, nil)
	if err != nil {
		t.Fatalf("start sabline mcp: %v", err)
	}
	mcpEnded := false
	endMCP := func() error {
		if mcpEnded {
			return nil
		}
		mcpEnded = true
		return cs.Close() // its input closed: it ends, as when its client goes
	}
	t.Cleanup(func() {
		endMCP()
		if t.Failed() {
			t.Logf("sabline mcp said:\n%s", mcpLog.String())
		}
	})

	var agentLog testkit.LockedBuffer
	a, err := bucket.StartAgent(agent, url, &agentLog)
	if err != nil {
		t.Fatalf("the test's store agent: %v", err)
	}
	t.Cleanup(func() {
		a.Close()
		if t.Failed() {
			t.Logf("the test's store agent said:\n%s", agentLog.String())
		}
	})
	reader := ship.NewReader(a)

	// Four runs over MCP and two over /v1/run, in turns, each kept ok in
	// the local journal once answered.
	var mcpRuns, serveRuns []string
	for i := range 4 {
		out := mcpHello(t, cs, fmt.Sprintf("%d over sabline mcp", i+1))
		got, err := receipt.Find(rc, out.RunID)
		if err != nil || got.Outcome.Status != receipt.StatusOK {
			t.Fatalf("MCP run %s in the local journal: %v (%v), want it ok", out.RunID, got.Receipt, err)
		}
		mcpRuns = append(mcpRuns, out.RunID)
		if i%2 == 0 {
			serveRuns = append(serveRuns, serveHello(t, s))
		}
	}
	dirs, err := receipt.JournalDirs(rc)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 3 { // the journal directory, then one journal for each process
		t.Fatalf("journals in the default receipts directory %s: %v; want one of each door's",
			rc, dirs)
	}
	t.Logf("%d journals of processes in %s", len(dirs)-1, rc)

	// While sabline mcp runs: its four and the server's two reach the
	// bucket (docs/scale.md: within about two --ship-every and half a
	// second; the bound is a loaded machine's).
	bound := testkit.Bound(30 * time.Second)
	live := append(append([]string(nil), mcpRuns...), serveRuns...)
	took, ok := waitShipped(t, s, reader, live, bound)
	if ok {
		t.Logf("while sabline mcp runs: its %d runs and the server's %d in the bucket, ok, after %v",
			len(mcpRuns), len(serveRuns), took.Round(time.Millisecond))
	} else {
		count, status := inBucket(t, reader)
		t.Errorf("while sabline mcp runs, after %v: not every run answered ok is in the bucket, ok", took)
		for _, id := range live {
			t.Logf("  %s: %d records, last %q", id, count[id], status[id])
		}
	}

	// sabline mcp ends as its client goes; its journal's owner lock is
	// let go, and the server takes it and ships the rest whole.
	ending := time.Now()
	if err := endMCP(); err != nil || mcpCmd.ProcessState == nil || !mcpCmd.ProcessState.Success() {
		t.Errorf("sabline mcp once its input ended: %v (%v), want exit 0", mcpCmd.ProcessState, err)
	}
	t.Logf("sabline mcp ended %v after its input did", time.Since(ending).Round(time.Millisecond))
	// Two more runs over /v1/run, each waited for in the bucket: the
	// second is sealed by a round that began after the first's had
	// ended, and that one, begun after sabline mcp ended, took its journal.
	for range 2 {
		id := serveHello(t, s)
		serveRuns = append(serveRuns, id)
		took, ok := waitShipped(t, s, reader, []string{id}, bound)
		if !ok {
			t.Fatalf("run %s over /v1/run not in the bucket, ok, after %v", id, took)
		}
		t.Logf("once sabline mcp ended: run %s in the bucket after %v", id, took.Round(time.Millisecond))
	}

	count, status := inBucket(t, reader)
	for _, runs := range []struct {
		door string
		ids  []string
	}{{"sabline mcp", mcpRuns}, {"sabline serve", serveRuns}} {
		for _, id := range runs.ids {
			if count[id] != 1 || status[id] != receipt.StatusOK {
				t.Errorf("%s run %s answered ok: %d records in the bucket, last %q; want one, ok",
					runs.door, id, count[id], status[id])
			}
			rec, err := reader.Find(t.Context(), ship.AnyTenant, id)
			if err != nil || rec.RunID != id || rec.Outcome.Status != receipt.StatusOK {
				t.Errorf("%s run %s: the Reader finds %s (%v), want it, ok", runs.door, id,
					said(rec), err)
			}
		}
	}
	// A journal whose process kept every receipt stays (docs/serve.md).
	for _, id := range mcpRuns {
		if got, err := receipt.Find(rc, id); err != nil || got.Outcome.Status != receipt.StatusOK {
			t.Errorf("MCP run %s in the local journal once shipped: %v, want it kept, ok", id, err)
		}
	}
	// The control: a run id of the same process and time as a real one,
	// never made, is not found.
	never := strings.Repeat("0", 16) + mcpRuns[0][16:]
	if rec, err := reader.Find(t.Context(), ship.AnyTenant, never); !errors.Is(err, fs.ErrNotExist) ||
		count[never] != 0 {
		t.Errorf("run %s, never made: found %s (%v, %d records), want not found", never, said(rec),
			err, count[never])
	}
	t.Logf("runs answered ok: %d over sabline mcp, %d over /v1/run; records in the bucket: %d",
		len(mcpRuns), len(serveRuns), sum(count))
}

// said is a receipt's run id and status, or "nothing".
func said(rec *receipt.Receipt) string {
	if rec == nil {
		return "nothing"
	}
	return rec.RunID + " " + rec.Outcome.Status
}

// sum is the sum of the counts.
func sum(count map[string]int) int {
	n := 0
	for _, c := range count {
		n += c
	}
	return n
}

// TestListNamesTheStoreWithoutItsQuery: `receipts list --receipts-url`
// over an empty bucket names the store without the URL's query, which can
// hold an endpoint's keys; the control, the bucket's path, is named.
func TestListNamesTheStoreWithoutItsQuery(t *testing.T) {
	bin := sablineBin(t)
	agent, err := buildbin.Build("github.com/sabline/sabline/cmd/sabline-store", "sabline-store")
	if err != nil {
		t.Fatalf("build sabline-store: %v", err)
	}
	env, _ := defaultReceiptsEnv(t)
	store := filepath.Join(t.TempDir(), "bucket")
	if err := os.MkdirAll(store, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "receipts", "list", "--store-agent", agent,
		"--receipts-url", fileURL(store)+"?create_dir=true")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("receipts list: %v\n%s", err, out)
	}
	if want := "no receipts in " + fileURL(store) + "\n"; string(out) != want {
		t.Errorf("receipts list said %q, want %q", out, want)
	}
}
