package main

import (
	"fmt"
	"io"

	"github.com/sabline/sabline/runtime"
)

func notYet(name string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "sabline: %s is not in this build yet\n", name)
	return runtime.ExitUsage
}

func auditCmd(_ []string, _, stderr io.Writer) int    { return notYet("audit", stderr) }
func osPolicyCmd(_ []string, _, stderr io.Writer) int { return notYet("os-policy", stderr) }
func doctorCmd(_ []string, _, stderr io.Writer) int   { return notYet("doctor", stderr) }
func evalCmd(_ []string, _, stderr io.Writer) int     { return notYet("eval", stderr) }
