package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// TestReceiptsShowCutArgs: receipts show says of a receipt whose
// arguments passed the bound that they were cut, with their digest, and
// says nothing of the kind of one that keeps them whole (the positive
// control); replay refuses the cut one, whose run it cannot ask for again.
func TestReceiptsShowCutArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantCut bool
	}{
		{name: "at the bound", args: []string{strings.Repeat("a", receipt.MaxArgsBytes)}},
		{name: "past the bound", args: []string{strings.Repeat("a", receipt.MaxArgsBytes+1)},
			wantCut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := t.TempDir()
			rec := receipt.New("/srv/p.vel", budget.Budget{}, tt.args)
			rec.Timings.Started = time.Now().UTC()
			rec.Outcome = receipt.OutcomeOf(nil)
			if _, err := rec.Write(rc); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := Main([]string{"receipts", "show", "last", "--receipts", rc}, nil, &stdout,
				&stderr); code != 0 {
				t.Fatalf("receipts show: exit %d: %s", code, stderr.String())
			}
			said := strings.Contains(stderr.String(), "args: CUT") &&
				strings.Contains(stdout.String(), `"args_cut"`)
			if said != tt.wantCut {
				t.Fatalf("said the args were cut: %v, want %v:\n%s%s", said, tt.wantCut,
					stderr.String(), stdout.String())
			}
			if tt.wantCut && !strings.Contains(stderr.String(), rec.ArgsCut.SHA256) {
				t.Errorf("the line does not give the digest %s: %s", rec.ArgsCut.SHA256, stderr.String())
			}
			_, err := replayRun(rec, &runFlags{}, rc, true)
			if (err != nil && strings.Contains(err.Error(), "arguments whole")) != tt.wantCut {
				t.Errorf("replay of the receipt: %v; want it refused only when the args were cut", err)
			}
		})
	}
}
