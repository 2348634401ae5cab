// Command designstat prints, as Markdown tables, facts about the shape of
// the Go module in the current directory that a security reviewer weighs
// before reading its code:
//
//   - per package, how many names it exports (exported top-level types,
//     funcs, vars and consts, and the exported methods declared on its
//     exported types), how many of those another package of the module
//     names, its non-blank lines and how many of them are wider than 100
//     columns. An exported name nothing else names is surface that could
//     be unexported; a long line is one a reviewer reads less well.
//   - the 15 largest functions, where a reviewer spends the most time and
//     where a missed branch hides most easily.
//   - whether the packages' import graph has a cycle, how many packages
//     the module has, and which of them another module can import (no
//     element of the path is "internal"): the surface others can call.
//
// With -base REV it checks REV out into a temporary git worktree, measures
// it the same way, removes the worktree and prints both, before and after,
// side by side, packages matched by import path.
//
// What is counted, exactly:
//
//   - A package's files are its non-test .go files for every build
//     configuration (those the build constraints leave out here too),
//     without generated files, testdata or a file of another package (a
//     "//go:build ignore" generator). A name declared in two files, one
//     per system, counts once.
//   - "Used elsewhere" comes from types.Info.Uses of every package of the
//     module as built for this system, its tests included: an exported name
//     counts if a package other than its own, and other than its own tests
//     (in the package or in its _test package), names it. A method called
//     only through an interface is not named, so it does not count; nor
//     does a name used only in a file built for another system.
//   - Widths count a tab as reaching the next multiple of 4 columns.
//   - A function's lines run from its func keyword to its closing brace.
//   - The import graph is the non-test one, built for linux, darwin and
//     windows in turn; each is checked for a cycle.
//
// Usage, from the module's root:
//
//	go run ./internal/designstat [-base REV]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// topFuncs is how many of the largest functions are listed.
const topFuncs = 15

func main() {
	base := flag.String("base", "",
		"also measure this git revision and print it beside the working tree")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: designstat [-base REV]")
		os.Exit(2)
	}
	after, err := measure(".")
	if err != nil {
		fail(err)
	}
	var before *report
	if *base != "" {
		if before, err = measureRev(*base); err != nil {
			fail(err)
		}
	}
	write(os.Stdout, before, after, *base)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "designstat:", err)
	os.Exit(1)
}

// measureRev measures the current directory's module as it is at rev, in
// a detached git worktree made for it and removed after.
func measureRev(rev string) (*report, error) {
	prefix, err := git(".", "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "designstat-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "tree")
	if _, err := git(".", "worktree", "add", "--detach", tree, rev); err != nil {
		return nil, err
	}
	r, err := measure(filepath.Join(tree, filepath.FromSlash(prefix)))
	if _, rmErr := git(".", "worktree", "remove", "--force", tree); rmErr != nil && err == nil {
		err = rmErr
	}
	return r, err
}

// git runs git in dir and returns its output, trimmed.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out)), nil
}

// write prints after, and before beside it when it is not nil.
func write(w io.Writer, before, after *report, rev string) {
	reports := []*report{after}
	heads := []string{""}
	if before != nil {
		reports = []*report{before, after}
		heads = []string{" before", " after"}
		fmt.Fprintf(w, "# Design statistics: %s, before = %s, after = working tree\n\n",
			after.Module, rev)
	} else {
		fmt.Fprintf(w, "# Design statistics: %s, working tree\n\n", after.Module)
	}
	writePackages(w, reports, heads)
	writeFuncs(w, reports, heads)
	writeGraph(w, reports, heads)
}

