// Command suitetimes reads the output of `go test -json` runs and prints
// each package's time side by side, as a Markdown table: one column per
// run, named by its file. A run's whole time is not in its events:
// bench/suites prints it when it makes the run.
//
//	go run ./bench/internal/suitetimes before-quiet.json after-quiet.json
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// event is the part of a test2json event read here.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// module is the import path the table's names are relative to.
const module = "github.com/sabline/sabline"

// maxLine bounds one line of a run's output.
const maxLine = 1 << 20

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: suitetimes RUN.json...")
		os.Exit(2)
	}
	runs := make([]map[string]string, len(os.Args)-1)
	pkgs := map[string]bool{}
	for i, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "suitetimes:", err)
			os.Exit(1)
		}
		runs[i], err = read(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "suitetimes: %s: %v\n", path, err)
			os.Exit(1)
		}
		for p := range runs[i] {
			pkgs[p] = true
		}
	}
	var names []string
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	head := "| package |"
	rule := "|---|"
	for _, path := range os.Args[1:] {
		head += " " + strings.TrimSuffix(filepath.Base(path), ".json") + " |"
		rule += "---:|"
	}
	fmt.Println(head)
	fmt.Println(rule)
	for _, p := range names {
		name := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		if name == "" {
			name = "."
		}
		line := "| `" + name + "` |"
		for _, r := range runs {
			line += " " + r[p] + " |"
		}
		fmt.Println(line)
	}
}

// read returns each package's outcome in one run: its seconds, marked
// FAIL when it failed; packages without tests are left out.
func read(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test != "" {
			continue // a line of the build's, or one test's
		}
		switch e.Action {
		case "pass":
			out[e.Package] = fmt.Sprintf("%.1f s", e.Elapsed)
		case "fail":
			out[e.Package] = fmt.Sprintf("**FAIL** %.1f s", e.Elapsed)
		}
	}
	return out, sc.Err()
}
