package door_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/door"
)

// An embedder serves the HTTP door over a pool of its own: the pool holds
// every policy, the door its token and bounds.
func ExampleNewPoolRunner() {
	root, _ := os.MkdirTemp("", "example-door-")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "hello.vel"), []byte(`print("hello")`), 0o644)

	pool, err := sabline.NewPool(sabline.PoolOptions{
		Budget: budget.MustParse(root, "io"), ImportRoot: root, Workers: 2, Timeout: 10 * time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	runner, err := door.NewPoolRunner(pool)
	if err != nil {
		fmt.Println(err)
		return
	}
	const token = "an-example-token-0123456789"
	srv, _ := door.New(door.Config{Runner: runner, Token: token, Workers: 2})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go srv.Serve(ctx, ln)

	// A client of the door.
	req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/v1/run", strings.NewReader(`{"path":"hello.vel"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Stdout string `json:"stdout"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	fmt.Print(out.Stdout)
	fmt.Println(out.Status)
	// Output:
	// hello
	// ok
}
