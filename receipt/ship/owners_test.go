package ship

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
)

// childEnv names the receipts directory a child pool process (this test
// binary, run again) keeps receipts in; childMode says how it ends.
const (
	childEnv  = "SABLINE_SHIP_TEST_CHILD_DIR"
	childMode = "SABLINE_SHIP_TEST_CHILD_MODE"
)

// TestChildPool is not a test: run by pool with childEnv set, it is a
// pool process beside the test's, on the receipts directory childEnv
// names. It reads commands, one a line: "ok" keeps a receipt, reserved
// then finished ok, and prints "ok ID"; "reserve" reserves one and
// prints "reserved ID"; "finish" finishes ok the one reserved last and
// prints "ok ID"; "seal" seals its journal's segment and prints "sealed
// N". It prints "open" once its store is open, and exits
// when its input ends (without closing anything, as a process that ends
// without ceremony), unless the test kills it first.
func TestChildPool(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("run as a child pool process only")
	}
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(2)
	}
	store, err := receipt.OpenStore(dir)
	if err != nil {
		fail(err)
	}
	fmt.Println("open")
	var last *receipt.Receipt
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "ok", "reserve":
			last = newRun("acme")
			if err := store.Reserve(last); err != nil {
				fail(err)
			}
			if sc.Text() == "reserve" {
				fmt.Println("reserved", last.RunID)
				continue
			}
			fallthrough
		case "finish":
			finish(store, last)
			if _, err := last.Stored(); err != nil {
				fail(err)
			}
			fmt.Println("ok", last.RunID)
		case "seal":
			n, err := store.Journal().Seal()
			if err != nil {
				fail(err)
			}
			fmt.Println("sealed", n)
		case "ship", "ship-die-written", "ship-die-writing":
			// Ships the journal, as a replica r1 does, to a bucket of
			// its own, and prints that bucket's objects (JSON, one line).
			// "ship-die-written" prints them and exits at once when its
			// first object of receipts is in the bucket, before the
			// Shipper hears so (a replica killed while its store agent
			// wrote the object, which the agent finishes);
			// "ship-die-writing" when that object's write begins, the
			// object not yet in the bucket, printed under its key with
			// pendingPrefix.
			b := bucket.NewMemory()
			objects := map[string][]byte{}
			printBucket := func() {
				keys, _ := b.List(context.Background(), "")
				for _, k := range keys {
					objects[k], _ = b.Read(context.Background(), k, 0, -1)
				}
				data, _ := json.Marshal(objects)
				fmt.Println("shipped", string(data))
			}
			var to bucket.Bucket = b
			if mode := sc.Text(); mode != "ship" {
				written := mode == "ship-die-written"
				to = dyingBucket{Memory: b, written: written, die: func(key string, data []byte) {
					if !written {
						objects[pendingPrefix+key] = data
					}
					printBucket()
					os.Exit(0)
				}}
			}
			sh, err := Start(store, to, Options{Replica: "r1", Every: time.Hour})
			if err != nil {
				fail(err)
			}
			<-sh.started
			if left, err := sh.round(context.Background()); err != nil || left != 0 {
				fail(fmt.Errorf("ship: left %d: %v", left, err))
			}
			printBucket()
		}
	}
	os.Exit(0)
}

// pendingPrefix begins the name a child gives an object whose write was
// under way as it died.
const pendingPrefix = "pending:"

// dyingBucket is a bucket whose process dies (die) at the write of its
// first object of receipts: once it is written, or before it is.
type dyingBucket struct {
	*bucket.Memory
	written bool
	die     func(key string, data []byte)
}

func (d dyingBucket) Create(ctx context.Context, key string, data []byte) error {
	if !strings.HasPrefix(key, Prefix) {
		return d.Memory.Create(ctx, key, data)
	}
	if d.written {
		if err := d.Memory.Create(ctx, key, data); err != nil {
			return err
		}
	}
	d.die(key, data)
	return nil
}

