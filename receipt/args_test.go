package receipt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt/journal"
)

// TestArgsBound: a receipt keeps the arguments whole up to and at the
// bound (MaxArgsBytes in all, MaxArgsKept of them), with no args_cut;
// one byte or one argument past it, it keeps their beginning and says
// what was cut, with the digest of them all.
func TestArgsBound(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		wantWhole     bool
		wantKeptCount int
		wantKeptBytes int64
	}{
		{name: "none", args: nil, wantWhole: true},
		{name: "just under the bytes", args: []string{"x", strings.Repeat("a", MaxArgsBytes-2)},
			wantWhole: true},
		{name: "at the bytes", args: []string{"x", strings.Repeat("a", MaxArgsBytes-1)},
			wantWhole: true},
		{name: "one byte over", args: []string{"x", strings.Repeat("a", MaxArgsBytes)},
			wantKeptCount: 2, wantKeptBytes: MaxArgsBytes},
		{name: "over, then more after", args: []string{strings.Repeat("a", MaxArgsBytes+1), "b", "c"},
			wantKeptCount: 1, wantKeptBytes: MaxArgsBytes},
		{name: "over at an argument's start",
			args:          []string{strings.Repeat("a", MaxArgsBytes), "next"},
			wantKeptCount: 1, wantKeptBytes: MaxArgsBytes},
		{name: "a character across the bound is not split",
			args:          []string{strings.Repeat("a", MaxArgsBytes-1) + "é"},
			wantKeptCount: 1, wantKeptBytes: MaxArgsBytes - 1},
		{name: "at the count", args: make([]string, MaxArgsKept), wantWhole: true},
		{name: "one over the count", args: make([]string, MaxArgsKept+1),
			wantKeptCount: MaxArgsKept, wantKeptBytes: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := NewForSource("/p.vel", nil, budget.Budget{}, tt.args)
			if got := ArgsFit(tt.args); got != tt.wantWhole {
				t.Errorf("ArgsFit = %v, want %v", got, tt.wantWhole)
			}
			if tt.wantWhole {
				if rec.ArgsCut != nil || !slices.Equal(rec.Args, tt.args) || rec.Args == nil ||
					rec.ArgsLine() != "" {
					t.Fatalf("args %d, args_cut %+v, line %q: want them whole, no cut", len(rec.Args),
						rec.ArgsCut, rec.ArgsLine())
				}
				return
			}
			c := rec.ArgsCut
			if c == nil {
				t.Fatalf("no args_cut for %d arguments, %d bytes", len(tt.args), ArgsBytes(tt.args))
			}
			if c.SHA256 != digestByHand(tt.args) || c.Count != len(tt.args) ||
				c.Bytes != ArgsBytes(tt.args) {
				t.Errorf("args_cut %+v: want the digest, count %d and bytes %d of them all", c,
					len(tt.args), ArgsBytes(tt.args))
			}
			if c.KeptCount != tt.wantKeptCount || c.KeptBytes != tt.wantKeptBytes ||
				len(rec.Args) != c.KeptCount || ArgsBytes(rec.Args) != c.KeptBytes {
				t.Errorf("kept %d arguments, %d bytes (args_cut %+v), want %d, %d", len(rec.Args),
					ArgsBytes(rec.Args), c, tt.wantKeptCount, tt.wantKeptBytes)
			}
			for i, a := range rec.Args {
				if !strings.HasPrefix(tt.args[i], a) {
					t.Fatalf("kept argument %d is not the beginning of the argument", i)
				}
			}
			if line := rec.ArgsLine(); !strings.Contains(line, "CUT") || !strings.Contains(line, c.SHA256) {
				t.Errorf("ArgsLine = %q, want it to say CUT and the digest", line)
			}
			data, err := json.Marshal(rec)
			if err != nil || len(data) > MaxArgsBytes+64<<10 {
				t.Errorf("the receipt is %d bytes (%v): want its arguments bounded", len(data), err)
			}
		})
	}
}

