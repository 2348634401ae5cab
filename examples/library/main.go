// Command library shows Sabline embedded as a Go library: it runs each
// program it is given through sabline.Run (in a confined worker, as every
// run is unless it asks for InProcess) or, with -pool, through a pool of
// two confined workers whose import root is the first program's directory,
// and prints what each program printed and what held it.
//
//	go run ./examples/library -allow io examples/hello.vel
//	go run ./examples/library -pool -allow io examples/hello.vel examples/hello.vel
//
// Its main hands over to Sabline first: the workers are this binary,
// started again.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
)

func main() {
	sabline.HandOver() // first: a worker never gets past this line
	allow := flag.String("allow", "io", "the budget, as --allow gives it")
	pool := flag.Bool("pool", false, "run the programs through a pool of two workers")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: library [-pool] [-allow ITEMS] PROGRAM.vel... [-- ARGS]")
		os.Exit(2)
	}
	programs, args := flag.Args(), []string(nil)
	for i, a := range programs {
		if a == "--" {
			programs, args = programs[:i], programs[i+1:]
			break
		}
	}
	wd, _ := os.Getwd()
	b, err := budget.Parse(strings.Split(*allow, ","), wd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "library:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	failed := false
	report := func(name string, res *sabline.Result, err error) {
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: refused: %v\n", name, err)
			failed = true
			return
		}
		os.Stdout.Write(res.Stdout)
		rp := res.Receipt.RunParameters
		fmt.Printf("%s: %s, level %s (%s)\n", name, res.Receipt.Outcome.Status, rp.Confinement,
			rp.ConfinementReason)
		if e := res.Err(); e != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, e)
			failed = true
		}
	}
	if !*pool {
		for _, prog := range programs {
			res, err := sabline.Run(ctx, sabline.File(prog),
				sabline.Options{Budget: b, Args: args, Timeout: 10 * time.Second})
			report(prog, res, err)
		}
	} else {
		root, err := filepath.Abs(filepath.Dir(programs[0]))
		if err != nil {
			fmt.Fprintln(os.Stderr, "library:", err)
			os.Exit(2)
		}
		p, err := sabline.NewPool(sabline.PoolOptions{
			Budget:     b,
			Workers:    2,
			ImportRoot: root,
			Timeout:    10 * time.Second,
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "library:", err)
			os.Exit(1)
		}
		for _, prog := range programs {
			abs, _ := filepath.Abs(prog)
			res, err := p.Run(ctx, sabline.File(abs), sabline.RunOptions{Args: args})
			report(prog, res, err)
		}
		p.Close()
	}
	if failed {
		os.Exit(1)
	}
}
