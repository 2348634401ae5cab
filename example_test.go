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
