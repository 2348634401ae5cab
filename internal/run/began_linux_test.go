package run

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt"
)

// noBeganPageEnv makes the test binary, started as a worker, unable to
// map the page it counts the jobs it begins on (breakBeganPage).
const noBeganPageEnv = "SABLINE_TEST_WORKER_NO_BEGAN_PAGE"

func init() { beforeWorker = append(beforeWorker, breakBeganPage) }

// breakBeganPage puts a read-only descriptor of /dev/zero where the
// supervisor passed the jobs-begun page (the sixth descriptor), when
// noBeganPageEnv is set: the worker's shared, writable mapping of it then
// fails, as any failure to map the page would.
func breakBeganPage(args []string) {
	if os.Getenv(noBeganPageEnv) == "" || len(args) != 6 || args[5] == "-" {
		return
	}
	fd, err := strconv.Atoi(args[5])
	if err != nil {
		return
	}
	ro, err := unix.Open("/dev/zero", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	_ = unix.Dup2(ro, fd)
	_ = unix.Close(ro)
}

// TestPoolWorkerWithoutItsPage: a worker that cannot map the page it
// counts the jobs it begins on serves none. Were it to, the page would
// stay at 0, and a job it began and died in would read as never begun
// and run again on a replacement. A pool of such workers does not start
// (E310, naming the page); the control, the same pool with the page
// mapped, starts and runs a program.
func TestPoolWorkerWithoutItsPage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.vel"), []byte("print(\"hello\")\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name         string
		noPage       bool
		wantStartErr bool
	}{
		{name: "the page mapped"},
		{name: "no page", noPage: true, wantStartErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.noPage {
				t.Setenv(noBeganPageEnv, "1")
			}
			// env granted: the worker keeps the environment, noBeganPageEnv in it
			p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io,env"), Workers: 1,
				Confine: core.ModeOff, ImportRoot: dir, Receipts: t.TempDir()})
			if tt.wantStartErr {
				if codes.CodeOf(err) != codes.E310 || !strings.Contains(err.Error(), "jobs-begun page") {
					t.Errorf("StartPool with workers that cannot map the page: %v; want E310 naming it", err)
				}
				if err == nil {
					p.Close()
				}
				return
			}
			if err != nil {
				t.Fatalf("StartPool: %v", err)
			}
			defer p.Close()
			res, err := p.Run(context.Background(), PoolRun{Program: "hello.vel"})
			if err != nil || string(res.Stdout) != "hello\n" || res.Receipt.Outcome.Status != receipt.StatusOK {
				t.Errorf("Run: %v, output %q; want hello, ok", err, res.Stdout)
			}
		})
	}
}
