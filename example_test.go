package sabline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
)

// A run asked to be in the caller's own process is held by the budget's
// checks alone: its receipt says level none, and why.
func ExampleRun_inProcess() {
	res, err := sabline.Run(context.Background(), sabline.Source("/tmp/greet.vel", []byte(`print("hi", ARGS[0])`)),
		sabline.Options{Budget: budget.MustParse("/", "io"), Args: []string{"Ana"}, InProcess: true})
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	fmt.Print(string(res.Stdout))
	fmt.Println(res.Receipt.Outcome.Status, res.Receipt.RunParameters.Confinement)
	// Output:
	// hi Ana
	// ok none
}

// An effect the budget does not grant ends the run with E302; the run
// happened, so the error is in the receipt, and Result.Err says it.
func ExampleResult_Err() {
	res, _ := sabline.Run(context.Background(), sabline.Source("/tmp/peek.vel", []byte(`print(env.get("HOME"))`)),
		sabline.Options{Budget: budget.MustParse("/", "io")})
	fmt.Println(res.Receipt.Outcome.Code)
	// Output:
	// E302
}

// A pool runs many programs on workers confined once. A run may ask for
// less than the pool's budget, never more: more is E328, and nothing runs.
func ExamplePool() {
	root, _ := os.MkdirTemp("", "example-pool-")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "hello.vel"), []byte(`print("hello")`), 0o644)
	pool, err := sabline.NewPool(sabline.PoolOptions{
		Budget: budget.MustParse(root, "io"), Workers: 2, ImportRoot: root, Timeout: 10 * time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	res, err := pool.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(res.Stdout))
	wider := budget.MustParse(root, "io,env")
	_, err = pool.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{Budget: &wider})
	fmt.Println(err)
	// Output:
	// hello
	// E328: this run's budget "io,env": env is not within the ceiling "io": nothing ran
}

// A registry starts a pool on the first use of its options and shares it
// with every later use of the same options; past its bound (here 1) the
// least recently used pool that no run holds is closed.
func ExamplePoolRegistry() {
	root, _ := os.MkdirTemp("", "example-registry-")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "hello.vel"), []byte(`print("hello")`), 0o644)
	reg := sabline.NewPoolRegistry(1)
	defer reg.Close()
	quick := sabline.PoolOptions{
		Budget: budget.MustParse(root, "io"), ImportRoot: root, Timeout: 10 * time.Second,
	}
	res, err := reg.Run(context.Background(), quick, sabline.File("hello.vel"), sabline.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(res.Stdout))
	a, releaseA, _ := reg.Acquire(quick)
	b, releaseB, _ := reg.Acquire(quick)
	fmt.Println("same options, same pool:", a == b)
	releaseA()
	releaseB()
	slow := quick
	slow.Timeout = time.Minute
	if _, err := reg.Run(context.Background(), slow, sabline.File("hello.vel"),
		sabline.RunOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	_, err = a.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
	fmt.Println("pools alive:", reg.Len(), "- the first closed:", err != nil)
	// Output:
	// hello
	// same options, same pool: true
	// pools alive: 1 - the first closed: true
}
