package receipt

import (
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

func TestParseDurability(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Durability
		wantErr string
	}{
		{name: "default", in: "", want: Flush},
		{name: "flush", in: "flush", want: Flush},
		{name: "background", in: "background", want: Background},
		{name: "none", in: "none", want: None},
		{name: "unknown", in: "later", wantErr: `durability "later": want one of flush, background, none`},
		{name: "case", in: "Flush", wantErr: "want one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDurability("durability", tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || codes.CodeOf(err) != codes.E301 {
					t.Fatalf("ParseDurability(%q) = %q, %v; want E301 %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseDurability(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestStoreDurability: a store keeps a finished receipt as the receipt's
// durability says, and the receipt says it: with Flush the journal has
// synced it when Finish returns; with Background the committer syncs it
// within its window, unasked; with None nothing syncs it until another
// asks. A skeleton is never waited for.
func TestStoreDurability(t *testing.T) {
	tests := []struct {
		name      string
		set       Durability
		want      Durability
		wantNow   bool // synced when Finish returns
		wantSoon  bool // synced by the committer, unasked
		wantNever bool // not synced until Sync asks
		// wantWindow: the window the receipt says a power cut could lose
		// it in, the journal's commit interval with Background alone
		wantWindow bool
	}{
		{name: "default is flush", set: "", want: Flush, wantNow: true, wantSoon: true},
		{name: "flush", set: Flush, want: Flush, wantNow: true, wantSoon: true},
		{name: "background", set: Background, want: Background, wantSoon: true, wantWindow: true},
		{name: "none", set: None, want: None, wantNever: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			j := s.Journal()
			rec := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
			rec.Timings.Started = time.Now().UTC()
			rec.RunParameters.Durability = tt.set
			if err := s.Reserve(rec); err != nil {
				t.Fatal(err)
			}
			// The skeleton asks for a commit within the window with
			// Background alone: wait for it, so that the finished
			// receipt's is its own.
			if tt.set == Background {
				waitSyncs(t, 0, func() uint64 { return j.Stats().Syncs }, 1)
			}
			before := j.Stats().Syncs
			if w := j.Stats().Waiting; tt.want == Flush && (before != 0 || w != 0) {
				t.Errorf("%d commits after the skeleton and %d records waiting for one, want none: "+
					"the finish's flush takes it", before, w)
			}
			rec.Outcome = OutcomeOf(nil)
			rec.RunParameters.DurabilityWindowMS = 99
			s.Finish(rec)
			if _, err := rec.Stored(); err != nil {
				t.Fatal(err)
			}
			// Asked for nothing, the record neither waits for a commit
			// nor was one made for it.
			st := j.Stats()
			if synced := st.Syncs > before; tt.wantNow && !synced ||
				tt.wantNever && (synced || st.Waiting != 0) {
				t.Errorf("when Finish returned: synced %v, %d records waiting for a commit; "+
					"want it synced %v, never %v", synced, st.Waiting, tt.wantNow, tt.wantNever)
			}
			if tt.wantSoon {
				waitSyncs(t, before, func() uint64 { return j.Stats().Syncs }, 1)
			}
			got, err := Find(dir, rec.RunID)
			if err != nil || got.RunParameters.Durability != tt.want {
				t.Fatalf("stored: %+v, %v; want durability %q", got, err, tt.want)
			}
			wantMS := int64(0) // the 99 set before Finish is the store's to replace
			if tt.wantWindow {
				wantMS = j.CommitInterval().Milliseconds()
			}
			if w := got.RunParameters.DurabilityWindowMS; w != wantMS || tt.wantWindow && w <= 0 {
				t.Errorf("stored with a window of %d ms, want %d (the journal's commit interval %v)",
					w, wantMS, j.CommitInterval())
			}
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			if tt.wantNever && j.Stats().Syncs != before+1 {
				t.Errorf("%d commits after Sync, want the one Sync asked for (none before)",
					j.Stats().Syncs-before)
			}
		})
	}
}

// waitSyncs waits until count() is at least from+n, for at most a
// minute: a commit asked for comes within the journal's window.
func waitSyncs(t *testing.T, from uint64, count func() uint64, n uint64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for count() < from+n {
		if time.Now().After(deadline) {
			t.Fatalf("%d commits in a minute, want %d", count()-from, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFileDurability: a receipt file kept with Flush is synced before
// the run returns, with None left to the kernel, and otherwise (the
// command line's, which records none, and Background) its writeback is
// started.
func TestFileDurability(t *testing.T) {
	tests := []struct {
		name string
		d    Durability
		want durability
	}{
		{name: "flush", d: Flush, want: syncNow},
		{name: "background", d: Background, want: startWriteback},
		{name: "none", d: None, want: noWait},
		{name: "the command line's", d: "", want: startWriteback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fileDurability(tt.d); got != tt.want {
				t.Errorf("fileDurability(%q) = %d, want %d", tt.d, got, tt.want)
			}
		})
	}
}
