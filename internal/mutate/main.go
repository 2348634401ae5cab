// Command mutate checks that the security code's tests can fail. It applies
// each mutation of a list (mutations.go) on its own to a scratch copy of the
// module, runs the tests that should notice, and prints whether a test that
// is not a golden comparison failed: caught, or survived. A mutation whose
// text is not found exactly once, or that does not build, is an error of the
// list, not a catch.
//
//	go run ./internal/mutate            # every mutation, one at a time
//	go run ./internal/mutate -list      # the list, with the test meant to catch each
//	go run ./internal/mutate -run seccomp-arch,rlimit-as
//
// It takes minutes (each mutation rebuilds and reruns its packages) and is
// not part of go test ./...; it exits 1 when a mutation survived or the list
// is stale.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	list := flag.Bool("list", false, "print the mutations and exit")
	only := flag.String("run", "", "comma-separated names of the mutations to run (default: all)")
	timeout := flag.Duration("timeout", 10*time.Minute, "time limit for one mutation's tests")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "mutate: no arguments are taken; see -h")
		os.Exit(2)
	}
	ms, err := selected(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	if *list {
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "mutation\tfile\tpackages\tmeant to be caught by")
		for _, m := range ms {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", m.Name, m.File, strings.Join(m.Packages, " "), m.CaughtBy)
		}
		w.Flush()
		return
	}
	os.Exit(run(ms, *timeout))
}

