package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/ship"
)

// receiptsCmd: sabline receipts list [--json] | show RUN-ID|last | diff,
// each with [--receipts DIR], or [--receipts-url URL [--tenant NAME]]
// to read the store a fleet of servers ships its receipts to. A file in
// the directory (or an object in the store) that is not a receipt is
// named on standard error and passed over.
func receiptsCmd(args []string, stdout, stderr io.Writer) int {
	const want = "want list, show RUN-ID (or last) or diff"
	if len(args) == 0 {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "receipts: %s", want), "")
	}
	verb := args[0]
	switch verb {
	case "list", "show", "diff":
	case "-h", "--help", "help":
		return printHelp(stdout, stderr, "receipts")
	default:
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "receipts %s: %s", verb, want), "")
	}
	fs, rf := receiptsFlagSet(verb)
	dir, url, tenantName, agent, asJSON := &rf.dir, &rf.url, &rf.tenant, &rf.agent, &rf.json
	positional, rest, err := cmdline.ParseInterspersed(fs, args[1:])
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	positional = append(positional, rest...)
	if verb == "show" {
		if len(positional) != 1 {
			return cmdline.Report(stderr,
				codes.Errorf(codes.E301, "receipts show: want one RUN-ID (or a prefix of it, or last), got %d",
					len(positional)), "")
		}
		if positional[0] == "" {
			_, err := receipt.Pick(nil, "")
			return cmdline.Report(stderr, err, "")
		}
	} else if len(positional) > 0 {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "receipts %s takes no arguments, got %s", verb,
				strings.Join(positional, " ")), "")
	}
	var runs []receipt.StoredReceipt
	var skipped []receipt.SkippedFile
	switch {
	case *url != "" && *dir != "":
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "receipts %s: give --receipts DIR or --receipts-url URL, not both",
				verb), "")
	case *url != "":
		*dir = bucket.Redact(*url) // its query can hold a key
		runs, skipped, err = sharedReceipts(*url, *agent, *tenantName, stderr)
	case *tenantName != "":
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301,
				"receipts %s: --tenant reads the shared store: give --receipts-url URL with it", verb), "")
	default:
		if *dir == "" {
			if *dir, err = receipt.DefaultDir(); err != nil {
				return cmdline.Report(stderr, err, "")
			}
		}
		runs, skipped, err = receipt.Scan(*dir)
	}
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "sabline: passed over %s: not a receipt: %s\n", terminalSafe(s.Path),
			terminalSafe(s.Why))
	}
	switch verb {
	case "list":
		if *asJSON {
			if runs == nil {
				runs = []receipt.StoredReceipt{}
			}
			return printJSON(stdout, runs)
		}
		if len(runs) == 0 {
			fmt.Fprintf(stdout, "no receipts in %s\n", terminalSafe(*dir))
			return 0
		}
		// The run id's column is as wide as the ids a run is given now;
		// an earlier, shorter one is padded to it.
		fmt.Fprintf(stdout, "%-20s  %-*s  %-10s %-4s %-7s %s\n", "STARTED", receipt.RunIDLen,
			"RUN ID", "STATUS", "CODE", "LEVEL", "PROGRAM")
		marked := false
		for _, r := range runs {
			// A status the worker reported where the program could have
			// written it is marked, as show and diff mark it.
			status := string(r.Outcome.Status)
			if r.TestimonyOf(receipt.FieldOutcome) != "" {
				status += testimonyMark
				marked = true
			}
			code := string(r.Outcome.Code)
			if code == "" {
				code = "-"
			}
			level := string(r.RunParameters.Confinement)
			if r.Outcome.Status == receipt.StatusUnfinished && r.Confinement().Unapplied() {
				level = "-" // not recorded: the run may have been held in full
			}
			fmt.Fprintln(stdout,
				terminalSafe(fmt.Sprintf("%s  %-*s  %-10s %-4s %-7s %s",
					r.Timings.Started.Format("2006-01-02T15:04:05Z"), receipt.RunIDLen,
					r.RunID, status, code, level, r.Program.Path)))
		}
		if marked {
			fmt.Fprintf(stderr, "sabline: a status marked %s is TESTIMONY, reported by what ran "+
				"the program, which could have forged it: receipts show RUN-ID says why\n",
				testimonyMark)
		}
		return 0
	case "show":
		r, err := receipt.PickIn(*dir, runs, skipped, positional[0])
		if err != nil {
			return cmdline.Report(stderr, err, "")
		}
		// Which fields the worker reported, and whether they are
		// testimony, beside the receipt, which says it too.
		fmt.Fprintf(stderr, "sabline: run %s: %s\n", terminalSafe(r.RunID), terminalSafe(r.Parts()))
		for _, line := range []string{r.ArgsLine(), r.StdoutLine()} {
			if line != "" {
				fmt.Fprintf(stderr, "sabline: run %s: %s\n", terminalSafe(r.RunID),
					terminalSafe(line))
			}
		}
		for _, line := range r.ConnectionLines() {
			// Seen by the supervisor, which made each connection.
			fmt.Fprintf(stderr, "sabline: run %s: %s\n", terminalSafe(r.RunID), terminalSafe(line))
		}
		// The receipt as read (bounded and parsed), encoded again: the
		// encoder escapes the control characters a program's text can hold.
		return printJSON(stdout, r.Receipt)
	}
	if printDiff(stdout, runs) {
		return 1
	}
	return 0
}

