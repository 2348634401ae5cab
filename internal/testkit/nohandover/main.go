// Command nohandover is a host program that embeds Sabline and skips the
// hand-over call: the test beside it shows that the worker it starts (this
// binary, started again) refuses to start runs of its own, and that the
// run ends with one clear error naming the call. Every start of main is
// written to starts.log in the working directory.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
)

func main() {
	// No sabline.HandOver() here: that is the mistake under test.
	if f, err := os.OpenFile("starts.log", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintf(f, "main pid %d\n", os.Getpid())
		f.Close()
	}
	res, err := sabline.Run(context.Background(),
		sabline.Source("hello.vel", []byte("print(\"hello\")\n")),
		sabline.Options{Budget: budget.MustParse("/", "io"), Timeout: 10 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nohandover:", err)
		os.Exit(1)
	}
	if err := res.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "nohandover:", err)
		os.Exit(1)
	}
	fmt.Print(string(res.Stdout))
}
