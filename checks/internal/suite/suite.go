// Package suite holds what the ginkgo suites of checks share: the time
// bound a suite takes from go test's own deadline, so that a suite that
// runs long fails with ginkgo's report of where it was instead of go
// test's panic, and the count of the specs it skipped, by the reason each
// gave, so that a skip is never read as a pass.
package suite

import (
	"fmt"
	"io"
	goruntime "runtime"
	"sort"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// reportMargin is how long before go test's deadline a suite stops, for
// ginkgo to write its report and the test binary to exit.
const reportMargin = 30 * time.Second

// Config is the suite configuration of t's suite: ginkgo's own, with the
// suite's timeout reportMargin before t's deadline (go test's -timeout,
// 10 minutes unless it is set), or ginkgo's own where t has none.
func Config(t *testing.T) types.SuiteConfig {
	cfg, _ := ginkgo.GinkgoConfiguration()
	if deadline, ok := t.Deadline(); ok {
		if left := time.Until(deadline) - reportMargin; left > 0 {
			cfg.Timeout = left
		}
	}
	return cfg
}

// Print writes the count line of suite's skipped and pending specs and
// one line per reason, most frequent first.
func Print(w io.Writer, suite string, report types.Report) {
	reasons := map[string]int{}
	total := 0
	for _, sr := range report.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt ||
			!sr.State.Is(types.SpecStateSkipped|types.SpecStatePending) {
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
