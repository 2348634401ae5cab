package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// childEnv switches the test binary into a child that appends to the
// journal the variable names (see TestMain).
const childEnv = "SABLINE_JOURNAL_TEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		if err := child(spec); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child runs one child: spec is "forever DIR [exclusive]" (append
// without end, printing each record's number once Append returned, never
// syncing; with Options.Exclusive when asked, and then every 16th record
// synced, appendOf), "killself DIR N
// [exclusive]" (the same for N records, then SIGKILL itself),
// "oversize DIR SIZE [exclusive]" (append three records of SIZE bytes,
// and print for each whether its error is EFBIG, and the error), or
// "count DIR NAME N" (append N records named NAME-i to a journal of small
// segments, then close).
func child(spec string) error {
	f := strings.Fields(spec)
	switch {
	case (len(f) == 2 || len(f) == 3 && f[2] == "exclusive") && f[0] == "forever":
		j, err := Open(f[1], Options{CommitInterval: time.Hour, CommitRecords: 1 << 30,
			Exclusive: len(f) == 3})
		if err != nil {
			return err
		}
		for i := 0; ; i++ {
			if err := appendOf(j, i)(keyOf("k", i), payloadOf("k", i)); err != nil {
				return err
			}
			if _, err := fmt.Fprintf(os.Stdout, "%d\n", i); err != nil {
				return err
			}
		}
	case (len(f) == 3 || len(f) == 4 && f[3] == "exclusive") && f[0] == "killself":
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		j, err := Open(f[1], Options{CommitInterval: time.Hour, CommitRecords: 1 << 30,
			Exclusive: len(f) == 4})
		if err != nil {
			return err
		}
		for i := range n {
			if err := appendOf(j, i)(keyOf("k", i), payloadOf("k", i)); err != nil {
				return err
			}
		}
		settled(j) // the zeros its appends asked for are there
		self, err := os.FindProcess(os.Getpid())
		if err != nil {
			return err
		}
		if err := self.Kill(); err != nil {
			return err
		}
		select {} // the kill ends the process
	case (len(f) == 3 || len(f) == 4 && f[3] == "exclusive") && f[0] == "limited":
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		j, err := Open(f[1], Options{Exclusive: len(f) == 4})
		if err != nil {
			return err
		}
		for i := range n {
			if err := appendOf(j, i)(keyOf("k", i), payloadOf("k", i)); err != nil {
				return err
			}
		}
		return j.Close()
	case (len(f) == 3 || len(f) == 4 && f[3] == "exclusive") && f[0] == "oversize":
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		j, err := Open(f[1], Options{Exclusive: len(f) == 4})
		if err != nil {
			return err
		}
		defer j.Close()
		for i := range 3 {
			err = j.Append(keyOf("k", i), bytes.Repeat([]byte("x"), size))
			fmt.Printf("efbig=%v %v\n", errors.Is(err, errFileTooLarge), err)
		}
		return nil
	case len(f) == 4 && f[0] == "count":
		n, err := strconv.Atoi(f[3])
		if err != nil {
			return err
		}
		j, err := Open(f[1], Options{SegmentBytes: 32 << 10})
		if err != nil {
			return err
		}
		for i := range n {
			if err := j.Append(keyOf(f[2], i), payloadOf(f[2], i)); err != nil {
				return err
			}
		}
		return j.Close()
	}
	return fmt.Errorf("unknown child %q", spec)
}

func keyOf(name string, i int) string { return fmt.Sprintf("%s-%08d", name, i) }

// appendOf is how a child appends record i: in an Exclusive journal,
// every 16th record waits for its sync (AppendSync), which asks for zeros
// laid ahead, and the others are appended over them; elsewhere, Append.
func appendOf(j *Journal, i int) func(string, []byte) error {
	if j.opt.Exclusive && i%16 == 15 {
		return j.AppendSync
	}
	return j.Append
}

