package suite

import (
	"bytes"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// TestPrint: the count line counts every spec that did not run as a
// skip, by its reason: one skipped with its reason, one without (not
// run), and one pending (written, never run), so that none is read as a
// pass. The controls: a spec that passed, one that failed, and a node
// that is not a spec (a BeforeSuite) are not counted.
func TestPrint(t *testing.T) {
	spec := func(state types.SpecState, why string) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, State: state,
			Failure: types.Failure{Message: why}}
	}
	report := types.Report{SpecReports: types.SpecReports{
		spec(types.SpecStateSkipped, "the kernel has no i386 entry"),
		spec(types.SpecStateSkipped, "the kernel has no i386 entry"),
		spec(types.SpecStateSkipped, ""),
		spec(types.SpecStatePending, ""),
		spec(types.SpecStatePassed, ""),
		spec(types.SpecStateFailed, "a failure"),
		{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateSkipped},
	}}
	var b bytes.Buffer
	Print(&b, "checks/x", report)
	want := "checks/x: 4 specs skipped on " + goruntime.GOOS + "\n" +
		"  2× the kernel has no i386 entry\n" +
		"  1× not run (an earlier failure or a focus)\n" +
		"  1× pending: written, never run\n"
	if got := b.String(); got != want {
		t.Errorf("Print wrote\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(b.String(), "a failure") {
		t.Errorf("a failed spec was counted as a skip:\n%s", b.String())
	}
}
