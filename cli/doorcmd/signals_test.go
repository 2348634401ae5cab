package doorcmd

import (
	"os"
	"syscall"
	"testing"
)

// TestSignalNames: a door's stop names the signals that halt it as a
// shell does, those it heeds alone.
func TestSignalNames(t *testing.T) {
	tests := []struct {
		name string
		sigs []os.Signal
		want string
	}{
		{name: "serve's", sigs: []os.Signal{os.Interrupt, syscall.SIGTERM}, want: "SIGINT or SIGTERM"},
		{name: "mcp's", sigs: []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP},
			want: "SIGINT, SIGTERM or SIGHUP"},
		{name: "one, the others ignored", sigs: []os.Signal{syscall.SIGTERM}, want: "SIGTERM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := signalNames(tt.sigs); got != tt.want {
				t.Errorf("signalNames(%v) = %q, want %q", tt.sigs, got, tt.want)
			}
		})
	}
}
