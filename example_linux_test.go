package sabline_test

import (
	"context"
	"fmt"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
)

// A run with the zero options runs in a worker the operating system
// confines before the program's first statement: on Linux with Landlock,
// the kernel holds the whole budget, and the receipt says full.
func ExampleRun() {
	res, err := sabline.Run(context.Background(), sabline.Source("/tmp/greet.vel", []byte(`print("hi", ARGS[0])`)),
		sabline.Options{Budget: budget.MustParse("/", "io"), Args: []string{"Ana"}})
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	fmt.Print(string(res.Stdout))
	fmt.Println(res.Receipt.Outcome.Status, res.Receipt.RunParameters.Confinement)
	// Output:
	// hi Ana
	// ok full
}
