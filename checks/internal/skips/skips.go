// Package skips counts the specs a conformance suite skipped, by the
// reason each gave: a skip says why, and the suite's count line says how
// many there were, so that a skip is never read as a pass.
package skips

import (
	"fmt"
	"io"
	goruntime "runtime"
	"sort"

	"github.com/onsi/ginkgo/v2/types"
)

// Print writes the count line of suite's skipped and pending specs and
// one line per reason, most frequent first.
func Print(w io.Writer, suite string, report types.Report) {
	reasons := map[string]int{}
	total := 0
	for _, sr := range report.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt || !sr.State.Is(types.SpecStateSkipped|types.SpecStatePending) {
			continue
		}
		total++
		why := sr.Failure.Message
		switch {
		case sr.State.Is(types.SpecStatePending):
			why = "pending: written, never run"
		case why == "":
			why = "not run (an earlier failure or a focus)"
		}
		reasons[why]++
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if reasons[keys[i]] != reasons[keys[j]] {
			return reasons[keys[i]] > reasons[keys[j]]
		}
		return keys[i] < keys[j]
	})
	fmt.Fprintf(w, "%s: %d specs skipped on %s\n", suite, total, goruntime.GOOS)
	for _, k := range keys {
		fmt.Fprintf(w, "  %d× %s\n", reasons[k], k)
	}
}
