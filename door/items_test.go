package door

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// items is n distinct fs:read items, comma-separated.
func items(n int) string {
	l := make([]string, n)
	for i := range l {
		l[i] = fmt.Sprintf("fs:read:/d/%07d/x", i)
	}
	return strings.Join(l, ",")
}

// TestAllowItemsBound: a request's allow names at most maxAllow budget
// items in all, however its strings hold them: one string of many
// comma-separated items is refused (E301) as a list of as many strings
// is. The control, maxAllow items in one string or in the list, is read.
func TestAllowItemsBound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		allow string
		ok    bool
	}{
		{"one string, maxAllow items", fmt.Sprintf("[%q]", items(maxAllow)), true},
		{"maxAllow strings", "[" + strings.Repeat(`"io",`, maxAllow-1) + `"io"]`, true},
		{"one string, past maxAllow", fmt.Sprintf("[%q]", items(maxAllow+1)), false},
		{"one string, 20000 items", fmt.Sprintf("[%q]", items(20000)), false},
		{"two strings, past maxAllow in all", fmt.Sprintf("[%q,%q]", items(200), items(200)), false},
	} {
		_, err := decodeRunRequest([]byte(`{"source":"print(1)","allow":` + tc.allow + `}`))
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v, want it read", tc.name, err)
		case !tc.ok && codes.CodeOf(err) != codes.E301:
			t.Errorf("%s: %v, want E301: past the %d items a door reads", tc.name, err, maxAllow)
		}
	}
}

// TestPoolRunnerAuditItemsBound: an audit of a program whose # allow:
// line declares more than maxAllow items is refused (E301) before its
// policy is derived, which costs time in the square of the items (20,000
// took 18 s, holding a turn of the door's gate, and a 16 MiB program
// declares 700,000); the control, maxAllow items, is audited.
func TestPoolRunnerAuditItemsBound(t *testing.T) {
	root := t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: t.TempDir()})
	src := func(n int) string { return "# allow: " + items(n) + "\nprint(1)\n" }
	if _, err := r.Audit(context.Background(), AuditRequest{Source: src(maxAllow)}); err != nil {
		t.Errorf("audit of %d declared items: %v, want it audited", maxAllow, err)
	}
	_, err := r.Audit(context.Background(), AuditRequest{Source: src(maxAllow + 1)})
	if codes.CodeOf(err) != codes.E301 || !strings.Contains(err.Error(), "# allow: line") {
		t.Errorf("audit of %d declared items: %v, want E301 naming the # allow: line", maxAllow+1, err)
	}
}