// selected returns the mutations named in a comma-separated list, or all.
func selected(only string) ([]Mutation, error) {
	if only == "" {
		return mutations, nil
	}
	var out []Mutation
	for _, name := range strings.Split(only, ",") {
		i := slices.IndexFunc(mutations, func(m Mutation) bool { return m.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("no mutation named %q (go run ./internal/mutate -list)", name)
		}
		out = append(out, mutations[i])
	}
	return out, nil
}

// verdict is the result of one mutation.
type verdict struct {
	name    string
	result  string // caught, survived, not-here, golden-only, stale, no-build, timeout, baseline-fails, no-verdict
	failed  []string
	elapsed time.Duration
}

func run(ms []Mutation, timeout time.Duration) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	scratch, err := os.MkdirTemp("", "sabline-mutate-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	if err := copyTracked(root, scratch); err != nil {
		fmt.Fprintln(os.Stderr, "mutate: copy the module:", err)
		return 2
	}
	bad := baseline(scratch, ms, timeout)
	var vs []verdict
	for _, m := range ms {
		if err, ok := bad[strings.Join(append(testArgs(m), m.Env...), " ")]; ok {
			vs = append(vs, verdict{name: m.Name, result: "baseline-fails", failed: []string{err.Error()}})
			continue
		}
		v := apply(scratch, m, timeout)
		fmt.Fprintf(os.Stderr, "%-34s %-11s %6.1fs %s\n", v.name, v.result, v.elapsed.Seconds(), strings.Join(v.failed, ", "))
		vs = append(vs, v)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "mutation\tresult\tcaught by (failing tests that are not golden comparisons)")
	failed, notHere := 0, 0
	for _, v := range vs {
		fmt.Fprintf(w, "%s\t%s\t%s\n", v.name, v.result, strings.Join(leaves(v.failed, 3), "; "))
		switch v.result {
		case "caught":
		case "not-here":
			notHere++
		default:
			failed++
		}
	}
	w.Flush()
	fmt.Printf("%d mutations: %d caught, %d not tried on this machine, %d not caught\n", len(vs), len(vs)-failed-notHere, notHere, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// apply makes one mutation in the scratch copy, runs its tests, and puts
// the file back.
func apply(scratch string, m Mutation, timeout time.Duration) verdict {
	start := time.Now()
	v := verdict{name: m.Name}
	path := filepath.Join(scratch, filepath.FromSlash(m.File))
	orig, err := os.ReadFile(path)
	if err != nil {
		v.result, v.failed = "stale", []string{err.Error()}
		return v
	}
	if n := bytes.Count(orig, []byte(m.Old)); n != 1 {
		v.result, v.failed = "stale", []string{fmt.Sprintf("%s: the text to mutate occurs %d times, not once", m.File, n)}
		return v
	}
	defer os.WriteFile(path, orig, 0o644)
	if err := os.WriteFile(path, bytes.Replace(orig, []byte(m.Old), []byte(m.New), 1), 0o644); err != nil {
		v.result, v.failed = "stale", []string{err.Error()}
		return v
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := goTest(ctx, scratch, m)
	v.elapsed = time.Since(start)
	switch {
	case ctx.Err() != nil:
		v.result = "timeout"
	case err == nil && m.SkippedBy != "" && bytes.Contains(out.Bytes(), []byte(m.SkippedBy)):
		v.result, v.failed = "not-here", []string{"skipped: " + m.SkippedBy}
	case err == nil:
		v.result = "survived"
	case buildFailed(out.Bytes()):
		v.result, v.failed = "no-build", firstLines(out.Bytes(), 3)
	default:
		all := failedTests(out.Bytes())
		for _, t := range all {
			if !isGolden(t) {
				v.failed = append(v.failed, t)
			}
		}
		switch {
		case len(v.failed) > 0:
			v.result = "caught"
		case len(all) > 0:
			v.result, v.failed = "golden-only", all
		default:
			v.result, v.failed = "no-verdict", firstLines(out.Bytes(), 3)
		}
	}
	if m.KeepLog != "" {
		os.WriteFile(m.KeepLog, out.Bytes(), 0o644)
	}
	return v
}

// goTest runs the tests of m in dir and returns what they printed.
func goTest(ctx context.Context, dir string, m Mutation) (*bytes.Buffer, error) {
	cmd := exec.CommandContext(ctx, "go", testArgs(m)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Env = append(cmd.Env, m.Env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 10 * time.Second
	return &out, cmd.Run()
}

// testArgs is the go test command line of m.
func testArgs(m Mutation) []string {
	args := append([]string{"test", "-count=1", "-tags=" + m.Tags}, m.Packages...)
	if m.Run != "" {
		args = append(args, "-run", m.Run)
	}
	if m.Focus != "" {
		args = append(args, "-ginkgo.focus="+m.Focus, "-ginkgo.no-color")
	}
	if m.SkippedBy != "" {
		// The skip messages: go test prints a passing package's output
		// only with -v, and ginkgo a skip's message only with its own.
		args = append(args, "-v", "-ginkgo.v")
	}
	return args
}

// baseline runs, on the unmutated copy, each distinct test command of ms
// once, and returns the error of those that fail, or run no test at all:
// a mutation whose tests fail already, or whose -run pattern names no
// test in its packages (a test that moved), proves nothing.
func baseline(scratch string, ms []Mutation, timeout time.Duration) map[string]error {
	bad := map[string]error{}
	seen := map[string]bool{}
	for _, m := range ms {
		key := strings.Join(append(testArgs(m), m.Env...), " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		out, err := goTest(ctx, scratch, m)
		cancel()
		if err == nil && ranNoTest(out.Bytes()) {
			err = errRanNoTest
		}
		if err != nil {
			bad[key] = fmt.Errorf("%v: %s", err, strings.Join(firstLines(out.Bytes(), 5), " | "))
			fmt.Fprintf(os.Stderr, "baseline fails: go %s\n%s\n", key, out)
		}
	}
	return bad
}

// errRanNoTest is the baseline's error for a command that ran no test.
var errRanNoTest = errors.New("it runs no test: its -run pattern names none in its packages")

// ranNoTest reports whether every package go test reported passing ran
// no test.
func ranNoTest(out []byte) bool {
	ok := okLine.FindAll(out, -1)
	return len(ok) > 0 && len(noTestsLine.FindAll(out, -1)) == len(ok)
}

var (
	okLine      = regexp.MustCompile(`(?m)^ok\s+\S+`)
	noTestsLine = regexp.MustCompile(`(?m)^ok\s+\S+.*\[no tests to run\]`)
	failLine    = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	ginkgoFail  = regexp.MustCompile(`(?m)^\s*\[FAIL\] (.+)$`)
	buildLine   = regexp.MustCompile(`(?m)^(FAIL\s+\S+ \[(build|setup) failed\]|# \S+$)`)
)

// failedTests names the failing tests in go test's output: subtests by
// their full name, ginkgo specs by their text.
func failedTests(out []byte) []string {
	var names []string
	for _, m := range failLine.FindAllSubmatch(out, -1) {
		names = append(names, string(m[1]))
	}
	for _, m := range ginkgoFail.FindAllSubmatch(out, -1) {
		names = append(names, "spec: "+strings.TrimSpace(string(m[1])))
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// leaves keeps, of failing test names, the most precise: a test whose
// subtests are named is dropped for them, and a test function with no
// subtest for the ginkgo specs named (the suite's runner); a spec loses
// its labels. It names at most max, then how many more there are.
func leaves(names []string, max int) []string {
	var out []string
	for _, n := range names {
		precise := slices.ContainsFunc(names, func(o string) bool {
			return strings.HasPrefix(o, n+"/") ||
				!strings.HasPrefix(n, "spec: ") && !strings.Contains(n, "/") && strings.HasPrefix(o, "spec: ")
		})
		if !precise {
			out = append(out, labels.ReplaceAllString(n, ""))
		}
	}
	if len(out) > max {
		out = append(out[:max], fmt.Sprintf("and %d more", len(out)-max))
	}
	return out
}

var labels = regexp.MustCompile(`\s*\[[^\]]*\]$`)

func buildFailed(out []byte) bool { return buildLine.Match(out) }

// isGolden reports whether a failing test compares output with a committed
// file: such a failure alone does not count, since a golden is regenerated
// whenever a change is meant.
func isGolden(test string) bool {
	for _, g := range goldenTests {
		if strings.HasPrefix(test, g) {
			return true
		}
	}
	return false
}

func firstLines(b []byte, n int) []string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[:min(n, len(lines))]
}

// moduleRoot is the directory of the go.mod this command runs in.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the sabline module")
	}
	return filepath.Dir(mod), nil
}

// copyTracked copies the files git tracks, plus untracked ones not ignored,
// so that the scratch copy is the tree as it is now.
func copyTracked(root, dst string) error {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		if err := copyFile(filepath.Join(root, rel), filepath.Join(dst, rel)); err != nil {
			if errors.Is(err, fs.ErrNotExist) { // deleted in the work tree
				continue
			}
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
