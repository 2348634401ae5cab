package windows

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The ACE protocol is driven here against fakes that model what Windows
// does: a path's rights as a set of ACEs, rewritten whole by each write;
// a record held open until its run releases it or dies.

const (
	sidA = "S-1-15-2-1-2-3-4-5-6-7"
	sidB = "S-1-15-2-7-6-5-4-3-2-1"
)

// fakeLock is a machine-wide lock; held tells the fake ACL editor whether
// a write is under it.
type fakeLock struct {
	mu   sync.Mutex
	held bool
	hmu  sync.Mutex
}

func (l *fakeLock) Lock(wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for !l.mu.TryLock() {
		if time.Now().After(deadline) {
			return errACELockWait
		}
		time.Sleep(time.Millisecond)
	}
	l.hmu.Lock()
	l.held = true
	l.hmu.Unlock()
	return nil
}

func (l *fakeLock) Unlock() error {
	l.hmu.Lock()
	l.held = false
	l.hmu.Unlock()
	l.mu.Unlock()
	return nil
}

func (l *fakeLock) isHeld() bool {
	l.hmu.Lock()
	defer l.hmu.Unlock()
	return l.held
}

// noLock is a lock that excludes nothing: the control that shows the
// interleaving test can fail.
type noLock struct{}

func (noLock) Lock(time.Duration) error { return nil }
func (noLock) Unlock() error            { return nil }

// fakeACL keeps each path's ACEs (SID to mask). A write reads the path's
// ACEs, calls between (when set), and writes the whole set back, as
// GetNamedSecurityInfo and SetNamedSecurityInfo do.
type fakeACL struct {
	mu         sync.Mutex
	dacl       map[string]map[string]uint32
	lock       *fakeLock // when set, a write outside it is an error
	between    func(path string)
	failGrant  map[string]bool
	failRevoke map[string]int // path: how many revokes fail
	unlocked   []string       // writes made without the lock
}

func newFakeACL(lock *fakeLock) *fakeACL {
	return &fakeACL{dacl: map[string]map[string]uint32{}, lock: lock, failGrant: map[string]bool{}, failRevoke: map[string]int{}}
}

func (a *fakeACL) read(path string) map[string]uint32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]uint32{}
	for k, v := range a.dacl[path] {
		out[k] = v
	}
	return out
}

func (a *fakeACL) write(path string, d map[string]uint32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dacl[path] = d
}

func (a *fakeACL) checkLock(op string) {
	if a.lock != nil && !a.lock.isHeld() {
		a.mu.Lock()
		a.unlocked = append(a.unlocked, op)
		a.mu.Unlock()
	}
}

func (a *fakeACL) Grant(g aceGrant) error {
	a.checkLock("grant " + g.Path)
	if a.failGrant[g.Path] {
		return errors.New("access denied")
	}
	d := a.read(g.Path)
	if a.between != nil {
		a.between(g.Path)
	}
	d[g.SID] = g.Mask
	a.write(g.Path, d)
	return nil
}

func (a *fakeACL) Revoke(sid, path string) error {
	a.checkLock("revoke " + path)
	a.mu.Lock()
	fail := a.failRevoke[path] > 0
	if fail {
		a.failRevoke[path]--
	}
	a.mu.Unlock()
	if fail {
		return errors.New("the file is in use")
	}
	d := a.read(path)
	delete(d, sid)
	a.write(path, d)
	return nil
}

func (a *fakeACL) has(path, sid string) bool {
	_, ok := a.read(path)[sid]
	return ok
}

// fakeStore keeps records by name; open is true while a run holds one.
type fakeStore struct {
	mu   sync.Mutex
	recs map[string]*fakeRec
}

type fakeRec struct {
	store *fakeStore
	name  string
	data  []byte
	open  bool
}

func newFakeStore() *fakeStore { return &fakeStore{recs: map[string]*fakeRec{}} }

func (s *fakeStore) Hold(name string, data []byte) (heldRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[name]; ok {
		return nil, errors.New("the record exists")
	}
	r := &fakeRec{store: s, name: name, data: data, open: true}
	s.recs[name] = r
	return r, nil
}