// payloadOf is a receipt-like payload of 200 to 3000 bytes that depends
// on the record, so that a record read under the wrong key shows.
func payloadOf(name string, i int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"run_id":%q,"pad":"`, keyOf(name, i))
	n := 200 + (i*7919)%2800
	for b.Len() < n {
		b.WriteString(keyOf(name, i))
	}
	b.WriteString(`"}`)
	return b.Bytes()
}

type record struct {
	key     string
	payload string
}

// readAll scans dir and returns its records and report.
func readAll(t *testing.T, dir string) ([]record, Report) {
	t.Helper()
	var recs []record
	rep, err := Scan(dir, func(k string, p []byte) error {
		recs = append(recs, record{k, string(p)})
		return nil
	})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if rep.Records != len(recs) {
		t.Fatalf("Report.Records = %d, the callback saw %d", rep.Records, len(recs))
	}
	return recs, rep
}

// settled waits until j lays no zeros past its records (the committer
// lays them, Journal.layAhead).
func settled(j *Journal) {
	j.mu.Lock()
	j.settle()
	j.mu.Unlock()
}

// bytesOf is what recs hold in a segment.
func bytesOf(recs []record) int64 {
	var n int64
	for _, r := range recs {
		n += int64(len(encodeRecord(nil, r.key, []byte(r.payload))))
	}
	return n
}

// keysOf is the keys of recs, in order.
func keysOf(recs []record) []string {
	keys := make([]string, len(recs))
	for i, r := range recs {
		keys[i] = r.key
	}
	return keys
}

func mustOpen(t *testing.T, dir string, opt Options) *Journal {
	t.Helper()
	j, err := Open(dir, opt)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return j
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{})
	big := bytes.Repeat([]byte("x"), MaxPayloadBytes)
	big[0], big[len(big)-1] = '{', '}'
	want := []record{
		{"20260101T000000.000000000Z-abc", `{"a":1}`},
		{"empty", ""},
		{"one", "1"},
		{"over-a-window", strings.Repeat("y", windowSize+3)},
		{"max", string(big)},
		{strings.Repeat("k", MaxKeyBytes), "long key"},
		{"with space ~", "printable"},
		{"20260101T000000.000000000Z-abc", `{"a":2}`},
	}
	for i, r := range want {
		var err error
		if i%2 == 0 {
			err = j.Append(r.key, []byte(r.payload))
		} else {
			err = j.AppendSync(r.key, []byte(r.payload))
		}
		if err != nil {
			t.Fatalf("append %q: %v", r.key, err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got, rep := readAll(t, dir)
	if rep.Damaged != 0 || rep.Segments != 1 {
		t.Errorf("report = %+v, want one segment and no damage", rep)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d = %q (%d bytes), want %q (%d bytes)", i, got[i].key, len(got[i].payload), want[i].key, len(want[i].payload))
		}
	}
	p, err := Find(dir, "20260101T000000.000000000Z-abc")
	if err != nil || string(p) != `{"a":2}` {
		t.Errorf("Find = %q, %v; want the last record with the key", p, err)
	}
	if _, err := Find(dir, "absent"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(absent) error = %v, want ErrNotFound", err)
	}
}

func TestAppendRefuses(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		size    int
		wantErr error
	}{
		{name: "valid", key: "run-1", size: 10},
		{name: "largest payload", key: "run-2", size: MaxPayloadBytes},
		{name: "empty key", key: "", size: 10, wantErr: ErrKey},
		{name: "key too long", key: strings.Repeat("k", MaxKeyBytes+1), size: 10, wantErr: ErrKey},
		{name: "newline in key", key: "run\n1", size: 10, wantErr: ErrKey},
		{name: "non-ASCII key", key: "ré", size: 10, wantErr: ErrKey},
		{name: "payload too large", key: "run-3", size: MaxPayloadBytes + 1, wantErr: ErrTooLarge},
	}
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{})
	wantRecords := 0
	for _, tt := range tests {
		err := j.Append(tt.key, make([]byte, tt.size))
		if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
			t.Errorf("%s: Append error = %v, want %v", tt.name, err, tt.wantErr)
		}
		if tt.wantErr == nil {
			wantRecords++
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, rep := readAll(t, dir)
	if len(got) != wantRecords || rep.Damaged != 0 {
		t.Errorf("read %d records with %d damaged stretches, want %d and none", len(got), rep.Damaged, wantRecords)
	}
}

