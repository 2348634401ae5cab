package ship

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/journal"
)

// record is the journal record of key and payload.
func record(t *testing.T, key string, payload []byte) []byte {
	t.Helper()
	rec, err := journal.AppendRecord(nil, key, payload)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// indexRecord is an object's index record of exactly n bytes naming
// receipts, its replica id padded to fill them.
func indexRecord(t *testing.T, n int, receipts []indexEntry) (indexJSON, []byte) {
	t.Helper()
	idx := indexJSON{Replica: "r1", Segment: 1, Receipts: receipts}
	for range 2 {
		head, err := json.Marshal(idx)
		if err != nil {
			t.Fatal(err)
		}
		rec := record(t, indexKey, head)
		if len(rec) == n {
			return idx, rec
		}
		if len(rec) > n {
			t.Fatalf("an index record of %d bytes is asked for; it takes %d", n, len(rec))
		}
		idx.Replica += strings.Repeat("x", n-len(rec))
	}
	t.Fatalf("no index record of %d bytes", n)
	return idx, nil
}

// countingBucket is a Memory bucket that counts the reads asked of it.
type countingBucket struct {
	*bucket.Memory
	mu    sync.Mutex
	reads int
}

func (b *countingBucket) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	b.mu.Lock()
	b.reads++
	b.mu.Unlock()
	return b.Memory.Read(ctx, key, off, n)
}

// TestRecordLen: recordLen is the length a whole record header claims,
// and 0 for fewer bytes than a header or bytes that begin no record.
func TestRecordLen(t *testing.T) {
	whole := record(t, indexKey, []byte(`{"replica":"r1"}`))
	tests := []struct {
		name string
		data []byte
		want int64
	}{
		{name: "nothing", data: nil, want: 0},
		{name: "a header but its last byte", data: whole[:19], want: 0},
		{name: "a header alone", data: whole[:20], want: int64(len(whole))},
		{name: "a whole record", data: whole, want: int64(len(whole))},
		{name: "a record and more", data: append(append([]byte(nil), whole...), whole...),
			want: int64(len(whole))},
		{name: "no record magic", data: []byte(strings.Repeat("x", 40)), want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := recordLen(tc.data); got != tc.want {
				t.Errorf("recordLen = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestReadIndexBase: an object's index is read in one ranged read when
// its record fits indexProbe, and read again whole when it is longer; the
// receipts begin where the index record ends. An object that does not
// begin with its index is an error, never an empty index.
func TestReadIndexBase(t *testing.T) {
	const runKey = "20260101T000000.000000000Z-0123456789abcdef.json"
	receiptRec := record(t, runKey, []byte(`{"run_id":"0123456789abcdef"}`))
	entries := []indexEntry{{Key: runKey, Tenant: "acme", Off: 0, Len: int64(len(receiptRec))}}
	tests := []struct {
		name      string
		indexLen  int // the index record's length; 0: the object is body alone
		body      []byte
		wantReads int
		wantErr   string // in the error; "": none
	}{
		{name: "an index alone: a segment whose receipts finished later",
			indexLen: 200, wantReads: 1},
		{name: "an index and its receipt", indexLen: 200, body: receiptRec, wantReads: 1},
		{name: "an index as long as the probe", indexLen: indexProbe, body: receiptRec,
			wantReads: 1},
		{name: "an index a byte longer than the probe", indexLen: indexProbe + 1,
			body: receiptRec, wantReads: 2},
		{name: "an index four probes long", indexLen: 4 * indexProbe, body: receiptRec,
			wantReads: 2},
		{name: "an empty object", wantReads: 1, wantErr: "no index record"},
		{name: "damaged bytes", body: []byte(strings.Repeat("x", 100)), wantReads: 1,
			wantErr: "no index record"},
		{name: "a receipt where the index should be", body: receiptRec, wantReads: 1,
			wantErr: "not its index"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var want indexJSON
			var obj []byte
			if tc.indexLen > 0 {
				want, obj = indexRecord(t, tc.indexLen, entries)
			}
			obj = append(obj, tc.body...)
			b := &countingBucket{Memory: bucket.NewMemory()}
			const key = Prefix + "r1/0123456789abcdef/00000001.journal"
			if err := b.Create(ctx, key, obj); err != nil {
				t.Fatal(err)
			}
			idx, base, err := readIndexBase(ctx, b, key)
			if b.reads != tc.wantReads {
				t.Errorf("%d reads, want %d", b.reads, tc.wantReads)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("readIndexBase = %d receipts at %d, %v; want an error saying %q",
						len(idx.Receipts), base, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if base != int64(tc.indexLen) {
				t.Errorf("the receipts begin at %d, want %d", base, tc.indexLen)
			}
			if idx.Replica != want.Replica || !sameReceipts(idx, want) {
				t.Errorf("index %+v, want %+v", idx, want)
			}
		})
	}
}
