package sabline_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// TestMemoryHeldFromOutside: a program that passes its memory limit in
// one operation (a string of 640 MiB made in one step, under a limit of
// 256 MB) ends with E308, though its worker's own watch cannot act while
// the operation lasts (its Go runtime waits to stop the goroutine that
// makes the string, and every other goroutine waits with it): the
// supervisor reads the worker's memory from outside and stops the run.
// Run in a worker of its own, the largest resident set the kernel counted
// for the worker, read by the supervisor when it reaped it, is below the
// string's size: the run was stopped before the string was made. The
// control: a string of 160 MiB, under the limit, is made and printed,
// and the kernel counted at least that much; in a pool, the next run on a
// replacement ends ok.
func TestMemoryHeldFromOutside(t *testing.T) {
	const limitMB = 256
	program := func(mib int) []byte {
		return fmt.Appendf(nil, "s = \"x\" * (%d*1024*1024)\nprint(len(s))\n", mib)
	}
	tests := []struct {
		name       string
		mib        int
		wantCode   codes.Code
		wantStdout string
	}{
		{name: "one operation past the limit", mib: 640, wantCode: codes.E308},
		{name: "under the limit (the control)", mib: 160, wantStdout: fmt.Sprintln(160 << 20)},
	}
	for _, tt := range tests {
		t.Run("a worker each/"+tt.name, func(t *testing.T) {
			dir := t.TempDir()
			res, err := sabline.Run(context.Background(), sabline.Source("big.vel", program(tt.mib)),
				sabline.Options{Budget: budget.MustParse(dir, "io"), Cwd: dir, Receipts: t.TempDir(),
					MaxMemoryMB: limitMB, Timeout: time.Minute, Durability: receipt.None})
			if err != nil {
				t.Fatal(err)
			}
			o, peak := res.Receipt.Outcome, res.Receipt.Observed.MaxRSSKB<<10
			t.Logf("%s (%s); the worker's largest resident set %d MiB", o.Status, o.Message, peak>>20)
			if tt.wantCode != "" {
				tooFast(t, res.Receipt)
			}
			if o.Code != tt.wantCode || string(res.Stdout) != tt.wantStdout {
				t.Errorf("outcome %s (%s), output %q; want code %q, output %q",
					o.Code, o.Message, res.Stdout, tt.wantCode, tt.wantStdout)
			}
			switch size := int64(tt.mib) << 20; {
			case tt.wantCode != "" && peak >= size:
				t.Errorf("the worker held %d MiB at most, want less than the string's %d: "+
					"the run was not stopped while it made it", peak>>20, tt.mib)
			case tt.wantCode == "" && peak < size:
				t.Errorf("the worker held %d MiB at most, want the string's %d at least",
					peak>>20, tt.mib)
			}
		})
	}
	t.Run("a pool's worker", func(t *testing.T) {
		root := importRoot(t)
		p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1,
			MaxMemoryMB: limitMB, ImportRoot: root, Timeout: time.Minute,
			Receipts: t.TempDir(), Durability: receipt.None})
		for _, tt := range tests {
			res, err := p.Run(context.Background(), sabline.Source("big.vel", program(tt.mib)),
				sabline.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantCode != "" {
				tooFast(t, res.Receipt)
			}
			if o := res.Receipt.Outcome; o.Code != tt.wantCode || string(res.Stdout) != tt.wantStdout {
				t.Errorf("%s: outcome %s (%s), output %q; want code %q, output %q", tt.name,
					o.Code, o.Message, res.Stdout, tt.wantCode, tt.wantStdout)
			}
		}
	})
}

// tooFast skips the test when a run past its limit ended ok having made
// its string in less than two of the supervisor's reads' periods: on such
// a machine no operation of the language outlasts them, and what the test
// shows (one operation outlasting the worker's watch and stopped from
// outside) cannot be made here. A run that failed, or took longer, is
// judged.
func tooFast(t *testing.T, rec *receipt.Receipt) {
	t.Helper()
	ran := time.Duration(rec.Timings.Worker.RunMS * float64(time.Millisecond))
	if rec.Outcome.Status == receipt.StatusOK && ran < 2*run.BoundsWatchEvery {
		t.Skipf("the string was made in %v, within two of the supervisor's reads (%v): "+
			"this machine makes it too fast to show a read during it", ran, run.BoundsWatchEvery)
	}
}

// TestPoolMemoryAnEarlierRunLeft: what a pooled run left in its worker's
// memory is not the next run's. A run that makes a string of 44 MiB
// under its pool's limit of 64 MB ends ok, and leaves the string in the
// worker, resident, as garbage: the collector takes it only when the
// next run allocates, and the runtime gives it back later still. The
// next run on the same worker, which makes a string of 40 MiB in one
// operation and ends ok on a worker that ran nothing before it (the
// control), was stopped behind it, E308 "the run used 84 MB ... read by
// the supervisor", whose reads from outside, where no garbage can be
// given back, counted the earlier run's string as its own: one tenant's
// run ended another's. Each pair is tried a few times, since a read
// must fall while both strings are resident.
func TestPoolMemoryAnEarlierRunLeft(t *testing.T) {
	const limitMB = 64
	program := func(mib int) sabline.Program {
		return sabline.Source("big.vel",
			fmt.Appendf(nil, "s = \"x\" * (%d*1024*1024)\nprint(len(s))\n", mib))
	}
	leave, look := 44, 40
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1,
		MaxMemoryMB: limitMB, ImportRoot: root, Timeout: time.Minute,
		Receipts: t.TempDir(), Durability: receipt.None})
	run := func(what string, mib int) {
		t.Helper()
		res, err := p.Run(context.Background(), program(mib), sabline.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Receipt.Outcome; o.Status != receipt.StatusOK ||
			string(res.Stdout) != fmt.Sprintln(mib<<20) {
			t.Errorf("%s, a string of %d MiB under a limit of %d MB: %s %s (%s), output %q; "+
				"want it made and printed", what, mib, limitMB, o.Status, o.Code, o.Message,
				res.Stdout)
		}
	}
	run("the control, the looking run on a worker that ran nothing", look)
	pids := p.Workers()
	for i := range 6 {
		run(fmt.Sprintf("try %d, the leaving run", i), leave)
		run(fmt.Sprintf("try %d, the looking run after it", i), look)
		if t.Failed() {
			return
		}
	}
	if after := p.Workers(); !slices.Equal(pids, after) {
		t.Errorf("workers %v, then %v: the runs did not share their worker", pids, after)
	}
}