// child is a pool process started by pool.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// pool starts a child pool process on the receipts directory dir and
// waits until its store is open.
func pool(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildPool$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if w, _ := c.answer(t); w != "open" {
		t.Fatalf("child pool process said %q, not open", w)
	}
	return c
}

// answer reads the child's next line: its first word and the rest.
func (c *child) answer(t *testing.T) (string, string) {
	t.Helper()
	if !c.out.Scan() {
		t.Fatalf("child pool process ended: %v", c.out.Err())
	}
	w, rest, _ := strings.Cut(c.out.Text(), " ")
	if w == "error" {
		t.Fatalf("child pool process: %s", rest)
	}
	return w, rest
}

// do sends the child cmd and returns the run id of its answer.
func (c *child) do(t *testing.T, cmd string) string {
	t.Helper()
	if _, err := fmt.Fprintln(c.stdin, cmd); err != nil {
		t.Fatal(err)
	}
	_, id := c.answer(t)
	return id
}

// end ends the child as a process killed (-9) ends, or, with kill
// false, as one whose input ended.
func (c *child) end(t *testing.T, kill bool) {
	t.Helper()
	if kill {
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
	} else {
		c.stdin.Close()
	}
	_ = c.cmd.Wait()
}

// TestTwoOwners: a shipping process (serve) and two other pool processes
// (sabline mcp, a sabline.Pool host) keep receipts in one receipts
// directory, as they do by default. Every run answered ok reaches the
// bucket once, finished; the run of a pool process killed with it in
// flight reaches it once, unfinished; nothing another process keeps is
// shipped half-done while that process runs.
func TestTwoOwners(t *testing.T) {
	dir := t.TempDir()
	store, err := receipt.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := bucket.NewMemory()
	sh, err := Start(store, b, Options{Replica: "r1", Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	<-sh.started
	own := newRun("acme")
	if err := store.Reserve(own); err != nil {
		t.Fatal(err)
	}
	finish(store, own)

	live := pool(t, dir)  // sabline mcp, say
	crash := pool(t, dir) // a pool host, killed with a run in flight
	ctx := context.Background()
	ok := []string{own.RunID, live.do(t, "ok"), crash.do(t, "ok")}
	long := live.do(t, "reserve")
	if _, err := sh.round(ctx); err != nil {
		t.Fatal(err)
	}
	// After the round sealed the shipping process's segment, the others
	// go on: a run finished, runs kept whole, one left in flight.
	ok = append(ok, live.do(t, "finish"), live.do(t, "ok"), crash.do(t, "ok"))
	// While both other processes run, every run they answered ok reaches
	// the bucket, finished: each is asked to seal its segment, and does
	// within half a second.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := sh.round(ctx); err != nil {
			t.Fatal(err)
		}
		count, status := shipped(t, b)
		if count[long] != 0 && status[long] != receipt.StatusOK {
			t.Fatalf("run %s of a live pool process shipped as %q while it ran", long, status[long])
		}
		all := true
		for _, id := range ok {
			all = all && count[id] == 1 && status[id] == receipt.StatusOK
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs of live pool processes not shipped in 20s: %v of %v (%v)", count, ok, sh.Status())
		}
		<-time.After(20 * time.Millisecond) // the other processes seal on their own pace
	}
	// A run in flight in a live process: its sealed segment waits.
	inflight := crash.do(t, "reserve")
	crash.do(t, "seal")
	if _, err := sh.round(ctx); err != nil {
		t.Fatal(err)
	}
	if count, status := shipped(t, b); count[inflight] != 0 {
		t.Fatalf("run %s in flight in a live process shipped (%q)", inflight, status[inflight])
	}
	// Both other processes are alive: the Status names their journals.
	if st := sh.Status(); len(st.Live) != 2 || !strings.HasPrefix(st.Live[0].Owner, "pid ") ||
		!strings.Contains(st.String(), "2 other live processes") {
		t.Errorf("Status beside two live pool processes: %+v (%q)", st, st.String())
	}
	crash.end(t, true)
	live.end(t, false)
	if err := sh.Close(ctx); err != nil {
		t.Fatal(err)
	}

	if st := sh.Status(); len(st.Live) != 0 || st.Pending != 0 || st.Err != nil {
		t.Errorf("Status once the other processes ended and Close shipped: %+v", st)
	}
	// The journals of the processes that ended are marked shipped whole,
	// so that no Shipper on the directory, under another replica id,
	// ships them again.
	dirs, err := receipt.JournalDirs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d == store.Journal().Dir() {
			continue
		}
		if _, ok := readDone(d); !ok && d != dirs[0] {
			t.Errorf("the journal %s of a process that ended is not marked shipped", d)
		}
	}
	count, status := shipped(t, b)
	for _, id := range ok {
		if count[id] != 1 || status[id] != receipt.StatusOK {
			t.Errorf("run %s answered ok: %d records in the bucket, last %q; want one, ok",
				id, count[id], status[id])
		}
	}
	if count[inflight] != 1 || status[inflight] != receipt.StatusUnfinished {
		t.Errorf("run %s in flight when its process was killed: %d records, %q; want one, unfinished",
			inflight, count[inflight], status[inflight])
	}
}

