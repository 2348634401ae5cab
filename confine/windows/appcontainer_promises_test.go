package windows

import (
	"slices"
	"strings"
	"testing"
)

// This file states the AppContainer's three promises once, as functions
// of a promiseWorld, and checks them against two: the fakes of
// appcontainer_test.go, on every system, and on Windows the system's own
// calls (appcontainer_promises_windows_test.go): the machine-wide mutex,
// the files' DACLs and the records' directory. Elsewhere the second is
// skipped, saying so.

// promiseWorld is one machine the promises are checked on.
type promiseWorld struct {
	host  aceHost
	sids  [2]string // two runs' container SIDs
	paths []string  // paths that exist and may be granted
	// holds reports whether path's rights hold an ACE for sid.
	holds func(t *testing.T, path, sid string) bool
	// recordExists reports whether the record of that name is in the
	// store.
	recordExists func(name string) bool
	// deleted are the profiles the sweeps deleted.
	deleted func() []string
	// ownContainer reads whether this process runs in an AppContainer,
	// and its SID, as the worker does.
	ownContainer func() (bool, string, error)
}

// kill ends a run with its ACEs out, as its death does: the system closes
// its record, which stays in the store.
func kill(t *testing.T, g *grantedACEs) {
	t.Helper()
	if err := g.held.Release(false); err != nil {
		t.Fatalf("close the killed run's record: %v", err)
	}
}

// promiseEveryACETakenBack: while a run lasts every granted path holds its
// ACE and its record is held; once it ends none does, and the record is
// gone.
func promiseEveryACETakenBack(t *testing.T, w *promiseWorld) {
	sid := w.sids[0]
	g, err := grantACEs(w.host, "sabline-run-a", grantsFor(sid, w.paths...))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range w.paths { // the positive control
		if !w.holds(t, p, sid) {
			t.Errorf("%s lacks the run's ACE while it runs", p)
		}
	}
	if !w.recordExists(recordName(sid)) {
		t.Error("no record names the run's ACEs while they are out")
	}
	if err := g.Revoke(); err != nil {
		t.Fatal(err)
	}
	for _, p := range w.paths {
		if w.holds(t, p, sid) {
			t.Errorf("%s still holds the run's ACE after it ended", p)
		}
	}
	if w.recordExists(recordName(sid)) {
		t.Error("the record outlived a run that took every ACE back")
	}
}

// promiseKilledRunSweptByNext: a run killed with its ACEs out is swept by
// the next run to grant any: its ACEs taken back, its profile deleted,
// its record removed, and the next run's own ACEs kept. A run that lives
// is not swept.
func promiseKilledRunSweptByNext(t *testing.T, w *promiseWorld) {
	a, b := w.sids[0], w.sids[1]
	ga, err := grantACEs(w.host, "sabline-run-a", grantsFor(a, w.paths...))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := sweepACEs(w.host); err != nil || n != 0 || !w.holds(t, w.paths[0], a) {
		t.Fatalf("a sweep while the run lives: swept %d, %v; its ACE kept %v", n, err, w.holds(t, w.paths[0], a))
	}
	kill(t, ga)
	if !w.recordExists(recordName(a)) {
		t.Fatal("the killed run's record is gone before any sweep: the sweep below proves nothing")
	}
	gb, err := grantACEs(w.host, "sabline-run-b", grantsFor(b, w.paths[len(w.paths)-1]))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range w.paths {
		if w.holds(t, p, a) {
			t.Errorf("%s still holds the killed run's ACE after the next run started", p)
		}
	}
	if !w.holds(t, w.paths[len(w.paths)-1], b) {
		t.Error("the sweep took the next run's own ACE")
	}
	if w.recordExists(recordName(a)) {
		t.Error("the killed run's record was not removed by the sweep")
	}
	if got := w.deleted(); !slices.Equal(got, []string{"sabline-run-a"}) {
		t.Errorf("profiles deleted = %v, want the killed run's", got)
	}
	if err := gb.Revoke(); err != nil {
		t.Fatal(err)
	}
}

// promiseContainedOutsideClaimsNothing: a worker told it runs in a
// container, whose token says it does not, claims none; told of the
// container its token names, it claims it (the positive control, on the
// claim alone).
func promiseContainedOutsideClaimsNothing(t *testing.T, w *promiseWorld) {
	told := w.sids[0]
	is, sid, err := w.ownContainer()
	if err != nil {
		t.Fatalf("read the process's own token: %v", err)
	}
	if is || sid != "" {
		t.Fatalf("this process reads as an AppContainer's (%v, %q): the check proves nothing", is, sid)
	}
	if held, problem := containerClaim(told, is, sid, err); held || !strings.Contains(problem, "not an AppContainer's") {
		t.Errorf("told of %s outside any container: claimed %v, %q", told, held, problem)
	}
	if held, problem := containerClaim(told, true, told, nil); !held || problem != "" {
		t.Errorf("told of the container its token names: claimed %v, %q", held, problem)
	}
}

// promises are the three, by name.
var promises = []struct {
	name  string
	check func(*testing.T, *promiseWorld)
}{
	{"every ACE taken back", promiseEveryACETakenBack},
	{"a killed run swept by the next", promiseKilledRunSweptByNext},
	{"--contained outside a container claims nothing", promiseContainedOutsideClaimsNothing},
}

// fakePromiseWorld is the fakes' machine.
func fakePromiseWorld(t *testing.T) *promiseWorld {
	w := newACEWorld()
	t.Cleanup(func() { w.checkUnderLock(t) })
	return &promiseWorld{
		host:         w.host(),
		sids:         [2]string{sidA, sidB},
		paths:        []string{`C:\data`, `C:\out`, `C:\bin\sabline.exe`},
		holds:        func(_ *testing.T, path, sid string) bool { return w.acl.has(path, sid) },
		recordExists: func(name string) bool { exists, _ := w.store.state(name); return exists },
		deleted:      func() []string { return w.deleted },
		ownContainer: func() (bool, string, error) { return false, "", nil },
	}
}

// TestAppContainerPromises checks each promise against the fakes, and
// against the system's own calls where this is Windows.
func TestAppContainerPromises(t *testing.T) {
	for _, p := range promises {
		t.Run("fakes/"+p.name, func(t *testing.T) { p.check(t, fakePromiseWorld(t)) })
		t.Run("system/"+p.name, func(t *testing.T) {
			w, why := systemPromiseWorld(t)
			if w == nil {
				t.Skip(why)
			}
			p.check(t, w)
		})
	}
}
