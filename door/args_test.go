package door

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestRunArgsBound: /v1/run takes arguments up to MaxArgsBytes in all
// and runs them, its receipt keeping them whole (the positive control);
// one byte more, or more than 8 MiB (the most a journal record holds,
// receipt/journal.MaxPayloadBytes) in one argument or in the most a
// request may have, up to what the body bound (MaxBodyBytes) lets
// through, is refused 413, E336, before anything runs, and the refusal
// leaves a receipt (status usage) that names the arguments by their
// digest, count and size and keeps no more than the bound of them, its
// run id in the refusal.
func TestRunArgsBound(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: rc})
	_, ts := newTestServer(t, Config{Runner: r})
	tests := []struct {
		name       string
		args       []string
		wantStatus int
		wantCode   string
	}{
		{name: "at the bound", args: []string{"x", strings.Repeat("a", MaxArgsBytes-1)},
			wantStatus: http.StatusOK},
		{name: "one byte over", args: []string{"x", strings.Repeat("a", MaxArgsBytes)},
			wantStatus: http.StatusRequestEntityTooLarge, wantCode: string(codes.E336)},
		{name: "far over", args: []string{strings.Repeat("b", 4*MaxArgsBytes)},
			wantStatus: http.StatusRequestEntityTooLarge, wantCode: string(codes.E336)},
		{name: "8 MiB and a byte in one", args: []string{strings.Repeat("b", 8<<20+1)},
			wantStatus: http.StatusRequestEntityTooLarge, wantCode: string(codes.E336)},
		{name: "9 MiB in nine", args: slices.Repeat([]string{strings.Repeat("d", 1<<20)}, 9),
			wantStatus: http.StatusRequestEntityTooLarge, wantCode: string(codes.E336)},
		{name: "9 MiB in the most a request may have",
			args:       slices.Repeat([]string{strings.Repeat("e", (9<<20)/maxArgs)}, maxArgs),
			wantStatus: http.StatusRequestEntityTooLarge, wantCode: string(codes.E336)},
		{name: "as much as the body bound lets through",
			args:       []string{strings.Repeat("f", MaxBodyBytes-1024)},
			wantStatus: http.StatusRequestEntityTooLarge, wantCode: string(codes.E336)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := receipt.ArgsBytes(tt.args); tt.wantCode != "" && n <= MaxArgsBytes {
				t.Fatalf("the case's arguments are %d bytes, not past the bound", n)
			}
			body, err := json.Marshal(map[string]any{"source": "print(len(ARGS))", "args": tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if len(body) > MaxBodyBytes {
				t.Fatalf("the case's body is %d bytes, past the body bound %d", len(body), MaxBodyBytes)
			}
			resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+testToken, string(body))
			code, msg := errCode(v)
			if resp.StatusCode != tt.wantStatus || code != tt.wantCode {
				t.Fatalf("status %d, code %q (%s): want %d, %q", resp.StatusCode, code, msg,
					tt.wantStatus, tt.wantCode)
			}
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != i+1 {
				t.Fatalf("%d receipts (%v), want %d: every request leaves one", len(runs), err, i+1)
			}
			rec := runs[len(runs)-1]
			if tt.wantCode == "" {
				if rec.Outcome.Status != receipt.StatusOK || !rec.ArgsWhole() ||
					len(rec.Args) != len(tt.args) || rec.Args[1] != tt.args[1] {
					t.Fatalf("receipt %s, args whole %v: want ok, the args whole", rec.Outcome.Status,
						rec.ArgsWhole())
				}
				return
			}
			c := rec.ArgsCut
			if rec.Outcome.Code != codes.E336 || rec.Outcome.Status != receipt.StatusUsage || c == nil ||
				c.SHA256 != argsSHA256(tt.args) || c.Count != len(tt.args) ||
				c.Bytes != receipt.ArgsBytes(tt.args) || c.KeptBytes > MaxArgsBytes ||
				!strings.Contains(msg, rec.RunID) {
				t.Fatalf("receipt %+v, args_cut %+v, message %q: want E336, usage, the digest %s of "+
					"all the args, at most %d bytes kept, the message naming run %s", rec.Outcome, c,
					msg, argsSHA256(tt.args), MaxArgsBytes, rec.RunID)
			}
		})
	}
}

// argsSHA256 is the digest of args as receipt.ArgsDigestForm says it is
// taken, worked out here apart from the receipt package.
func argsSHA256(args []string) string {
	h := sha256.New()
	for _, a := range args {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(a))))
		h.Write([]byte(a))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestArgsRefusalSaysTheBound: what E336 tells a client to do gives the
// bounds the door holds, read from here, not typed again.
func TestArgsRefusalSaysTheBound(t *testing.T) {
	info, _ := codes.Info(codes.E336)
	for _, want := range []string{fmt.Sprintf("%d KiB", MaxArgsBytes>>10),
		fmt.Sprintf("%d,%03d", maxArgs/1000, maxArgs%1000)} {
		if !strings.Contains(info.Do, want) {
			t.Errorf("E336 says %q: want it to give %s", info.Do, want)
		}
	}
}

// TestReceiptNoLongerKept: once the store's retention removed the
// segment a run's receipt was in, /v1/receipts/{id} answers 404 with
// E337, saying it is no longer kept, where before it answered the
// receipt (the positive control); the message names no directory.
func TestReceiptNoLongerKept(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: rc})
	_, ts := newTestServer(t, Config{Runner: r})
	resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+testToken, `{"source":"print(1)"}`)
	id, _ := v["run_id"].(string)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("run: %d, %v", resp.StatusCode, v)
	}
	path := "/v1/receipts/" + id
	if resp, v := do(t, ts, "GET", path, "Bearer "+testToken, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("the receipt, kept: %d, %v", resp.StatusCode, v)
	}
	store, err := receipt.OpenStore(rc) // the pool's, shared in the process
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Journal().Seal(); err != nil {
		t.Fatal(err)
	}
	if err := store.Retain(receipt.Retention{MaxAge: time.Nanosecond}, false); err != nil {
		t.Fatal(err)
	}
	// A segment's age counts from the prune that first finds it sealed,
	// on the monotonic clock: that one keeps it, the next removes it.
	removed := 0
	for range 2 {
		n, err := store.Prune()
		if err != nil {
			t.Fatal(err)
		}
		removed += n
	}
	if removed == 0 {
		t.Fatal("two prunes removed nothing, want the run's segment")
	}
	// A new server: the ledger in memory of the first still holds the run.
	_, ts2 := newTestServer(t, Config{Runner: r})
	resp, v = do(t, ts2, "GET", path, "Bearer "+testToken, "")
	code, msg := errCode(v)
	if resp.StatusCode != http.StatusNotFound || code != string(codes.E337) ||
		!strings.Contains(msg, "no longer kept") || strings.Contains(msg, rc) {
		t.Fatalf("the receipt, removed: %d, %s %q; want 404, E337 saying no longer kept, no directory",
			resp.StatusCode, code, msg)
	}
}
