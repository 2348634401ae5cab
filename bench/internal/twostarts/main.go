// Command twostarts prints hello, world from a second process it starts
// (itself again) and waits for: the floor of a design of two Go processes,
// before either does any work.
package main

import (
	"fmt"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		fmt.Println("hello, world")
		return
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "twostarts:", err)
		os.Exit(1)
	}
	cmd := exec.Command(self, "child")
	cmd.Stdout = os.Stdout
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "twostarts:", err)
		os.Exit(1)
	}
}
