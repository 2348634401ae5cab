// Command generrors writes docs/errors.md from codes.Codes.
package main

import (
	"fmt"
	"os"

	"github.com/sabline/sabline/codes"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: generrors OUT.md")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], codes.ErrorsMarkdown(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "generrors:", err)
		os.Exit(1)
	}
}
