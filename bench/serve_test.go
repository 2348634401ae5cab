package bench

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// maxServeRuns bounds the runs one BenchmarkServeHello sends, whatever
// b.N is.
const maxServeRuns = 2000

// serveClients is how many clients send requests at once, each on a
// keep-alive connection of its own.
const serveClients = 4

// BenchmarkServeHello: hello.vel by path through sabline serve on
// loopback (2 workers, a queue of 64), from serveClients keep-alive
// clients at once. It reports runs/s, the 99th percentile of a request's
// time, and the requests that were not a run that ended ok (failures). Run
// it with -benchtime Nx; at most maxServeRuns are sent.
func BenchmarkServeHello(b *testing.B) {
	bin := sabline(b)
	dir := b.TempDir()
	root, rc := filepath.Join(dir, "root"), filepath.Join(dir, "receipts")
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(\"hello, world\")\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--import-root", root, "--allow", "io", "--listen", "127.0.0.1:0",
		"--receipts", rc, "--workers", "2", "--queue", "64")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stderr)
	url := ""
	for url == "" && sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
			addr, _, _ := strings.Cut(rest, " ")
			url = "http://" + addr + "/v1/run"
		}
	}
	if url == "" {
		b.Fatal("sabline serve did not say where it listens")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	tok, err := os.ReadFile(filepath.Join(rc, "serve.token"))
	if err != nil {
		b.Fatal(err)
	}
	auth := "Bearer " + strings.TrimSpace(string(tok))

	n := min(b.N, maxServeRuns)
	var next, failures atomic.Int64
	times := make([]time.Duration, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	t0 := time.Now()
	for range serveClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				req, _ := http.NewRequest("POST", url, strings.NewReader(`{"path":"hello.vel"}`))
				req.Header.Set("Authorization", auth)
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					failures.Add(1)
					times[i] = time.Since(start)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				times[i] = time.Since(start)
				if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"ok"`) {
					failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	p99 := times[min(n-1, n*99/100)]
	b.ReportMetric(float64(n)/elapsed.Seconds(), "runs/s")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(failures.Load()), "failures")
}
