package doorcmd

import (
	"bufio"
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
// answered all the same (before logSink, the 40th or so waited for the
// reader, and every run after it with it). Then the reader reads again,
// the server is stopped (SIGTERM), and the log holds one line for each
// run, none left out, and ends with "stopped": what waited while the
// reader did not read was kept and written.
func TestServeLogReaderStopped(t *testing.T) {
	const runs = 200
	root, rc, tmp := doorDirs(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, os.Getpagesize()); err != nil {
		t.Fatalf("make the pipe one page: %v", err)
	}
	cmd := exec.Command(sablineBin(t), "serve", "--import-root", root, "--allow", "io",
		"--listen", "127.0.0.1:0", "--receipts", rc, "--workers", "1")
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
	for i := range runs {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"path":"hello.vel"}`))
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("run %d of %d, the log's reader stopped: %v", i+1, runs, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("run %d of %d: status %d, want 200", i+1, runs, resp.StatusCode)
		}
	}

	// The reader reads again; the server, stopped, writes what waited.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for line := range lines {
		said = append(said, line)
	}
	logged := 0
	for _, line := range said {
		if strings.Contains(line, ": http: run ") && strings.Contains(line, ": ok, exit 0") {
			logged++
		}
		if strings.Contains(line, "were left out") {
			t.Errorf("the log left lines out: %q", line)
		}
	}
	if logged != runs || said[len(said)-1] != "sabline serve: stopped" {
		t.Errorf("%d lines of runs, last line %q: want %d, then sabline serve: stopped",
			logged, said[len(said)-1], runs)
	}
}
