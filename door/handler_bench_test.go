package door

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// BenchmarkHandlerRun: the door's handler taking POST /v1/run for
// hello.vel by path, in the benchmark's own process, with a pool of one
// worker keeping receipts with background durability: what a run costs
// the server's process (its time, allocations and bytes) beside its
// worker, without the HTTP exchange around the handler.
func BenchmarkHandlerRun(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(\"hello, world\")\n"),
		0o644); err != nil {
		b.Fatal(err)
	}
	pool, err := sabline.NewPool(sabline.PoolOptions{ImportRoot: root, Workers: 1,
		Budget: budget.MustParse(root, "io"), Receipts: b.TempDir(), MaxMemoryMB: 256,
		Durability: receipt.Background})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	r, err := NewPoolRunner(pool)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Runner: r, Token: testToken, Workers: 1, Queue: 1})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	run := func() {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/v1/run",
			strings.NewReader(`{"path":"hello.vel"}`))
		// The address it came in on, as a listener's connection gives it
		// (the Host is checked against it).
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
		req.Header.Set("Authorization", "Bearer "+testToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":"ok"`) {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	run() // the worker started
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}
