//go:build unix

package escape

import (
	"syscall"
	"testing"
)

// TestVictimEndedByItself: a victim that exits by itself is not read as
// killed, which a control that expects Killed (an unconfined run that
// kills it) would take as its attempt's doing; one a signal ended is.
func TestVictimEndedByItself(t *testing.T) {
	for _, tt := range []struct {
		name    string
		command []string
		kill    bool
		want    string
	}{
		{name: "ended by itself", command: []string{"true"}, want: victimEnded},
		{name: "killed", command: victimCommand, kill: true, want: Killed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func(c []string) { victimCommand = c }(victimCommand)
			victimCommand = tt.command
			s, err := NewScratch(t.TempDir(), "victim")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Expand("$VICTIM"); err != nil {
				t.Fatal(err)
			}
			if tt.kill {
				if err := s.victim.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			<-s.exited
			got := s.Victim()
			if got != tt.want {
				t.Errorf("Victim() = %q, want %q", got, tt.want)
			}
			if a := (Run{Victim: got}).Attempt(); a != tt.want {
				t.Errorf("Attempt() = %q, want %q", a, tt.want)
			}
		})
	}
}
