package cli

import (
	"testing"

	"github.com/sabline/sabline/receipt"
)

// TestKeepReceiptsFlag: --keep-receipts reads each retention; left out,
// a server keeps every receipt, or with --receipts-url each until it is
// shipped; a value that is no retention is refused at the command line.
func TestKeepReceiptsFlag(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		shipping bool
		want     receipt.Retention
		wantErr  bool
	}{
		{name: "left out", want: receipt.Retention{All: true}},
		{name: "left out, shipping", shipping: true, want: receipt.Retention{}},
		{name: "all, shipping", args: []string{"--keep-receipts", "all"}, shipping: true,
			want: receipt.Retention{All: true}},
		{name: "size", args: []string{"--keep-receipts=512MiB"}, want: receipt.Retention{MaxBytes: 512 << 20}},
		{name: "not a retention", args: []string{"--keep-receipts", "lots"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, sf := serveFlagSet()
			_, _, err := parseInterspersed(fs, tt.args)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parsed %q, want it refused", tt.args)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := sf.keep.retention(tt.shipping); got != tt.want {
				t.Fatalf("retention %+v, want %+v", got, tt.want)
			}
		})
	}
}
