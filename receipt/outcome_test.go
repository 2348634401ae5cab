package receipt

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/sabline/sabline/codes"
)

// TestOutcomeOf checks the outcome a run ending with each code records:
// the catalogue's exit status, and the status its kind of ending has.
func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus string
		wantCode   codes.Code
		wantExit   int
	}{
		{name: "no error", err: nil, wantStatus: StatusOK, wantExit: codes.ExitOK},
		{name: "refused effect", err: &codes.Error{Code: codes.E302, Msg: "m", Pos: "p:1:1"}, wantStatus: StatusFailed, wantCode: codes.E302, wantExit: codes.ExitFailed},
		{name: "malformed item", err: &codes.Error{Code: codes.E301}, wantStatus: StatusUsage, wantCode: codes.E301, wantExit: codes.ExitUsage},
		{name: "malformed fault value", err: &codes.Error{Code: codes.E311}, wantStatus: StatusUsage, wantCode: codes.E311, wantExit: codes.ExitUsage},
		{name: "unreadable program", err: &codes.Error{Code: codes.E316}, wantStatus: StatusUsage, wantCode: codes.E316, wantExit: codes.ExitUsage},
		{name: "below the required level", err: &codes.Error{Code: codes.E326}, wantStatus: StatusRefused, wantCode: codes.E326, wantExit: codes.ExitRefused},
		{name: "timeout", err: &codes.Error{Code: codes.E307}, wantStatus: StatusTimeout, wantCode: codes.E307, wantExit: codes.ExitTimeout},
		{name: "memory", err: &codes.Error{Code: codes.E308}, wantStatus: StatusMemory, wantCode: codes.E308, wantExit: codes.ExitMemory},
		{name: "killed", err: &codes.Error{Code: codes.E309}, wantStatus: StatusKilled, wantCode: codes.E309, wantExit: codes.ExitSignaled},
		{name: "crashed", err: &codes.Error{Code: codes.E310}, wantStatus: StatusCrashed, wantCode: codes.E310, wantExit: codes.ExitCrashed},
		{name: "an error without a code is a crash", err: errors.New("x"), wantStatus: StatusCrashed, wantCode: codes.E310, wantExit: codes.ExitCrashed},
		{name: "a wrapped error keeps its code", err: fmt.Errorf("context: %w", &codes.Error{Code: codes.E326, Msg: "m"}), wantStatus: StatusRefused, wantCode: codes.E326, wantExit: codes.ExitRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := OutcomeOf(tt.err)
			if o.Status != tt.wantStatus || o.Code != tt.wantCode || o.ExitStatus != tt.wantExit {
				t.Errorf("outcome %+v, want status %s, code %q, exit %d", o, tt.wantStatus, tt.wantCode, tt.wantExit)
			}
			var e *codes.Error
			if errors.As(tt.err, &e) && (o.Message != e.Msg || o.Position != e.Pos) {
				t.Errorf("outcome %+v does not carry the message %q and position %q", o, e.Msg, e.Pos)
			}
		})
	}
}

// TestOutcomeOfStack checks that the outcome keeps a run error's call stack
// and position.
func TestOutcomeOfStack(t *testing.T) {
	stack := []string{"lib.vel:2:19 in read_it", "main.vel:4:10 in main"}
	o := OutcomeOf(&codes.Error{Code: codes.E302, Msg: "m", Pos: stack[0], Stack: stack})
	if !slices.Equal(o.Stack, stack) || o.Position != stack[0] {
		t.Errorf("outcome stack %q at %q, want %q at %q", o.Stack, o.Position, stack, stack[0])
	}
}