func writePackages(w io.Writer, reports []*report, heads []string) {
	fmt.Fprintf(w, "## Packages\n\n")
	cols := []string{"exported", "used elsewhere", "lines", "lines > 100 cols"}
	var head, rule []string
	head, rule = append(head, "package"), append(rule, "---")
	for _, c := range cols {
		for _, h := range heads {
			head, rule = append(head, c+h), append(rule, "--:")
		}
	}
	row(w, head)
	row(w, rule)
	var paths []string
	for _, r := range reports {
		for p := range r.Pkgs {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	slices.Sort(paths)
	module := reports[len(reports)-1].Module
	totals := make([][4]int, len(reports))
	for _, p := range paths {
		cells := []string{"`" + rel(module, p) + "`"}
		for i := range cols {
			for j, r := range reports {
				st := r.Pkgs[p]
				if st == nil {
					cells = append(cells, "-")
					continue
				}
				v := [4]int{st.Exported, st.Used, st.Lines, st.LongLines}[i]
				totals[j][i] += v
				cells = append(cells, itoa(v))
			}
		}
		row(w, cells)
	}
	cells := []string{"**total**"}
	for i := range cols {
		for j := range reports {
			cells = append(cells, "**"+itoa(totals[j][i])+"**")
		}
	}
	row(w, cells)
	fmt.Fprintln(w)
}

func writeFuncs(w io.Writer, reports []*report, heads []string) {
	fmt.Fprintf(w, "## The %d largest functions\n\n", topFuncs)
	head, rule := []string{"#"}, []string{"--:"}
	for _, h := range heads {
		head = append(head, "package"+h, "function"+h, "file"+h, "lines"+h)
		rule = append(rule, "---", "---", "---", "--:")
	}
	row(w, head)
	row(w, rule)
	for i := range topFuncs {
		cells := []string{itoa(i + 1)}
		for _, r := range reports {
			if i >= len(r.Funcs) {
				cells = append(cells, "-", "-", "-", "-")
				continue
			}
			f := r.Funcs[i]
			cells = append(cells, "`"+rel(r.Module, f.Pkg)+"`", "`"+f.Name+"`", f.File,
				itoa(f.Lines))
		}
		row(w, cells)
	}
	fmt.Fprintln(w)
}

func writeGraph(w io.Writer, reports []*report, heads []string) {
	fmt.Fprintf(w, "## Import graph\n\n")
	head, rule := []string{""}, []string{"---"}
	for _, h := range heads {
		head, rule = append(head, strings.TrimSpace(h)), append(rule, "---")
	}
	row(w, head)
	row(w, rule)
	circles := []string{"circles (GOOS=" + strings.Join(graphGOOS, ", ") + ")"}
	total := []string{"module packages"}
	public := []string{"public packages (no internal/ in the path)"}
	for _, r := range reports {
		circles = append(circles, circleText(r))
		total = append(total, itoa(len(r.Pkgs)))
		public = append(public, itoa(len(r.Public)))
	}
	row(w, circles)
	row(w, total)
	row(w, public)
	fmt.Fprintln(w)

	fmt.Fprintf(w, "Public packages:\n\n")
	head, rule = []string{"package"}, []string{"---"}
	for _, h := range heads {
		head, rule = append(head, "public"+h), append(rule, ":-:")
	}
	row(w, head)
	row(w, rule)
	var paths []string
	for _, r := range reports {
		for _, p := range r.Public {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	slices.Sort(paths)
	module := reports[len(reports)-1].Module
	for _, p := range paths {
		cells := []string{"`" + rel(module, p) + "`"}
		for _, r := range reports {
			if slices.Contains(r.Public, p) {
				cells = append(cells, "yes")
			} else {
				cells = append(cells, "-")
			}
		}
		row(w, cells)
	}
}

// circleText is "none", or each system's cycle.
func circleText(r *report) string {
	var found []string
	for _, goos := range graphGOOS {
		c := r.Cycles[goos]
		if c == nil {
			continue
		}
		names := make([]string, len(c))
		for i, p := range c {
			names[i] = rel(r.Module, p)
		}
		found = append(found, goos+": "+strings.Join(names, " → "))
	}
	if len(found) == 0 {
		return "none"
	}
	return strings.Join(found, "; ")
}

func row(w io.Writer, cells []string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}