func (s *fakeStore) Claim() ([]claimedRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []claimedRecord
	for _, r := range s.recs {
		if !r.open {
			r.open = true
			out = append(out, r)
		}
	}
	return out, nil
}

// die is the run that holds name killed: the system closes its record.
func (s *fakeStore) die(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs[name].open = false
}

// state says whether name is there and whether it is held open.
func (s *fakeStore) state(name string) (exists, open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[name]
	return ok, ok && r.open
}

func (r *fakeRec) Name() string { return r.name }
func (r *fakeRec) Data() []byte { return r.data }
func (r *fakeRec) Release(remove bool) error {
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	r.open = false
	if remove {
		delete(r.store.recs, r.name)
	}
	return nil
}

// aceWorld is one machine: its lock, its paths' rights, its records and
// the profiles deleted.
type aceWorld struct {
	lock    *fakeLock
	acl     *fakeACL
	store   *fakeStore
	deleted []string
}

func newACEWorld() *aceWorld {
	l := &fakeLock{}
	return &aceWorld{lock: l, acl: newFakeACL(l), store: newFakeStore()}
}

func (w *aceWorld) host() aceHost {
	return aceHost{Lock: w.lock, ACL: w.acl, Records: w.store, LockWait: time.Second,
		DeleteProfile: func(name string) error { w.deleted = append(w.deleted, name); return nil }}
}

func grantsFor(sid string, paths ...string) []aceGrant {
	var out []aceGrant
	for _, p := range paths {
		out = append(out, aceGrant{SID: sid, Path: p, Mask: aceMaskRead})
	}
	return out
}

func (w *aceWorld) checkUnderLock(t *testing.T) {
	t.Helper()
	if len(w.acl.unlocked) > 0 {
		t.Errorf("ACE writes made without the machine-wide lock: %v", w.acl.unlocked)
	}
}

