package run

import (
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestRecordBounds: a worker's record whose outcome is past the bounds
// the worker holds every outcome to (codes.Error.Bounded) is not one it
// could have sent; the outcome the worker makes of the same error, 45,000
// frames deep with a message of two megabytes, is the control.
func TestRecordBounds(t *testing.T) {
	deep := &codes.Error{Code: codes.E302, Msg: strings.Repeat("m", 2<<20), Pos: "/p.vel:3:1"}
	for range 45000 {
		deep.Stack = append(deep.Stack, "/p.vel:3:1 in f")
	}
	bounded := receipt.OutcomeOf(deep)
	tests := []struct {
		name    string
		edit    func(o *receipt.Outcome)
		wantErr string // "" for a record check takes
	}{
		{name: "the outcome the worker makes", edit: func(*receipt.Outcome) {}},
		{name: "a message past the bound", edit: func(o *receipt.Outcome) { o.Message = deep.Msg }, wantErr: "a message of"},
		{name: "every frame", edit: func(o *receipt.Outcome) { o.Stack = deep.Stack }, wantErr: "45000 frames"},
		{name: "a frame past the bound", edit: func(o *receipt.Outcome) { o.Stack = []string{strings.Repeat("f", 2<<10)} },
			wantErr: "a frame of 2048 bytes"},
		{name: "a position past the bound", edit: func(o *receipt.Outcome) { o.Position = strings.Repeat("p", 2<<10) },
			wantErr: "a position of 2048"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := bounded
			tt.edit(&o)
			err := (&workerResult{Outcome: o}).check()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("check: %v, want %q", err, tt.wantErr)
			}
		})
	}
}
