package worker

import (
	"testing"
	"time"
)

// TestYielderDue: a pool worker yields at its first job's end, then not
// again until yieldEvery has passed since its last yield, however many
// jobs end meanwhile.
func TestYielderDue(t *testing.T) {
	t0 := time.Now()
	tests := []struct {
		name    string
		after   time.Duration // since t0, each in turn
		wantDue bool
	}{
		{name: "the first job's end", after: 0, wantDue: true},
		{name: "a job right after", after: time.Millisecond, wantDue: false},
		{name: "just before the period", after: yieldEvery - time.Nanosecond, wantDue: false},
		{name: "a period after the last yield", after: yieldEvery, wantDue: true},
		{name: "a job right after that", after: yieldEvery + time.Millisecond, wantDue: false},
		{name: "long idle, then a job", after: time.Hour, wantDue: true},
	}
	var y yielder
	for _, tt := range tests {
		if got := y.due(t0.Add(tt.after)); got != tt.wantDue {
			t.Errorf("%s (%v after the first): due %v, want %v", tt.name, tt.after, got, tt.wantDue)
		}
	}
}
