// Command phasetable runs a command built with -tags sabline_phases many
// times, each time with SABLINE_PHASES naming a file of its own, and
// prints, for every mark the command's processes wrote (see
// internal/phase), the median time since the command was started, with
// the process that wrote it: the supervisor is the first process to mark,
// the worker the second. bench/phases runs it.
//
//	phasetable [-n RUNS] [-bare BINARY] -- COMMAND [ARGS...]
//
// With -bare, each run of the command is followed by one of BINARY, and the
// table ends with that binary's median start-to-exit time.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("n", 300, "how many runs of the command")
	bare := flag.String("bare", "", "a binary to time beside the command")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: phasetable [-n RUNS] [-bare BINARY] -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	if err := table(*runs, *bare, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "phasetable:", err)
		os.Exit(1)
	}
}

// key is one mark of one process: the k-th time it wrote name.
type key struct {
	proc int // 0 for the first process to mark, 1 for the second, ...
	name string
}

func table(runs int, bare string, argv []string) error {
	dir, err := os.MkdirTemp("", "phasetable-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	at := map[key][]float64{}
	var ends, bares []float64
	for i := range runs {
		marks := filepath.Join(dir, strconv.Itoa(i))
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "SABLINE_PHASES="+marks)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("run %d: %v\n%s", i, err, out)
		}
		ends = append(ends, ms(time.Since(start)))
		if err := read(marks, start, at); err != nil {
			return err
		}
		if bare != "" {
			t := time.Now()
			if err := exec.Command(bare).Run(); err != nil {
				return fmt.Errorf("%s: %w", bare, err)
			}
			bares = append(bares, ms(time.Since(t)))
		}
	}
	keys := make([]key, 0, len(at))
	for k, v := range at {
		if len(v) == runs { // a mark every run wrote
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return int(1000 * (median(at[a]) - median(at[b]))) })
	fmt.Printf("| process | mark | ms since the command started (median of %d) | "+
		"since the mark before |\n|---|---|---|---|\n", runs)
	prev := 0.0
	for _, k := range keys {
		m := median(at[k])
		fmt.Printf("| %s | %s | %.2f | %.2f |\n", []string{"supervisor", "worker"}[min(k.proc, 1)],
			k.name, m, m-prev)
		prev = m
	}
	m := median(ends)
	fmt.Printf("| supervisor | exited, as its caller sees it | %.2f | %.2f |\n", m, m-prev)
	if bare != "" {
		fmt.Printf("\n%s, started and exited beside it: %.2f ms (median of %d)\n", filepath.Base(bare),
			median(bares), runs)
	}
	return nil
}

// read adds the marks of one run to at, as milliseconds since start. The
// processes are told apart by their first mark: each writes its marks when
// it ends, the worker before its supervisor.
func read(path string, start time.Time, at map[key][]float64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("no marks (is the command built with -tags sabline_phases?): %w", err)
	}
	type line struct {
		ns        int64
		pid, name string
	}
	var lines []line
	first := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		fields := strings.SplitN(l, " ", 3)
		if len(fields) != 3 {
			return fmt.Errorf("%s: not a mark: %q", path, l)
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		lines = append(lines, line{ns, fields[1], fields[2]})
		if t, ok := first[fields[1]]; !ok || ns < t {
			first[fields[1]] = ns
		}
	}
	pids := slices.SortedFunc(maps.Keys(first),
		func(a, b string) int { return cmp.Compare(first[a], first[b]) })
	seen := map[key]int{}
	for _, l := range lines {
		k := key{slices.Index(pids, l.pid), l.name}
		if seen[k]++; seen[k] > 1 {
			k.name = fmt.Sprintf("%s (%d)", k.name, seen[k])
		}
		at[k] = append(at[k], ms(time.Unix(0, l.ns).Sub(start)))
	}
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