func TestClosed(t *testing.T) {
	j := mustOpen(t, t.TempDir(), Options{})
	if err := j.Append("before", nil); err != nil {
		t.Fatalf("Append before Close: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := j.Append("after", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if err := j.AppendSync("after", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("AppendSync after Close = %v, want ErrClosed", err)
	}
	if err := j.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
}

// TestLinked: a journal whose directory was removed while it was open
// took every append and kept each where no reader finds it; Linked says
// so (ErrRemoved), where it says nothing of the same journal in place, of
// a journal that went on in a new segment, or of a closed one.
func TestLinked(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "j")
			j, err := Open(dir, Options{Exclusive: exclusive})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			if err := j.Append("k", []byte("v")); err != nil {
				t.Fatal(err)
			}
			if err := j.Linked(); err != nil {
				t.Fatalf("a journal in place: %v", err)
			}
			if _, err := j.Seal(); err != nil {
				t.Fatal(err)
			}
			if err := j.Linked(); err != nil {
				t.Fatalf("a journal gone on in a new segment: %v", err)
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := j.Linked(); !errors.Is(err, ErrRemoved) {
				t.Fatalf("a journal whose directory was removed: %v; want ErrRemoved", err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if err := j.Linked(); err != nil {
				t.Errorf("a closed journal: %v; want nil (its appends say it is closed)", err)
			}
		})
	}
}

// TestLinkedSegmentRemoved: the segment a journal appends to removed
// alone, its directory in place, is found (ErrRemoved), however many
// times Linked found it named before (where the directory's entries had
// not changed, Linked reads the directory alone); the control is the
// same journal before the removal, read twice.
func TestLinkedSegmentRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "j")
	j, err := Open(dir, Options{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append("k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := j.Linked(); err != nil {
			t.Fatalf("a journal in place: %v", err)
		}
	}
	if err := os.Remove(j.seg.name(dir)); err != nil {
		t.Fatal(err)
	}
	if err := j.Linked(); !errors.Is(err, ErrRemoved) {
		t.Fatalf("a journal whose segment was removed: %v; want ErrRemoved", err)
	}
}

// TestConcurrentAppenders has goroutines append with and without waiting,
// across many segment rotations: every record is read once, whole.
func TestConcurrentAppenders(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{SegmentBytes: 64 << 10})
	const writers, each = 8, 300
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("w%d", w)
			for i := range each {
				var err error
				if (w+i)%3 == 0 {
					err = j.AppendSync(keyOf(name, i), payloadOf(name, i))
				} else {
					err = j.Append(keyOf(name, i), payloadOf(name, i))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	checkAll(t, dir, writers, each, "w")
}

// checkAll checks dir holds exactly the records name0..name{n-1} × each,
// whole, in each writer's order, without damage, in several segments.
func checkAll(t *testing.T, dir string, writers, each int, prefix string) {
	t.Helper()
	got, rep := readAll(t, dir)
	if rep.Damaged != 0 {
		t.Errorf("damage: %v", rep.Damage)
	}
	if rep.Segments < 2 {
		t.Errorf("%d segments, want the journal rotated", rep.Segments)
	}
	next := map[string]int{}
	for _, r := range got {
		name, num, ok := strings.Cut(r.key, "-")
		i, err := strconv.Atoi(num)
		if !ok || err != nil {
			t.Fatalf("unexpected key %q", r.key)
		}
		if i != next[name] {
			t.Fatalf("record %q out of order or repeated: want %s", r.key, keyOf(name, next[name]))
		}
		if r.payload != string(payloadOf(name, i)) {
			t.Fatalf("record %q has another payload", r.key)
		}
		next[name]++
	}
	for w := range writers {
		if n := next[fmt.Sprintf("%s%d", prefix, w)]; n != each {
			t.Errorf("writer %d: %d records, want %d", w, n, each)
		}
	}
	if len(got) != writers*each {
		t.Errorf("read %d records, want %d", len(got), writers*each)
	}
}

// TestProcessesShareJournal has two processes append to one directory at
// once, rotating small segments: no record is lost, torn or interleaved.
func TestProcessesShareJournal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: on Windows one process appends to a journal at a time (see the package doc)")
	}
	dir := t.TempDir()
	const each = 1500
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for p := range 2 {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=count %s p%d %d", childEnv, dir, p, each))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v: %s", i, err, outs[i])
		}
	}
	checkAll(t, dir, 2, each, "p")
}

