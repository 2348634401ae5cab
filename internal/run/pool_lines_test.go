package run

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
)

// TestPoolJobsKeepTheirLines: runs that wait for the pool's one worker
// each get their own program run, though their jobs' lines are made in
// buffers kept from run to run (jobLines): a line is given back only once
// its run is out of its worker. Given back as the run is admitted, a
// waiting run's line is another's program by the time it is sent.
func TestPoolJobsKeepTheirLines(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A line made of another's bytes may be no job at all, which its
	// worker waits on: the timeout, far past a print's time on any
	// machine, ends such a run.
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io"), Workers: 1,
		Confine: core.ModeOff, ImportRoot: dir, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	defer p.Close()
	const callers, each = 8, 4
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range each {
				n := c*each + i
				src := fmt.Sprintf("print(%d)\n", n)
				res, err := p.Run(context.Background(), PoolRun{Program: "n.vel", Source: []byte(src)})
				if want := fmt.Sprintf("%d\n", n); err != nil || string(res.Stdout) != want {
					t.Errorf("run of print(%d): %q, %v; want %q", n, res.Stdout, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
