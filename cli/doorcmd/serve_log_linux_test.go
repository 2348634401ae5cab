package doorcmd

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
)

// TestServeLogReaderStopped: the server's standard error is a pipe of one
// page whose reader stops reading once the server listens, so that its
// log lines fill it after some forty runs; every one of 200 runs is
// answered all the same (before logSink, the 47th waited for the reader,
// and every run after it with it). Then the reader reads again, the
// server is stopped (SIGTERM), and the log holds one line for each run,
// none left out, and ends with the server's "stopped": what waited while
// the reader did not read was kept and written. In both log formats:
// with json, every line is a record.
func TestServeLogReaderStopped(t *testing.T) {
	for _, tc := range []struct {
		format string
		// said is what a line says: its message, and whether it is one.
		said func(line string) (string, bool)
	}{
		{format: "text", said: func(line string) (string, bool) {
			return strings.CutPrefix(line, "sabline serve: ")
		}},
		{format: "json", said: func(line string) (string, bool) {
			var rec struct{ Msg string }
			err := json.Unmarshal([]byte(line), &rec)
			return rec.Msg, err == nil && rec.Msg != ""
		}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			said := serveWithStoppedReader(t, 200, "--log-format", tc.format)
			runs, last := 0, ""
			for _, line := range said {
				msg, ok := tc.said(line)
				if !ok {
					t.Errorf("line %q: not a line of the %s log", line, tc.format)
				}
				if strings.HasPrefix(msg, "http: run ") && strings.Contains(msg, ": ok") {
					runs++
				}
				if strings.Contains(msg, "were left out") {
					t.Errorf("the log left lines out: %q", line)
				}
				last = msg
			}
			if runs != 200 || last != "stopped" {
				t.Errorf("%d lines of runs, the last line saying %q: want 200, then stopped", runs,
					last)
			}
		})
	}
}

// serveWithStoppedReader starts sabline serve with the extra flags, its
// standard error a pipe of one page that is not read once it says where
// it listens; sends it n runs, each of which must be answered 200; then
// stops it (SIGTERM), reads the rest, and returns every line it wrote.
func serveWithStoppedReader(t *testing.T, n int, extra ...string) []string {
	t.Helper()
	root, rc, tmp := doorDirs(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, os.Getpagesize()); err != nil {
		t.Fatalf("make the pipe one page: %v", err)
	}
	cmd := exec.Command(sablineBin(t), append([]string{"serve", "--import-root", root, "--allow",
		"io", "--listen", "127.0.0.1:0", "--receipts", rc, "--workers", "1"}, extra...)...)
	cmd.Env, cmd.Stderr = append(os.Environ(), "TMPDIR="+tmp), w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	lines := make(chan string) // read one at a time: the reader stops when the test does
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var said []string
	url := ""
	for url == "" {
		line, ok := <-lines
		if !ok {
			t.Fatalf("sabline serve ended before it listened:\n%s", strings.Join(said, "\n"))
		}
		said = append(said, line)
		if _, rest, ok := strings.Cut(line, "listening on "); ok {
			addr, _, _ := strings.Cut(rest, " ")
			url = "http://" + addr + "/v1/run"
		}
	}
	tok, err := os.ReadFile(filepath.Join(rc, tokenFileName))
	if err != nil {
		t.Fatal(err)
	}

	// The reader reads nothing more while the runs are sent.
	client := &http.Client{Timeout: testkit.Bound(time.Minute)}
	for i := range n {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"path":"hello.vel"}`))
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("run %d of %d, the log's reader stopped: %v", i+1, n, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("run %d of %d: status %d, want 200", i+1, n, resp.StatusCode)
		}
	}

	// The reader reads again; the server, stopped, writes what waited.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for line := range lines {
		said = append(said, line)
	}
	return said
}