func TestACEPlan(t *testing.T) {
	dirs := map[string]bool{`C:\data`: true, `C:\out`: true, `C:\bin\sabline.exe`: false}
	isDir := func(p string) (bool, error) {
		d, ok := dirs[p]
		if !ok {
			return false, errors.New("The system cannot find the file specified.")
		}
		return d, nil
	}
	tests := []struct {
		name    string
		aces    []windowsACE
		want    []aceGrant
		wantErr string
	}{
		{
			name: "a read directory inherits read",
			aces: []windowsACE{{Path: `C:\data`, Access: aceRead}},
			want: []aceGrant{{SID: sidA, Path: `C:\data`, Mask: aceMaskRead, Inherit: aceInheritObject | aceInheritContainer}},
		},
		{
			name: "a read-write directory and a read file",
			aces: []windowsACE{{Path: `C:\out`, Access: aceReadWrite}, {Path: `C:\bin\sabline.exe`, Access: aceRead}},
			want: []aceGrant{
				{SID: sidA, Path: `C:\out`, Mask: aceMaskReadWrite, Inherit: aceInheritObject | aceInheritContainer},
				{SID: sidA, Path: `C:\bin\sabline.exe`, Mask: aceMaskRead},
			},
		},
		{
			name:    "a granted path that does not exist cannot be held",
			aces:    []windowsACE{{Path: `C:\data`, Access: aceRead}, {Path: `C:\new.txt`, Access: aceReadWrite}},
			wantErr: `the grant C:\new.txt cannot be given an ACE`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := acePlan(tt.aces, sidA, isDir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("acePlan = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestACEMasksNest(t *testing.T) {
	// Read-write holds every read right, and adds write and delete.
	if aceMaskReadWrite&aceMaskRead != aceMaskRead {
		t.Errorf("read-write %#x lacks a read right of %#x", aceMaskReadWrite, aceMaskRead)
	}
	if aceMaskRead&0x2 != 0 || aceMaskRead&0x00010000 != 0 {
		t.Errorf("read %#x holds FILE_WRITE_DATA or DELETE", aceMaskRead)
	}
	if aceMaskReadWrite&0x2 == 0 || aceMaskReadWrite&0x00010000 == 0 {
		t.Errorf("read-write %#x lacks FILE_WRITE_DATA or DELETE", aceMaskReadWrite)
	}
}

func TestACEEveryTakenBack(t *testing.T) {
	w := newACEWorld()
	paths := []string{`C:\data`, `C:\out`, `C:\bin\sabline.exe`}
	g, err := grantACEs(w.host(), "sabline-run-a", grantsFor(sidA, paths...))
	if err != nil {
		t.Fatal(err)
	}
	// Positive control: while the run lasts, every path holds its ACE and
	// the record is held open.
	for _, p := range paths {
		if !w.acl.has(p, sidA) {
			t.Errorf("%s lacks the run's ACE while it runs", p)
		}
	}
	if exists, open := w.store.state(recordName(sidA)); !exists || !open {
		t.Errorf("the record exists %v, held open %v while the run holds ACEs", exists, open)
	}
	if err := g.Revoke(); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if w.acl.has(p, sidA) {
			t.Errorf("%s still holds the run's ACE after it ended", p)
		}
	}
	if exists, _ := w.store.state(recordName(sidA)); exists {
		t.Error("the record outlived a run that took every ACE back")
	}
	w.checkUnderLock(t)
}

func TestACEKilledRunSweptByNext(t *testing.T) {
	w := newACEWorld()
	if _, err := grantACEs(w.host(), "sabline-run-a", grantsFor(sidA, `C:\data`, `C:\shared`)); err != nil {
		t.Fatal(err)
	}
	// Control: a run that is alive is not swept.
	if n, err := sweepACEs(w.host()); err != nil || n != 0 || !w.acl.has(`C:\data`, sidA) {
		t.Fatalf("a sweep while the run lives: swept %d, %v; its ACE kept %v", n, err, w.acl.has(`C:\data`, sidA))
	}
	w.store.die(recordName(sidA)) // killed before it could take them back
	gb, err := grantACEs(w.host(), "sabline-run-b", grantsFor(sidB, `C:\shared`))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{`C:\data`, `C:\shared`} {
		if w.acl.has(p, sidA) {
			t.Errorf("%s still holds the killed run's ACE after the next run started", p)
		}
	}
	if !w.acl.has(`C:\shared`, sidB) {
		t.Error("the sweep took the next run's own ACE")
	}
	if exists, _ := w.store.state(recordName(sidA)); exists {
		t.Error("the killed run's record was not removed by the sweep")
	}
	if !slices.Equal(w.deleted, []string{"sabline-run-a"}) {
		t.Errorf("profiles deleted = %v, want the killed run's", w.deleted)
	}
	if err := gb.Revoke(); err != nil {
		t.Fatal(err)
	}
	w.checkUnderLock(t)
}

func TestACETwoRunsInterleave(t *testing.T) {
	w := newACEWorld()
	ga, err := grantACEs(w.host(), "sabline-run-a", grantsFor(sidA, `C:\shared`))
	if err != nil {
		t.Fatal(err)
	}
	gb, err := grantACEs(w.host(), "sabline-run-b", grantsFor(sidB, `C:\shared`))
	if err != nil {
		t.Fatal(err)
	}
	if !w.acl.has(`C:\shared`, sidA) || !w.acl.has(`C:\shared`, sidB) {
		t.Fatalf("two runs on one path: rights %v, want both ACEs", w.acl.read(`C:\shared`))
	}
	if err := ga.Revoke(); err != nil {
		t.Fatal(err)
	}
	if w.acl.has(`C:\shared`, sidA) || !w.acl.has(`C:\shared`, sidB) {
		t.Fatalf("after the first run ended: rights %v, want the second's ACE alone", w.acl.read(`C:\shared`))
	}
	if err := gb.Revoke(); err != nil {
		t.Fatal(err)
	}
	w.checkUnderLock(t)
}

// TestACELockKeepsConcurrentWrites has the second run write while the
// first is between reading and writing the path's rights: under the lock
// the second waits and both ACEs are kept; without it (the control) the
// first run's write, of rights read before the second's, loses it.
func TestACELockKeepsConcurrentWrites(t *testing.T) {
	for _, tt := range []struct {
		name     string
		locked   bool
		wantBoth bool
	}{
		{name: "under the lock both are kept", locked: true, wantBoth: true},
		{name: "without a lock one is lost", locked: false, wantBoth: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newACEWorld()
			h := w.host()
			if !tt.locked {
				h.Lock = noLock{}
				w.acl.lock = nil
			}
			var first atomic.Bool
			bDone := make(chan error, 1)
			w.acl.between = func(path string) {
				if first.CompareAndSwap(false, true) {
					go func() {
						_, err := grantACEs(h, "sabline-run-b", grantsFor(sidB, `C:\shared`))
						bDone <- err
					}()
					select { // the second run's grant, if nothing holds it back
					case err := <-bDone:
						bDone <- err
					case <-time.After(100 * time.Millisecond):
					}
				}
			}
			if _, err := grantACEs(h, "sabline-run-a", grantsFor(sidA, `C:\shared`)); err != nil {
				t.Fatal(err)
			}
			if err := <-bDone; err != nil {
				t.Fatal(err)
			}
			both := w.acl.has(`C:\shared`, sidA) && w.acl.has(`C:\shared`, sidB)
			if both != tt.wantBoth {
				t.Fatalf("rights %v: both ACEs kept = %v, want %v", w.acl.read(`C:\shared`), both, tt.wantBoth)
			}
			w.checkUnderLock(t)
		})
	}
}

func TestACERevokeFailureLeavesRecord(t *testing.T) {
	w := newACEWorld()
	g, err := grantACEs(w.host(), "sabline-run-a", grantsFor(sidA, `C:\data`, `C:\busy`))
	if err != nil {
		t.Fatal(err)
	}
	w.acl.failRevoke[`C:\busy`] = 1
	err = g.Revoke()
	if err == nil || !strings.Contains(err.Error(), `C:\busy`) {
		t.Fatalf("Revoke = %v, want the failure on C:\\busy", err)
	}
	if w.acl.has(`C:\data`, sidA) {
		t.Error("a failure on one path stopped the others from being taken back")
	}
	exists, open := w.store.state(recordName(sidA))
	if !exists || open {
		t.Fatalf("after a failed revoke the record exists %v, held %v; want it left, released, for the next sweep", exists, open)
	}
	// The next run's sweep takes the ACE back and then the record.
	if _, err := grantACEs(w.host(), "sabline-run-b", grantsFor(sidB, `C:\other`)); err != nil {
		t.Fatal(err)
	}
	if w.acl.has(`C:\busy`, sidA) {
		t.Error("the next run's sweep did not take back the ACE a failed revoke left")
	}
	if exists, _ := w.store.state(recordName(sidA)); exists {
		t.Error("the record stayed after the sweep took its ACE back")
	}
	w.checkUnderLock(t)
}

func TestACESweepKeepsRecordItCouldNotClear(t *testing.T) {
	w := newACEWorld()
	if _, err := grantACEs(w.host(), "sabline-run-a", grantsFor(sidA, `C:\busy`)); err != nil {
		t.Fatal(err)
	}
	w.store.die(recordName(sidA))
	w.acl.failRevoke[`C:\busy`] = 1
	if n, err := sweepACEs(w.host()); err == nil || n != 0 {
		t.Fatalf("sweep = %d, %v; want nothing swept and the failure said", n, err)
	}
	if exists, open := w.store.state(recordName(sidA)); !exists || open {
		t.Fatalf("record exists %v, held %v: want it left for the next sweep", exists, open)
	}
	if len(w.deleted) != 0 {
		t.Errorf("the profile %v was deleted while its ACE is still out", w.deleted)
	}
	if n, err := sweepACEs(w.host()); err != nil || n != 1 || w.acl.has(`C:\busy`, sidA) {
		t.Fatalf("second sweep = %d, %v; ACE left %v", n, err, w.acl.has(`C:\busy`, sidA))
	}
}

func TestACEGrantFailureTakesBack(t *testing.T) {
	w := newACEWorld()
	w.acl.failGrant[`C:\denied`] = true
	_, err := grantACEs(w.host(), "sabline-run-a", grantsFor(sidA, `C:\data`, `C:\denied`))
	if err == nil || !strings.Contains(err.Error(), `C:\denied`) {
		t.Fatalf("grantACEs = %v, want the failure on C:\\denied", err)
	}
	if w.acl.has(`C:\data`, sidA) {
		t.Error("the ACE granted before the failure was left out")
	}
	if exists, _ := w.store.state(recordName(sidA)); exists {
		t.Error("a run that took every ACE back left its record")
	}
}

// unlockFails is a machine-wide lock whose first fails releases report a
// failure, the lock released all the same.
type unlockFails struct {
	*fakeLock
	fails int
}

func (l *unlockFails) Unlock() error {
	if err := l.fakeLock.Unlock(); err != nil {
		return err
	}
	if l.fails > 0 {
		l.fails--
		return errors.New("the mutex is not owned")
	}
	return nil
}

// TestACEGrantFailureSaid: a grant that fails says what failed and what
// taking back the others did. A write's own error is said before the
// lock's; a lock not released after a write that succeeded fails the
// grant, which is taken back; a take-back that fails is said too, and
// leaves the record and the ACE for the next run's sweep.
func TestACEGrantFailureSaid(t *testing.T) {
	tests := []struct {
		name        string
		failGrant   string // a path whose grant is refused
		failRevoke  string // a path whose first revoke is refused
		unlockFails int    // the first releases of the lock that fail
		wantErr     []string
		wantNot     string // what the error does not say
		wantLeft    bool   // C:\data keeps its ACE, and the record is left
	}{
		{name: "a grant refused, the others taken back", failGrant: `C:\denied`,
			wantErr: []string{`grant the ACE on C:\denied: access denied`}, wantNot: "taking back"},
		{name: "a grant refused and a take-back refused",
			failGrant: `C:\denied`, failRevoke: `C:\data`,
			wantErr: []string{`grant the ACE on C:\denied: access denied`,
				`taking back the others: take back the ACE on C:\data: the file is in use`},
			wantLeft: true},
		{name: "the lock not released after a grant", unlockFails: 1,
			wantErr: []string{
				`grant the ACE on C:\data: release the ACE lock: the mutex is not owned`},
			wantNot: "taking back"},
		{name: "a grant refused, and the lock not released after it",
			failGrant: `C:\data`, unlockFails: 1,
			wantErr: []string{`grant the ACE on C:\data: access denied`},
			wantNot: "release the ACE lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newACEWorld()
			h := w.host()
			h.Lock = &unlockFails{fakeLock: w.lock, fails: tt.unlockFails}
			if tt.failGrant != "" {
				w.acl.failGrant[tt.failGrant] = true
			}
			if tt.failRevoke != "" {
				w.acl.failRevoke[tt.failRevoke] = 1
			}
			g, err := grantACEs(h, "sabline-run-a", grantsFor(sidA, `C:\data`, `C:\denied`))
			if err == nil || g != nil {
				t.Fatalf("grantACEs gave ACEs %v, error %v; want a failure", g != nil, err)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if tt.wantNot != "" && strings.Contains(err.Error(), tt.wantNot) {
				t.Errorf("error %q says %q", err, tt.wantNot)
			}
			if left := w.acl.has(`C:\data`, sidA); left != tt.wantLeft {
				t.Errorf("C:\\data holds the run's ACE %v, want %v", left, tt.wantLeft)
			}
			if exists, _ := w.store.state(recordName(sidA)); exists != tt.wantLeft {
				t.Errorf("the record exists %v, want %v", exists, tt.wantLeft)
			}
			w.checkUnderLock(t)
		})
	}
}

func TestACELockNotFree(t *testing.T) {
	w := newACEWorld()
	h := w.host()
	h.LockWait = 10 * time.Millisecond
	if err := w.lock.Lock(time.Second); err != nil { // another run's write that never ends
		t.Fatal(err)
	}
	_, err := grantACEs(h, "sabline-run-a", grantsFor(sidA, `C:\data`))
	if !errors.Is(err, errACELockWait) {
		t.Fatalf("grantACEs = %v, want errACELockWait", err)
	}
	if w.acl.has(`C:\data`, sidA) {
		t.Error("an ACE was written without the lock")
	}
	exists, open := w.store.state(recordName(sidA))
	if !exists || open {
		t.Errorf("record exists %v, held %v: the grant that may not have been taken back is left for a sweep", exists, open)
	}
	_ = w.lock.Unlock()
	// Positive control: with the lock free, the same grant is made.
	if _, err := grantACEs(h, "sabline-run-c", grantsFor(sidB, `C:\data`)); err != nil || !w.acl.has(`C:\data`, sidB) {
		t.Fatalf("with the lock free: %v, ACE %v", err, w.acl.has(`C:\data`, sidB))
	}
}

// sidTen is an AppContainer SID as Windows derives one from a name:
// seven sub-authorities after the 2, most of ten digits.
const sidTen = "S-1-15-2-2434737943-167758768-3180539153-984336765-1107280622-3591121930-2677285773"

// recordOfSize is a record of n bytes: a SID, then lines of a key the
// parser skips.
func recordOfSize(n int) string {
	var b strings.Builder
	b.WriteString("sabline-ace-record 1\nsid " + sidA + "\n")
	for b.Len() < n {
		line := n - b.Len() // this line, its newline counted
		if line > 1<<16 {
			line = 1 << 15
		}
		b.WriteString("pad " + strings.Repeat("x", line-5) + "\n")
	}
	return b.String()
}

func TestParseACERecord(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    aceRecord
		wantErr string
	}{
		{
			name: "a record", in: "sabline-ace-record 1\nsid " + sidA + "\nprofile sabline-run-1\npath C:\\data\npath \\\\srv\\share\\x\n",
			want: aceRecord{SID: sidA, Profile: "sabline-run-1", Paths: []string{`C:\data`, `\\srv\share\x`}},
		},
		{
			name: "CRLF lines", in: "sabline-ace-record 1\r\nsid " + sidA + "\r\npath C:\\data\r\n",
			want: aceRecord{SID: sidA, Paths: []string{`C:\data`}},
		},
		{
			name: "a key a later version adds is skipped", in: "sabline-ace-record 1\nsid " + sidA + "\nstarted 2026-12-01\npath C:\\a\n",
			want: aceRecord{SID: sidA, Paths: []string{`C:\a`}},
		},
		{
			name: "sub-authorities of ten digits, as Windows makes them",
			in:   "sabline-ace-record 1\nsid " + sidTen + "\n",
			want: aceRecord{SID: sidTen},
		},
		{
			name: "a path with a space",
			in:   "sabline-ace-record 1\nsid " + sidA + "\npath C:\\Program Files\\data\n",
			want: aceRecord{SID: sidA, Paths: []string{`C:\Program Files\data`}},
		},
		{name: "exactly the size bound", in: recordOfSize(maxRecordBytes),
			want: aceRecord{SID: sidA}},
		{name: "a byte over it", in: recordOfSize(maxRecordBytes + 1), wantErr: "larger than"},
		{name: "a sub-authority of eleven digits",
			in:      "sabline-ace-record 1\nsid S-1-15-2-12345678901\n",
			wantErr: "not an AppContainer SID"},
		{name: "no header", in: "sid " + sidA + "\n", wantErr: "header"},
		{name: "another version", in: "sabline-ace-record 2\nsid " + sidA + "\n", wantErr: "header"},
		{name: "a user's SID is never swept", in: "sabline-ace-record 1\nsid S-1-5-21-1-2-3-1001\npath C:\\Users\n", wantErr: "not an AppContainer SID"},
		{name: "the Everyone SID", in: "sabline-ace-record 1\nsid S-1-1-0\n", wantErr: "not an AppContainer SID"},
		{name: "a SID with a letter", in: "sabline-ace-record 1\nsid S-1-15-2-1-x\n", wantErr: "not an AppContainer SID"},
		{name: "an empty sub-authority", in: "sabline-ace-record 1\nsid S-1-15-2-1--2\n", wantErr: "not an AppContainer SID"},
		{name: "two SIDs", in: "sabline-ace-record 1\nsid " + sidA + "\nsid " + sidB + "\n", wantErr: "two sid"},
		{name: "no SID", in: "sabline-ace-record 1\npath C:\\a\n", wantErr: "no sid"},
		{name: "a relative path", in: "sabline-ace-record 1\nsid " + sidA + "\npath data\n", wantErr: "not an absolute path"},
		{name: "a control character", in: "sabline-ace-record 1\nsid " + sidA + "\npath C:\\a\x01b\n", wantErr: "not an absolute path"},
		{name: "a bad profile name", in: "sabline-ace-record 1\nsid " + sidA + "\nprofile a/b\n", wantErr: "profile"},
		{name: "too many paths", in: "sabline-ace-record 1\nsid " + sidA + "\n" + strings.Repeat("path C:\\a\n", maxRecordPaths+1), wantErr: "more than 4096 paths"},
		{name: "too large", in: "sabline-ace-record 1\nsid " + sidA + "\npath C:\\" + strings.Repeat("a", maxRecordBytes), wantErr: "larger than"},
		{name: "a line too long", in: "sabline-ace-record 1\nsid " + sidA + "\npath C:\\" + strings.Repeat("a", maxRecordLine+1) + "\n", wantErr: "token too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseACERecord([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.SID != tt.want.SID || got.Profile != tt.want.Profile || !slices.Equal(got.Paths, tt.want.Paths) {
				t.Fatalf("parseACERecord = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestACERecordRoundTrip(t *testing.T) {
	r := aceRecord{SID: sidA, Profile: "sabline-run-ab12", Paths: []string{`C:\data`, `D:\out\x.txt`}}
	data, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseACERecord(data)
	if err != nil || got.SID != r.SID || got.Profile != r.Profile || !slices.Equal(got.Paths, r.Paths) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	// Encode refuses what the parser would: a path that would end its line.
	if _, err := (aceRecord{SID: sidA, Paths: []string{"C:\\a\nsid S-1-5-18"}}).Encode(); err == nil {
		t.Error("Encode wrote a path holding a newline")
	}
}

func FuzzParseACERecord(f *testing.F) {
	f.Add([]byte("sabline-ace-record 1\nsid " + sidA + "\nprofile sabline-run-1\npath C:\\data\n"))
	f.Add([]byte("sabline-ace-record 1\r\nsid S-1-15-2-1\r\npath \\\\srv\\s\r\n"))
	f.Add([]byte("sabline-ace-record 1\nsid S-1-5-18\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseACERecord(data)
		if err != nil {
			return
		}
		if !strings.HasPrefix(r.SID, "S-1-15-2-") {
			t.Fatalf("accepted a SID that is not an AppContainer's: %q", r.SID)
		}
		if len(r.Paths) > maxRecordPaths {
			t.Fatalf("accepted %d paths", len(r.Paths))
		}
		again, err := r.Encode()
		if err != nil {
			t.Fatalf("an accepted record does not encode: %v", err)
		}
		r2, err := parseACERecord(again)
		if err != nil || r2.SID != r.SID || r2.Profile != r.Profile || !slices.Equal(r2.Paths, r.Paths) {
			t.Fatalf("re-encoded record reads %+v, %v; want %+v", r2, err, r)
		}
	})
}

func TestDecideProbe(t *testing.T) {
	agree := probeAnswer{Path: `C:\Users\runneradmin\data`, Short: `C:\Users\RUNNER~1\data`, Resolved: `C:\Users\runneradmin\data`}
	tests := []struct {
		name         string
		rememberedNo bool
		answers      []probeAnswer
		wantTrusted  bool
		wantRemember bool
		wantReason   string
	}{
		{name: "every answer agrees", answers: []probeAnswer{agree}, wantTrusted: true},
		{name: "a case difference agrees", answers: []probeAnswer{{Path: `C:\Data`, Short: `C:\DATA~1`, Resolved: `c:\data`}}, wantTrusted: true},
		{name: "a remembered no is not asked again", rememberedNo: true, answers: []probeAnswer{agree}, wantReason: "as remembered for this build"},
		{
			name:         "an answer that differs is a no, remembered",
			answers:      []probeAnswer{agree, {Path: `C:\work`, Short: `C:\WORK~1`, Resolved: `C:\WORK~1`}},
			wantRemember: true, wantReason: `resolved the short name of C:\work to C:\WORK~1`,
		},
		{name: "nothing to ask is a no, not remembered", answers: []probeAnswer{{Path: `C:\a`}}, wantReason: "no granted path has a short (8.3) name"},
		{name: "no answers at all", wantReason: "no granted path has a short (8.3) name"},
		{
			name:       "a question that could not be put is a no, not remembered",
			answers:    []probeAnswer{{Path: `C:\a`, Short: `C:\A~1`, Err: "the probe process did not start"}},
			wantReason: "could not ask about",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := decideProbe(tt.rememberedNo, tt.answers)
			if v.Trusted != tt.wantTrusted || v.Remember != tt.wantRemember || !strings.Contains(v.Reason, tt.wantReason) {
				t.Fatalf("decideProbe = %+v; want trusted %v, remember %v, reason with %q", v, tt.wantTrusted, tt.wantRemember, tt.wantReason)
			}
			if v.Trusted && v.Reason != "" || !v.Trusted && v.Reason == "" {
				t.Fatalf("verdict %+v: a no says why, a yes says nothing", v)
			}
		})
	}
}

func TestProbeMemoryName(t *testing.T) {
	tests := []struct{ name, version, want string }{
		{name: "a release", version: "v1.4.0", want: "probe-no-v1.4.0"},
		{name: "a path cannot escape the directory", version: `..\..\x/y`, want: "probe-no-.._.._x_y"},
		{name: "no version", version: "", want: "probe-no-unknown"},
		{name: "the ends of each range kept", version: "AZaz09.-", want: "probe-no-AZaz09.-"},
		{name: "what lies just past them replaced", version: "@[`{/:", want: "probe-no-______"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := probeMemoryName(tt.version); got != tt.want {
				t.Fatalf("probeMemoryName(%q) = %q, want %q", tt.version, got, tt.want)
			}
		})
	}
}

func TestProfileName(t *testing.T) {
	if got := profileName("0123abcd"); got != "sabline-run-0123abcd" {
		t.Errorf("profileName = %q", got)
	}
	for _, bad := range []string{"a/b", strings.Repeat("x", 60), "a\\b"} {
		if got := profileName(bad); got != "" {
			t.Errorf("profileName(%q) = %q, want none", bad, got)
		}
	}
}

// TestValidProfileName holds a profile name to CreateAppContainerProfile's
// rule: at most 64 characters of [-_. A-Za-z0-9], the ends of each range
// among them, and nothing just past them.
func TestValidProfileName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "64 characters", in: strings.Repeat("a", 64), want: true},
		{name: "65 characters", in: strings.Repeat("a", 65)},
		{name: "empty", in: ""},
		{name: "the ends of each range", in: "AZ az 09-_.", want: true},
		{name: "@ before A", in: "a@"},
		{name: "[ after Z", in: "a["},
		{name: "` before a", in: "a`"},
		{name: "{ after z", in: "a{"},
		{name: "/ before 0", in: "a/"},
		{name: ": after 9", in: "a:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := validProfileName(tt.in); got != tt.want {
				t.Fatalf("validProfileName(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// Example of a record as a run writes it.
func Example_aceRecordEncode() {
	data, _ := aceRecord{SID: "S-1-15-2-1-2-3-4-5-6-7", Profile: "sabline-run-1", Paths: []string{`C:\data`}}.Encode()
	fmt.Print(string(data))
	// Output:
	// sabline-ace-record 1
	// sid S-1-15-2-1-2-3-4-5-6-7
	// profile sabline-run-1
	// path C:\data
}
