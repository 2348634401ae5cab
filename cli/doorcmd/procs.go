package doorcmd

import (
	"os"
	goruntime "runtime"

	"github.com/sabline/sabline/receipt"
)

// doorProcs is how many Ps (GOMAXPROCS) a door's own process runs its
// goroutines on, for a door of workers workers keeping its receipts as d
// says, where procs is the count Go chose for the machine: half the
// workers, rounded up, and one more where each receipt is flushed before
// its reply; never more than procs, never fewer than one.
//
// A run needs the door's goroutines at its two ends, for some hundreds
// of microseconds, and waits for its worker in between. With a P to
// spare, each goroutine woken wakes another thread to look for work that
// is seldom there, and each thread that finds none sleeps again: on this
// project's two-processor machine, a door of two workers keeping its
// receipts in the background switched threads 4.5 times a run on two
// Ps and 1.1 on one, and on one it took 0.74 of the processor time a run
// and answered 1.13 times the runs a second, servers by turns under a
// steady load; in BenchmarkServeHello's short turns, as many runs a
// second for a fifth less processor time (bench/README.md, "The door on
// fewer Ps"). A door that flushes keeps one P more: its committer holds
// its P for the length of a disk's flush, and on one P the runs waited
// for the runtime to take it back (0.93 times the runs a second).
func doorProcs(workers, procs int, d receipt.Durability) int {
	n := (workers + 1) / 2
	if d == receipt.Flush {
		n++
	}
	return max(1, min(n, procs))
}

// setDoorProcs sets the door's own Ps to doorProcs for o, unless the
// environment sets GOMAXPROCS: the operator's count stays. Its workers
// take the door's count once confined, at least two (the run package's
// minWorkerProcs).
func setDoorProcs(o doorOptions) {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return
	}
	goruntime.GOMAXPROCS(doorProcs(o.Workers, goruntime.GOMAXPROCS(0), o.Durability))
}
