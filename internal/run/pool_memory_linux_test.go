package run

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt"
)

// TestPoolReceiptOfALargeResult: a run that may make raw system calls
// writes a result line of its own, some 2 MiB, of characters a receipt
// writes escaped (six bytes for "<"), and ends its worker before the
// worker's own line: two effects naming no grant of its budget, or 1,024
// files (program.MaxFiles; 4,000 before that bound). Its receipt came to 13 MB, past what the journal keeps: the run
// returned E327 and its receipt was left the skeleton that reads
// unfinished. Now effects that count no grant of the run's budget are
// not ones the worker could have sent (E310), and a receipt past the
// journal's bound is cut to fit, saying what was cut. The control: a
// result that counts a grant of the budget (io, 7 uses) is taken, the
// worker's word.
func TestPoolReceiptOfALargeResult(t *testing.T) {
	const forges = `c = ffi.module("ctypes")
big = "<" * int(ARGS[1])
if ARGS[0] == "effects":
    said = '"effects":[{"grant":"' + big + '","uses":1},{"grant":"' + big + '","uses":1}]'
elif ARGS[0] == "files":
    one = '{"path":"/' + big + '","sha256":"00"}'
    said = '"files":[' + ",".join([one] * 1024) + ']'
else:
    said = '"effects":[{"grant":"io","uses":7}]'
r = '{"outcome":{"status":"ok","exit_status":0},' + said + '}\n'
c.syscall("write", 4, r, len(r))
c.syscall("exit_group", 0)
`
	tests := []struct {
		name, said, size string
		wantCode         string
		wantMsg          string
		wantCut          string // among the receipt's cut
		wantUses         int    // of io, as the receipt says
	}{
		{name: "effects of no grant of the budget", said: "effects", size: "1126400", wantCode: "E310",
			wantMsg: "effect 0 is not a count of a grant of the run's budget"},
		{name: "1,024 files", said: "files", size: "2200",
			wantCut: "program.files: the digests of the 1023 files the program loaded"},
		{name: "the control: a count of a grant of the budget", said: "io", size: "0", wantUses: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io", "ffi:ctypes"), Workers: 1,
				Confine: core.ModeStrict, ImportRoot: dir, Timeout: time.Minute, Receipts: t.TempDir()})
			if err != nil {
				t.Fatalf("StartPool: %v", err)
			}
			defer p.Close()
			res, err := p.Run(context.Background(), PoolRun{Program: "forge.vel", Source: []byte(forges),
				Args: []string{tt.said, tt.size}})
			if _, serr := res.Receipt.Stored(); err != nil || serr != nil {
				t.Fatalf("the run: %v; its receipt: %v", err, serr)
			}
			if err := p.store.Sync(); err != nil {
				t.Fatal(err)
			}
			found, err := receipt.Find(p.cfg.Receipts, res.Receipt.RunID)
			if err != nil {
				t.Fatalf("the receipt was not stored: %v", err)
			}
			stored := found.Receipt
			o := stored.Outcome
			t.Logf("stored: %s %s %q; cut %q", o.Status, o.Code, o.Message, stored.Cut)
			if o.Status == "" || string(o.Code) != tt.wantCode || !strings.Contains(o.Message, tt.wantMsg) {
				t.Errorf("the stored receipt says %s %s %q, want %q containing %q", o.Status, o.Code,
					o.Message, tt.wantCode, tt.wantMsg)
			}
			if tt.wantCut != "" && !slices.Contains(stored.Cut, tt.wantCut) {
				t.Errorf("cut %q, want %q among them", stored.Cut, tt.wantCut)
			}
			if tt.wantUses > 0 && (len(stored.Effects) != 1 || stored.Effects[0].Uses != tt.wantUses) {
				t.Errorf("effects %+v, want io used %d times, as the result said", stored.Effects, tt.wantUses)
			}
		})
	}
}