// TestKillAfterAppend kills a child with SIGKILL while it appends, never
// having synced: every record whose Append returned is read whole.
// TestKillAfterAppend: a child killed (SIGKILL) while it appends has left
// every record whose Append returned, whole, and no damage but a record
// its kill cut short at the end; in an Exclusive journal, with the zeros
// it laid ahead of its records in the file.
func TestKillAfterAppend(t *testing.T) {
	for _, mode := range []string{"shared", "exclusive"} {
		t.Run(mode, func(t *testing.T) { testKillAfterAppend(t, mode == "exclusive") })
	}
}

func testKillAfterAppend(t *testing.T, exclusive bool) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=forever "+dir)
	if exclusive {
		cmd.Env[len(cmd.Env)-1] += " exclusive"
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	last := -1
	for sc.Scan() {
		last, err = strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("child printed %q", sc.Text())
		}
		if last == 2000 {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	for sc.Scan() { // what it printed before it died
		if n, err := strconv.Atoi(sc.Text()); err == nil {
			last = n
		}
	}
	werr := cmd.Wait()
	if last < 2000 {
		t.Fatalf("the child stopped at record %d: %v: %s", last, werr, stderr.String())
	}
	if werr == nil {
		t.Fatalf("the child exited by itself")
	}
	got, rep := readAll(t, dir)
	if len(got) <= last {
		t.Fatalf("read %d records, want at least %d: every returned Append", len(got), last+1)
	}
	for i, r := range got {
		if r.key != keyOf("k", i) || r.payload != string(payloadOf("k", i)) {
			t.Fatalf("record %d is %q, want %q whole", i, r.key, keyOf("k", i))
		}
	}
	// A record cut by the kill in the middle of its write is a damaged
	// tail; nothing else may be damaged.
	for _, d := range rep.Damage {
		if !d.Tail {
			t.Errorf("damage before the tail: %v", d)
		}
	}
	// What is neither a record nor damage is zeros laid ahead (the reader
	// passes over nothing else without a word): only where the child
	// laid them.
	held := bytesOf(got)
	for _, d := range rep.Damage {
		held += d.Length
	}
	switch size := fileSize(t, filepath.Join(dir, segmentName(1))); {
	case size < held || size > held && !exclusive:
		t.Errorf("the segment holds %d bytes, its records and damage %d", size, held)
	case exclusive && size == held:
		t.Logf("killed between a record and the zeros laid after it: no zeros to pass over")
	}
	t.Logf("child killed after %d returned appends; %d records read, %d damaged stretches", last+1, len(got), rep.Damaged)
}

func TestGroupCommit(t *testing.T) {
	j := mustOpen(t, t.TempDir(), Options{})
	const writers, each = 32, 20
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := j.AppendSync(keyOf(fmt.Sprint(w), i), payloadOf("g", i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	st := j.Stats()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Appends != writers*each {
		t.Errorf("Appends = %d, want %d", st.Appends, writers*each)
	}
	if st.Syncs == 0 || st.Syncs*2 > st.Appends {
		t.Errorf("%d syncs for %d AppendSync calls, want concurrent callers to share them", st.Syncs, st.Appends)
	}
	t.Logf("%d AppendSync calls, %d syncs", st.Appends, st.Syncs)
}

func TestCommitInterval(t *testing.T) {
	lazy := mustOpen(t, t.TempDir(), Options{CommitInterval: time.Hour})
	defer lazy.Close()
	if err := lazy.Append("a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := lazy.Stats().Syncs; n != 0 {
		t.Errorf("%d syncs within the hour's interval, want 0", n)
	}
	if err := lazy.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := lazy.Stats().Syncs; n != 1 {
		t.Errorf("%d syncs after Sync, want 1", n)
	}

	quick := mustOpen(t, t.TempDir(), Options{CommitInterval: 2 * time.Millisecond})
	defer quick.Close()
	if err := quick.Append("a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testkit.Bound(5 * time.Second))
	for quick.Stats().Syncs == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if quick.Stats().Syncs != 1 {
		t.Errorf("%d syncs after the interval, want 1", quick.Stats().Syncs)
	}
}

// TestReopenAppends reopens a journal: records go on after the old ones,
// and a full segment is not appended to.
func TestReopenAppends(t *testing.T) {
	dir := t.TempDir()
	for round := range 3 {
		j := mustOpen(t, dir, Options{SegmentBytes: 1})
		if err := j.Append(keyOf("r", round), payloadOf("r", round)); err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, rep := readAll(t, dir)
	if len(got) != 3 || rep.Segments != 3 || rep.Damaged != 0 {
		t.Errorf("%d records in %d segments, %d damaged; want 3 in 3, none", len(got), rep.Segments, rep.Damaged)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	want := []string{"00000001.journal", "00000002.journal", "00000003.journal"}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", names, want)
	}
}

// TestLastSegmentNumber plants a full segment with the last number: the
// journal cannot rotate after it, and appends go on in it.
func TestLastSegmentNumber(t *testing.T) {
	dir := t.TempDir()
	last := filepath.Join(dir, segmentName(maxSegment))
	if err := os.WriteFile(last, []byte("stray bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	j := mustOpen(t, dir, Options{SegmentBytes: 4})
	for i := range 3 {
		if err := j.Append(keyOf("k", i), payloadOf("k", i)); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	if seg := j.Stats().Segment; seg != last {
		t.Errorf("appending to %s, want %s", seg, last)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, rep := readAll(t, dir)
	if len(got) != 3 || rep.Damaged != 1 || rep.Damage[0].Offset != 0 {
		t.Errorf("%d records, damage %v; want 3 records after the stray bytes", len(got), rep.Damage)
	}
}

// TestSyncFailureSticks makes the sync fail: the waiting callers get the
// failure, and the journal takes no more records.
func TestSyncFailureSticks(t *testing.T) {
	broken := errors.New("device error")
	syncFile = func(*os.File) error { return broken }
	defer func() { syncFile = datasync }()
	j := mustOpen(t, t.TempDir(), Options{})
	if err := j.AppendSync("a", nil); !errors.Is(err, broken) {
		t.Errorf("AppendSync = %v, want the sync's failure", err)
	}
	if err := j.Append("b", nil); !errors.Is(err, broken) {
		t.Errorf("Append after a failed sync = %v, want the failure", err)
	}
	if err := j.Close(); !errors.Is(err, broken) {
		t.Errorf("Close = %v, want the failure", err)
	}
}

// TestCloseWhileWaiting closes the journal while callers append and wait:
// each gets nil (and its record is read) or ErrClosed.
func TestCloseWhileWaiting(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{CommitInterval: time.Hour})
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := map[string]bool{}
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				k := keyOf(fmt.Sprint(w), i)
				err := j.AppendSync(k, []byte("{}"))
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ok[k] = true
				mu.Unlock()
			}
		}()
	}
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(ok)
		mu.Unlock()
		if n >= 16 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	got, _ := readAll(t, dir)
	read := map[string]bool{}
	for _, r := range got {
		read[r.key] = true
	}
	for k := range ok {
		if !read[k] {
			t.Errorf("record %s synced but not read", k)
		}
	}
	if len(ok) == 0 {
		t.Errorf("no AppendSync returned before Close")
	}
}

// TestKillSelfAfterAppend has a child kill itself (SIGKILL) the moment its
// last Append returns, nothing synced: every record is read.
func TestKillSelfAfterAppend(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		exclusive string
		wantZeros bool // laid ahead, and left by the kill
	}{
		{name: "one", n: 1},
		{name: "fifty", n: 50},
		{name: "one, exclusive", n: 1, exclusive: " exclusive"},
		{name: "fifty, exclusive", n: 50, exclusive: " exclusive", wantZeros: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(),
				fmt.Sprintf("%s=killself %s %d%s", childEnv, dir, tt.n, tt.exclusive))
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || (exit.ExitCode() != -1 && runtime.GOOS != "windows") {
				t.Fatalf("child: %v, want killed by a signal: %s", err, out)
			}
			got, rep := readAll(t, dir)
			wantKeys(t, got, seq(0, tt.n))
			if rep.Damaged != 0 {
				t.Errorf("damage: %v", rep.Damage)
			}
			held := bytesOf(got)
			if size := fileSize(t, filepath.Join(dir, segmentName(1))); (size > held) != tt.wantZeros {
				t.Errorf("the segment holds %d bytes, its records %d: zeros past them %v, want %v",
					size, held, size > held, tt.wantZeros)
			}
		})
	}
}

// TestAppendSyncCoversEarlierAppends checks the order the power-cut
// promise rests on: when AppendSync returns, a sync that began after its
// write, and after the Appends before it, has finished.
func TestAppendSyncCoversEarlierAppends(t *testing.T) {
	synced := syncedSizes(t, nil)
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{CommitInterval: time.Hour})
	for i := 0; i < 60; i += 3 {
		for k := i; k < i+3; k++ {
			var err error
			if k == i+2 {
				err = j.AppendSync(keyOf("k", k), payloadOf("k", k))
			} else {
				err = j.Append(keyOf("k", k), payloadOf("k", k))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		fi, err := os.Stat(filepath.Join(dir, segmentName(1)))
		if err != nil {
			t.Fatal(err)
		}
		if s := synced.Load(); s < fi.Size() {
			t.Fatalf("AppendSync of record %d returned with %d of %d bytes synced", i+2, s, fi.Size())
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCommitAsked: AppendUnsynced asks the committer for nothing, Append
// asks for a commit within the interval (an hour here, so none comes
// before the test looks), AppendSync for one at once; the records
// appended unsynced are synced by the next commit another asks for.
func TestCommitAsked(t *testing.T) {
	tests := []struct {
		name        string
		append      func(j *Journal, key string) error
		wantPending int
		wantSynced  bool // the record is synced when the call returns
	}{
		{name: "unsynced", append: func(j *Journal, k string) error {
			return j.AppendUnsynced(k, []byte("p"))
		}},
		{name: "within the interval", wantPending: 1, append: func(j *Journal, k string) error {
			return j.Append(k, []byte("p"))
		}},
		{name: "at once", wantSynced: true, append: func(j *Journal, k string) error {
			return j.AppendSync(k, []byte("p"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Open(t.TempDir(), Options{CommitInterval: time.Hour, CommitRecords: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			if err := tt.append(j, "k-1"); err != nil {
				t.Fatal(err)
			}
			pending := j.Stats().Waiting
			j.mu.Lock()
			synced, written := j.synced, j.written
			j.mu.Unlock()
			if pending != tt.wantPending || (synced == written) != tt.wantSynced {
				t.Fatalf("pending %d, synced %d of %d; want pending %d, synced %v",
					pending, synced, written, tt.wantPending, tt.wantSynced)
			}
			if got := j.Stats().Syncs; tt.wantSynced != (got > 0) {
				t.Fatalf("%d commits; want one only when the record was synced at once", got)
			}
			// Whatever was asked, the next commit syncs every record.
			if err := j.AppendUnsynced("k-2", []byte("p")); err != nil {
				t.Fatal(err)
			}
			if err := j.Sync(); err != nil {
				t.Fatal(err)
			}
			j.mu.Lock()
			defer j.mu.Unlock()
			if j.synced != j.written || j.written != 2 {
				t.Fatalf("after Sync: synced %d of %d records, want 2 of 2", j.synced, j.written)
			}
		})
	}
}

// syncedSizes replaces syncFile, for the test, with datasync that
// records the size of each file it synced, as the sync began: the bytes a
// finished fdatasync covered (TestAppendSyncCoversEarlierAppends). during,
// when not nil, runs inside each sync, before the fdatasync, without
// j.mu, as the committer's own syncs run.
func syncedSizes(t *testing.T, during func()) *atomic.Int64 {
	t.Helper()
	var synced atomic.Int64 // the largest segment size a finished sync covered
	syncFile = func(f *os.File) error {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if during != nil {
			during()
		}
		if err := datasync(f); err != nil {
			return err
		}
		for {
			old := synced.Load()
			if fi.Size() <= old || synced.CompareAndSwap(old, fi.Size()) {
				return nil
			}
		}
	}
	t.Cleanup(func() { syncFile = datasync })
	return &synced
}

// TestCommitCoversWhatItSynced: a commit marks as synced the records
// written before it began, and no record appended while its fdatasync
// runs: a Sync after it syncs that record, where the commit taken for
// it would return at once with the record's bytes never synced. The
// record the commit began for is covered (the control).
func TestCommitCoversWhatItSynced(t *testing.T) {
	dir := t.TempDir()
	var j *Journal
	var during atomic.Bool // the record appended inside the first sync
	synced := syncedSizes(t, func() {
		if during.CompareAndSwap(false, true) {
			if err := j.AppendUnsynced("during", payloadOf("during", 1)); err != nil {
				t.Error(err)
			}
		}
	})
	j = mustOpen(t, dir, Options{CommitInterval: time.Hour, CommitRecords: 1 << 30})
	defer j.Close()
	if err := j.AppendSync("before", payloadOf("before", 0)); err != nil {
		t.Fatal(err)
	}
	if !during.Load() {
		t.Fatal("AppendSync returned without a sync")
	}
	held := bytesOf([]record{{"before", string(payloadOf("before", 0))}})
	if s := synced.Load(); s < held {
		t.Fatalf("AppendSync returned with %d of its record's %d bytes synced", s, held)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	size := fileSize(t, filepath.Join(dir, segmentName(1)))
	if s := synced.Load(); s < size {
		t.Fatalf("Sync returned with %d of %d bytes synced: the record appended during "+
			"the first commit's fdatasync was taken as synced by it", s, size)
	}
}

// TestCloseSyncsWhatWasAppended: Close syncs every record appended before
// it, those appended to wait for the committer (an hour here) and those
// appended unsynced, before it returns nil. The control: a Sync before
// it syncs what was appended then.
func TestCloseSyncsWhatWasAppended(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive %v", exclusive), func(t *testing.T) {
			dir := t.TempDir()
			synced := syncedSizes(t, nil)
			j := mustOpen(t, dir, Options{CommitInterval: time.Hour, CommitRecords: 1 << 30,
				Exclusive: exclusive})
			path := j.Stats().Segment
			if err := j.Append(keyOf("k", 0), payloadOf("k", 0)); err != nil {
				t.Fatal(err)
			}
			if err := j.Sync(); err != nil {
				t.Fatal(err)
			}
			if s, size := synced.Load(), fileSize(t, path); s < size {
				t.Fatalf("Sync returned with %d of %d bytes synced", s, size)
			}
			if err := j.Append(keyOf("k", 1), payloadOf("k", 1)); err != nil {
				t.Fatal(err)
			}
			if err := j.AppendUnsynced(keyOf("k", 2), payloadOf("k", 2)); err != nil {
				t.Fatal(err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			got, _ := readAll(t, dir)
			wantKeys(t, got, seq(0, 3))
			if s, held := synced.Load(), bytesOf(got); s < held {
				t.Fatalf("Close returned nil with %d of the records' %d bytes synced", s, held)
			}
		})
	}
}