// digestByHand is ArgsDigestForm, written out here apart from argsDigest.
func digestByHand(args []string) string {
	var b bytes.Buffer
	for _, a := range args {
		n := uint64(len(a))
		b.Write([]byte{byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32), byte(n >> 24),
			byte(n >> 16), byte(n >> 8), byte(n)})
		b.WriteString(a)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// TestArgsCallerKeepsItsList: the receipt's list is its own: the caller
// changing its arguments afterwards does not change the receipt.
func TestArgsCallerKeepsItsList(t *testing.T) {
	args := []string{"a", "b"}
	rec := NewForSource("/p.vel", nil, budget.Budget{}, args)
	args[0] = "changed"
	if rec.Args[0] != "a" {
		t.Fatalf("the receipt's args changed with the caller's: %q", rec.Args)
	}
}

// TestOlderReceiptArgsRead: a receipt written before the bound, its
// arguments whole however long and no args_cut, still reads, its
// arguments as written and said to be whole.
func TestOlderReceiptArgsRead(t *testing.T) {
	long := strings.Repeat("z", 1<<20)
	older := `{"schema":"` + Schema + `","run_id":"0123456789abcdef","budget":"io",` +
		`"args":["-n","` + long + `"],"outcome":{"status":"ok"},"reported":{"fields":[]}}`
	p := filepath.Join(t.TempDir(), "20260101T000000.000000000Z-0123456789abcdef.json")
	if err := os.WriteFile(p, []byte(older), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Args, []string{"-n", long}) || !got.ArgsWhole() || got.ArgsLine() != "" {
		t.Fatalf("older receipt: %d args, whole %v, line %q; want both, whole", len(got.Args),
			got.ArgsWhole(), got.ArgsLine())
	}
}

// TestStoreKeepsArgsOnce: a run reserved and finished through a Store
// has its arguments' bytes once in the journal, in the finished record;
// the skeleton names them by their digest, and reads so.
func TestStoreKeepsArgsOnce(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	marker := "marker-" + strings.Repeat("q", 1000)
	rec := NewForSource("/p.vel", nil, budget.Budget{}, []string{marker})
	rec.Timings.Started = time.Now().UTC()
	if err := s.Reserve(rec); err != nil {
		t.Fatal(err)
	}
	skel, err := FindRun(dir, rec.RunID)
	if err != nil || len(skel.Args) != 0 || skel.ArgsCut == nil || skel.ArgsCut.Count != 1 ||
		skel.ArgsCut.SHA256 != digestByHand([]string{marker}) {
		t.Fatalf("skeleton: %v, args %q, args_cut %+v; want the digest only", err, skel.Args,
			skel.ArgsCut)
	}
	rec.Outcome = OutcomeOf(nil)
	s.Finish(rec)
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	n := 0
	if _, err := journal.Scan(s.Journal().Dir(), func(_ string, payload []byte) error {
		n += bytes.Count(payload, []byte(marker))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("the journal holds the arguments %d times, want once", n)
	}
	got, err := FindRun(dir, rec.RunID)
	if err != nil || !slices.Equal(got.Args, []string{marker}) || !got.ArgsWhole() {
		t.Fatalf("finished: %v, args whole %v; want them whole", err, got.ArgsWhole())
	}
}

// BenchmarkReceiptBytesLongArgs measures the journal bytes one run
// with 1 MiB of arguments (16 of 64 KiB) leaves through a Store: its
// skeleton and its finished record (bytes/receipt).
func BenchmarkReceiptBytesLongArgs(b *testing.B) {
	args := make([]string, 16)
	for i := range args {
		args[i] = strings.Repeat(string(rune('a'+i)), 64<<10)
	}
	dir := b.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rec := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, args)
		rec.Timings.Started = time.Now().UTC()
		if err := s.Reserve(rec); err != nil {
			b.Fatal(err)
		}
		rec.Outcome = OutcomeOf(nil)
		s.Finish(rec)
		if _, err := rec.Stored(); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Sync(); err != nil {
		b.Fatal(err)
	}
	var total int64
	nums, err := journal.Segments(s.Journal().Dir())
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range nums {
		fi, err := os.Stat(filepath.Join(s.Journal().Dir(), fmt.Sprintf("%08d.journal", n)))
		if err != nil {
			b.Fatal(err)
		}
		total += fi.Size()
	}
	b.ReportMetric(float64(total)/float64(b.N), "bytes/receipt")
}
