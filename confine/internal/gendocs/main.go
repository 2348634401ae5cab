// Command gendocs writes docs/os-enforces.md from the confine package's
// ENFORCES and widening tables. go generate runs it in the confine
// directory:
//
//	go generate ./confine
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/sabline/sabline/confine"
)

func main() {
	out := flag.String("o", confine.EnforcesDocPath, "the file to write")
	flag.Parse()
	if err := os.WriteFile(*out, confine.EnforcesMarkdown(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs: write the ENFORCES page:", err)
		os.Exit(1)
	}
}