// testimonyMark follows, in receipts list, a status that is testimony.
const testimonyMark = "*"

// printDiff prints what receipts diff says of runs (oldest first): each
// run at a level no earlier run of its program had, and each that
// reported using a grant no earlier run of it reported using. It reports
// whether a run was weaker than every earlier run of its program.
func printDiff(stdout io.Writer, runs []receipt.StoredReceipt) (weaker bool) {
	// What the supervisor saw (the level) is compared with what it saw,
	// what a worker reported (the grants used) with what workers reported.
	changes := receipt.DiffLevels(runs)
	for _, c := range changes {
		fmt.Fprintln(stdout, terminalSafe(c.String()))
		weaker = weaker || c.Weaker
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "%d runs: every run had a level an earlier run of the same program had\n",
			len(runs))
	}
	for _, c := range receipt.DiffEffects(runs) {
		fmt.Fprintln(stdout, terminalSafe(c.String()))
	}
	for _, c := range receipt.DiffConnections(runs) {
		fmt.Fprintln(stdout, terminalSafe(c.String()))
	}
	return weaker
}

// receiptsFlags are the flags of sabline receipts list, show and diff.
type receiptsFlags struct {
	dir, url, tenant, agent string
	json                    bool // list only
}

// receiptsFlagSet is the flag set of sabline receipts verb (list, show
// or diff), and where it puts them.
func receiptsFlagSet(verb string) (*flag.FlagSet, *receiptsFlags) {
	fs := cmdline.NewFlagSet("receipts " + verb)
	f := &receiptsFlags{}
	fs.StringVar(&f.dir, "receipts", "", "receipts `directory`")
	fs.StringVar(&f.url, "receipts-url", "",
		"read the shared store at `URL` instead (see sabline serve --receipts-url)")
	fs.StringVar(&f.tenant, "tenant", "", "with --receipts-url, the receipts of this `tenant` only")
	fs.StringVar(&f.agent, "store-agent", "",
		"the store agent's `executable` (default: "+bucket.AgentName+" beside sabline, else on PATH)")
	if verb == "list" {
		fs.BoolVar(&f.json, "json", false, "print JSON")
	}
	return fs, f
}

// sharedReceipts reads the receipts in the store at url, of tenant only
// when one is named, through a store agent started for it.
func sharedReceipts(url, agentPath, tenantName string,
	stderr io.Writer) ([]receipt.StoredReceipt, []receipt.SkippedFile, error) {
	a, err := cmdline.StartAgent(url, agentPath, stderr)
	if err != nil {
		return nil, nil, err
	}
	defer a.Close()
	if tenantName == "" {
		tenantName = ship.AnyTenant
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return ship.NewReader(a).All(ctx, tenantName)
}
