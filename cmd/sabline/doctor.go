package main

import (
	"fmt"
	"io"

	"github.com/sabline/sabline/runtime"
)

func doctorCmd(_ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sabline: doctor is not in this build yet")
	return runtime.ExitUsage
}

func evalCmd(_ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "sabline: eval is not in this build yet")
	return runtime.ExitUsage
}
