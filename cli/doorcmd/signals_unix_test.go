//go:build unix

package doorcmd

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestStopOnSignals: the first signal stops a door and the second halts
// it (the control; halt is called once the second is taken, never at the
// first); a door stopped another way first (its stop called,
// as serve does when its fleet's agent ends) is halted by the first
// signal, which is then the second reason to end. The signal is SIGUSR1,
// sent to this test's own process while stopOnSignals takes it.
func TestStopOnSignals(t *testing.T) {
	for _, tt := range []struct {
		name      string
		stopFirst bool
	}{
		{"a first signal, then a second", false},
		{"stopped another way", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			halted := make(chan struct{})
			var once sync.Once
			var stderr testkit.LockedBuffer
			early := false // halted before it said it halts: at the first signal
			ctx, stop, release := stopOnSignals("serve", &stderr, func() {
				once.Do(func() {
					early = !strings.Contains(stderr.String(), "halting")
					close(halted)
				})
			}, syscall.SIGUSR1)
			defer release()
			signal := func() {
				t.Helper()
				if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
					t.Fatal(err)
				}
			}
			bound := testkit.Bound(10 * time.Second)
			if tt.stopFirst {
				stop()
			} else {
				signal()
				select {
				case <-ctx.Done():
				case <-time.After(bound):
					t.Fatal("the first signal did not stop the door")
				}
				// The second is sent once the first is said: two sent at
				// once may reach the process as one.
				for deadline := time.Now().Add(bound); !strings.Contains(stderr.String(),
					"stopping"); time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("no word of stopping: %q", stderr.String())
					}
				}
			}
			signal()
			select {
			case <-halted:
			case <-time.After(bound):
				t.Fatalf("the signal did not halt the door; it said %q", stderr.String())
			}
			if early || !strings.Contains(stderr.String(), "sabline serve: halting") {
				t.Errorf("the door said %q, halted at the first signal %v; want it halting at "+
					"the second", stderr.String(), early)
			}
		})
	}
}
