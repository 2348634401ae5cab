// Command workerdeps prints hello, world from a binary that links what a
// worker needs (the run package and everything it imports: the language,
// confinement, receipts) and runs none of it: one start of it is what
// those packages cost a process, beside barehello.
package main

import (
	"fmt"

	_ "github.com/sabline/sabline/internal/run"
)

func main() { fmt.Println("hello, world") }