// TestStartWhileStoreDown: a Shipper starts while its store is down (a
// replica serves from its journal meanwhile), says so in its Status, and
// ships everything once the store is back.
func TestStartWhileStoreDown(t *testing.T) {
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := bucket.NewMemory()
	b.Fail = errors.New("the store is down")
	sh, err := Start(store, b, Options{Replica: "r1", Every: time.Hour})
	if err != nil {
		t.Fatalf("Start while the store is down: %v; want it started", err)
	}
	t.Cleanup(func() { sh.Close(context.Background()) })
	<-sh.started
	rec := newRun("acme")
	if err := store.Reserve(rec); err != nil {
		t.Fatal(err)
	}
	finish(store, rec)
	if _, err := sh.round(context.Background()); err == nil {
		t.Fatal("a round while the store is down shipped")
	}
	st := sh.Status()
	if st.Listed || st.Err == nil || !strings.Contains(st.String(), "not been reached") {
		t.Errorf("Status while the store is down: %+v (%q); want it unreached, the failure named",
			st, st.String())
	}
	b.Fail = nil
	if left, err := sh.round(context.Background()); err != nil || left != 0 {
		t.Fatalf("round once the store is back: left %d, %v", left, err)
	}
	if st := sh.Status(); !st.Listed || st.Err != nil || st.String() != "" || st.LastShipped.IsZero() {
		t.Errorf("Status once shipped: %+v (%q)", st, st.String())
	}
	if count, _ := shipped(t, b); count[rec.RunID] != 1 {
		t.Errorf("run %s in the bucket %d times, want 1", rec.RunID, count[rec.RunID])
	}
}

// hangingBucket is a Memory bucket whose Create waits for its context to
// end: a store that hangs.
type hangingBucket struct{ *bucket.Memory }

func (hangingBucket) Create(ctx context.Context, key string, data []byte) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestShipStoreHangs: a round against a store that hangs ends within the
// call's bound, with the deadline its failure.
func TestShipStoreHangs(t *testing.T) {
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sh, err := Start(store, hangingBucket{bucket.NewMemory()},
		Options{Replica: "r1", Every: time.Hour, CallTimeout: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	<-sh.started
	rec := newRun("acme")
	store.Reserve(rec)
	finish(store, rec)
	done := make(chan error, 1)
	go func() { _, err := sh.round(context.Background()); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(sh.Status().Err, context.DeadlineExceeded) {
			t.Errorf("a round against a store that hangs: %v; want the deadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a round against a store that hangs has not returned in 10s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := sh.Close(ctx); err == nil {
		t.Error("Close against a store that hangs: nil, want what was left")
	}
}
