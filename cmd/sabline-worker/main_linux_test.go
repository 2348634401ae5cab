package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/internal/wire"
)

func TestMain(m *testing.M) {
	code := m.Run()
	buildbin.Cleanup()
	os.Exit(code)
}

// waiting is a program that says it runs, then waits for a line.
const waiting = "print(\"running\")\nio.read_line()\n"

// workerExe runs waiting with the sabline command at sab and returns the
// executable its worker runs, read from /proc while the program waits.
func workerExe(t *testing.T, sab string) string {
	t.Helper()
	dir := t.TempDir()
	prog := filepath.Join(dir, "wait.vel")
	if err := os.WriteFile(prog, []byte(waiting), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sab, "--receipts", filepath.Join(dir, "receipts"), "--allow", "io", prog)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		rest, _ := io.ReadAll(out)
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: %v; output after the first line %q\n%s", sab, err, rest, stderr.String())
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "running\n" {
		t.Fatalf("first line %q (%v), want the program's\n%s", line, err, stderr.String())
	}
	// The program runs: its worker is there until its line is sent.
	pid, ok := proc.Worker(cmd.Process.Pid)
	if !ok {
		t.Fatalf("no worker of %d while its program runs", cmd.Process.Pid)
	}
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(in, "go on\n"); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestWorkerExecutable: a command-line run's worker is sabline-worker when
// the one beside the sabline executable is its own build (built together,
// stamped alike), and the sabline executable itself when none is there or
// the one there is another build's.
func TestWorkerExecutable(t *testing.T) {
	pair, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	worker := filepath.Join(filepath.Dir(pair), "sabline-worker")
	alone := copyTo(t, pair, t.TempDir())
	other := copyTo(t, pair, t.TempDir())
	build := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(other), "sabline-worker"),
		"-ldflags", "-X main.buildStamp=another-build", ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build a worker of another build: %v\n%s", err, msg)
	}
	tests := []struct {
		name    string
		sabline string
		wantExe string
	}{
		{name: "its own build beside it", sabline: pair, wantExe: worker},
		{name: "none beside it", sabline: alone, wantExe: alone},
		{name: "another build's beside it", sabline: other, wantExe: other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := filepath.EvalSymlinks(tt.wantExe)
			if err != nil {
				t.Fatal(err)
			}
			if got := workerExe(t, tt.sabline); got != want {
				t.Errorf("the worker runs %s, want %s", got, want)
			}
		})
	}
}

// TestPoolWorkerExecutable: a pool's workers (here sabline serve's, which
// it starts before it holds itself) are the sabline executable even with
// its own build's worker binary beside it, which its command-line runs
// start (TestWorkerExecutable): a door holds its process to a domain that
// lets it execute that one file.
func TestPoolWorkerExecutable(t *testing.T) {
	pair, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	root, tmp := filepath.Join(dir, "root"), filepath.Join(dir, "tmp")
	for _, d := range []string{root, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(pair, "serve", "--import-root", root, "--allow", "io", "--listen", "127.0.0.1:0",
		"--receipts", filepath.Join(dir, "receipts"), "--workers", "1")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	// It says where it listens once its pool is started.
	sc := bufio.NewScanner(stderr)
	var said []string
	for !strings.Contains(strings.Join(said, "\n"), "listening on ") {
		if !sc.Scan() {
			t.Fatalf("sabline serve ended before it listened:\n%s", strings.Join(said, "\n"))
		}
		said = append(said, sc.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	pids := proc.Workers(cmd.Process.Pid)
	if len(pids) != 1 {
		t.Fatalf("workers %v once listening, want the one --workers starts", pids)
	}
	want, err := filepath.EvalSymlinks(pair)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pids[0]), "exe"))
	if err != nil {
		t.Fatal(err)
	}
	if exe != want {
		t.Errorf("the pool's worker runs %s, want %s", exe, want)
	}
}

// TestStartedAlone: started by anything but sabline, the worker binary
// says what it is and exits 2, running nothing; started by sabline, it is
// the worker (TestWorkerExecutable).
func TestStartedAlone(t *testing.T) {
	pair, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	worker := filepath.Join(filepath.Dir(pair), "sabline-worker")
	for _, args := range [][]string{nil, {"examples/hello.vel"}, {"version"}, {wire.WorkerArg + "x"}} {
		cmd := exec.Command(worker, args...)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), usage) {
			t.Errorf("sabline-worker %q: exit %d (%v), output %q; want 2 and %q", args, code, err, out, usage)
		}
	}
}

// copyTo copies the executable src into dir, as sabline, and returns its
// path.
func copyTo(t *testing.T, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "sabline")
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}
