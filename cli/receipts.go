package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/sabline/sabline/runtime"
)

// receiptsCmd: sabline receipts list|show|diff.
func receiptsCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return report(stderr, runtime.Errorf(runtime.E301, "receipts: want list, show RUN-ID or diff"), "")
	}
	verb := args[0]
	fs := newFlagSet("receipts "+verb, stderr)
	dir := fs.String("receipts", "", "receipts directory")
	asJSON := fs.Bool("json", false, "print JSON")
	positional, _, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return runtime.ExitUsage
	}
	if *dir == "" {
		if *dir, err = runtime.DefaultReceiptsDir(); err != nil {
			return report(stderr, err, "")
		}
	}
	switch verb {
	case "list":
		runs, err := runtime.ListReceipts(*dir)
		if err != nil {
			return report(stderr, err, "")
		}
		if *asJSON {
			return printJSON(stdout, runs)
		}
		for _, r := range runs {
			code := string(r.Outcome.Code)
			if code == "" {
				code = "-"
			}
			fmt.Fprintf(stdout, "%s  %s  %-8s %-4s %-7s %s\n", r.Timings.Started.Format("2006-01-02T15:04:05Z"),
				r.RunID, r.Outcome.Status, code, r.RunParameters.Confinement, r.Program.Path)
		}
		return 0
	case "show":
		if len(positional) != 1 {
			return report(stderr, runtime.Errorf(runtime.E301, "receipts show: want one RUN-ID (or a prefix of it)"), "")
		}
		r, err := runtime.FindReceipt(*dir, positional[0])
		if err != nil {
			return report(stderr, err, "")
		}
		data, err := os.ReadFile(r.Path)
		if err != nil {
			return report(stderr, runtime.Errorf(runtime.E317, "read receipt: %w", err), "")
		}
		stdout.Write(data)
		return 0
	case "diff":
		runs, err := runtime.ListReceipts(*dir)
		if err != nil {
			return report(stderr, err, "")
		}
		changes := runtime.DiffLevels(runs)
		weaker := false
		for _, c := range changes {
			fmt.Fprintln(stdout, c)
			weaker = weaker || c.Weaker
		}
		if len(changes) == 0 {
			fmt.Fprintf(stdout, "%d runs: every run had a level an earlier run of the same program had\n", len(runs))
		}
		if weaker {
			return 1
		}
		return 0
	}
	return report(stderr, runtime.Errorf(runtime.E301, "receipts %s: want list, show or diff", verb), "")
}

// printJSON writes v as indented JSON. Every value the commands print
// marshals; a write that fails (a closed standard output) is exit 1.
func printJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return 1
	}
	return 0
}
