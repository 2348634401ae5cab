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
	"github.com/sabline/sabline/tenant"
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

// An embedder gives the door tenants as `sabline serve --tenants` does:
// read from a tenants file, each tenant's allow list held within the
// server's ceiling, and given again (SetTenants) when the file changes.
func ExampleServer_SetTenants() {
	root, _ := os.MkdirTemp("", "example-tenants-")
	defer os.RemoveAll(root)
	file := filepath.Join(root, "tenants.json")
	os.WriteFile(file, []byte(`{"tenants": [
	  {"name": "acme", "token_sha256": "`+tenant.DigestOf("acme-token-0123456789")+`",
	   "allow": ["io"], "rate": 20, "burst": 40, "concurrency": 4}
	]}`), 0o600)

	ceiling := budget.MustParse(root, "io,fs:read:data")
	pool, err := sabline.NewPool(sabline.PoolOptions{Budget: ceiling, ImportRoot: root, Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	runner, _ := door.NewPoolRunner(pool)
	scope := tenant.Scope{Cwd: root, Ceiling: ceiling, Check: func(b budget.Budget) error {
		return sabline.CheckModules("tenants", b)
	}}
	ts, err := tenant.Load(file, scope)
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, err := door.New(door.Config{Runner: runner, Tenants: ts})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Later, the file changed: read it again and give the door the new list.
	if ts, err = tenant.Load(file, scope); err == nil {
		err = srv.SetTenants(ts)
	}
	fmt.Println(ts[0].Name, ts[0].Ceiling, err)
	// Output:
	// acme io <nil>
}
