package run

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
)

// TestPoolRetriesARefusedStart: a pool that requires full confinement,
// whose worker start was refused (E326) for a cause no granted path
// shows (gone), is sent no run, as a server held not ready is not;
// Refusing then makes a trial start of its own, in the background, one
// at a time, once the refusal is retryEvery old. The controls: before
// retryEvery no trial; while the cause stays each trial is refused again
// and Refusing stays E326; once it is gone a trial starts at the level
// and Refusing is nil; a closed pool makes none. The trial is a stand-in
// that records what a real start records (refuse, atLevel): that a
// real start refused for its level records E326 is TestPoolRefusing's.
func TestPoolRetriesARefusedStart(t *testing.T) {
	p := &Pool{cfg: PoolConfig{Require: core.Full}, least: least{level: core.Full},
		retryEvery: time.Hour}
	var trials, inFlight, overlapped atomic.Int32
	var cleared atomic.Bool
	refusal := codes.Errorf(codes.E326, "required level full: the worker holds partial")
	p.trial = func() {
		if inFlight.Add(1) > 1 {
			overlapped.Store(1)
		}
		defer inFlight.Add(-1)
		trials.Add(1)
		if cleared.Load() {
			p.atLevel(core.Result{Level: core.Full})
			return
		}
		p.refuse(refusal)
	}
	waitFor := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(testkit.Bound(time.Minute)); !done(); {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within the bound", what)
			}
			time.Sleep(time.Millisecond)
		}
	}
	setEvery := func(d time.Duration) {
		p.mu.Lock()
		p.retryEvery = d
		p.mu.Unlock()
	}

	p.refuse(refusal)
	if err := p.Refusing(); codes.CodeOf(err) != codes.E326 {
		t.Fatalf("Refusing after a refused start: %v, want E326", err)
	}
	if n := trials.Load(); n != 0 {
		t.Fatalf("%d trials before retryEvery, want none", n)
	}

	setEvery(time.Millisecond)
	waitFor("two trials refused again", func() bool {
		if err := p.Refusing(); codes.CodeOf(err) != codes.E326 {
			t.Fatalf("Refusing while the cause stays: %v, want E326", err)
		}
		return trials.Load() >= 2
	})

	cleared.Store(true)
	waitFor("Refusing nil once a trial starts at the level", func() bool { return p.Refusing() == nil })
	if overlapped.Load() != 0 {
		t.Error("two trials ran at once")
	}

	// A closed pool starts nothing more.
	p.refuse(refusal)
	p.mu.Lock()
	p.closed = true
	p.refusedAt = time.Now().Add(-time.Hour) // long past retryEvery
	p.mu.Unlock()
	before := trials.Load()
	if err := p.Refusing(); codes.CodeOf(err) != codes.E326 {
		t.Fatalf("Refusing of a closed pool refused a start: %v, want E326", err)
	}
	p.mu.Lock()
	retrying := p.retrying
	p.mu.Unlock()
	if p.wg.Wait(); retrying || trials.Load() != before {
		t.Errorf("a closed pool made a trial (retrying %v, %d trials, %d before)", retrying,
			trials.Load(), before)
	}
}
