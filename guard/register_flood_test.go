package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// flooder is a user other than the test's, and other than root, whose
// files the tests make by chown.
const flooder = 4242

// rootOnly skips a test that makes files of other users (chown).
func rootOnly(t *testing.T) {
	t.Helper()
	unixOnly(t)
	if os.Geteuid() != 0 {
		t.Skip("making files of another user takes root (chown)")
	}
}

// chownAll gives each of paths to uid.
func chownAll(t *testing.T, uid int, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Lchown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
}

// floodTop writes n entries of uid flooder at the top of the register
// reg, named from first on: junk, each naming a path that is not there.
func floodTop(t *testing.T, reg string, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		p := filepath.Join(reg, fmt.Sprintf("%032x", i))
		if err := os.WriteFile(p, []byte("/nowhere\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		chownAll(t, flooder, p)
	}
}

// guardedByARun reports whether a run's guard set, built now from this
// machine's register (RegisteredLocations, Build on OS), refuses a grant
// of fs:read of dir and keeps the file in it from a grant of dir; and
// what the read found.
func guardedByARun(t *testing.T, dir, file string) (bool, Registered) {
	t.Helper()
	locs, r, err := RegisteredLocations()
	if err != nil {
		t.Fatal(err)
	}
	return guards(t, Build(Inputs{Sabline: locs, Owned: r.Owners}, OS()), dir, file), r
}

// guards reports whether set refuses a grant of fs:read of dir and keeps
// the file in it from a grant of dir.
func guards(t *testing.T, set *Set, dir, file string) bool {
	t.Helper()
	admitErr := set.Admit(budget.MustParse(dir, "fs:read:"+dir), Resolved)
	_, refused := set.Refuses(file, dir)
	if (admitErr != nil) != refused {
		t.Errorf("%s: admitted %v (%v), but %s refused %v", dir, admitErr == nil, admitErr, file, refused)
	}
	return admitErr != nil && refused
}

// TestRegisterFloodedKeepsOurEntries: a register flooded by another user,
// at its top, past the names one read lists (maxRegisterNames, lowered
// here), before and after our Join, still has every entry of ours read
// and its location guarded by a run's guard set: a grant of fs:read of
// the directory is refused, and the file in it kept. The control: the
// same register, listed whole. Before the subdirectories, a read listed
// at most maxRegisterNames names in the directory's order and ranked ours
// only once listed: of three entries of ours, at most two were read. Run
// as root (chown).
func TestRegisterFloodedKeepsOurEntries(t *testing.T) {
	rootOnly(t)
	dir := t.TempDir()
	reg := useRegister(t, dir)
	mkSticky(t, reg)
	floodTop(t, reg, 0, 20)
	var ours []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("ours%d", i))
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "secret.txt"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		ours = append(ours, p)
	}
	if err := Join(ours...); err != nil {
		t.Fatal(err)
	}
	floodTop(t, reg, 20, 20)
	was := maxRegisterNames
	t.Cleanup(func() { maxRegisterNames = was })
	for _, tc := range []struct {
		name  string
		names int
	}{
		{name: "control: listed whole", names: was},
		{name: "flooded past the listing", names: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			maxRegisterNames = tc.names
			for _, p := range ours {
				if ok, r := guardedByARun(t, p, filepath.Join(p, "secret.txt")); !ok {
					t.Errorf("%s not guarded: read %q, %d unread, warning %q", p, r.Paths, r.Unread,
						r.Warning())
				}
			}
			_, r, _ := RegisteredLocations()
			w := r.Warning()
			if tc.names == was {
				if w != "" || r.Unlisted {
					t.Errorf("listed whole: warning %q", w)
				}
				return
			}
			for _, want := range []string{"more than the 2 names one read lists",
				"at least 1 entries were not read", "other users' entries"} {
				if !strings.Contains(w, want) {
					t.Errorf("warning %q; want it to say %q", w, want)
				}
			}
		})
	}
}

// TestRegisterFloodedKeepsThisUsersAndRoots: a reader of another user
// (uid 4343, currentUser set) reads its own subdirectory and root's
// first, whole, whatever another user writes at the register's top and in
// a subdirectory of its own: both their locations are guarded by its
// run's guard set under a flood past the names one read lists. The
// control: before the flood, the same entries are guarded, and so is the
// flooding user's own entry in its subdirectory (other users' entries are
// read too). Run as root (chown).
func TestRegisterFloodedKeepsThisUsersAndRoots(t *testing.T) {
	rootOnly(t)
	const me = 4343
	dir := t.TempDir()
	reg := useRegister(t, dir)
	mkSticky(t, reg)
	place := func(name string, uid int) string { return placeOwned(t, dir, name, uid, 0o600) }
	roots, mine, theirs := place("roots", 0), place("mine", me), place("theirs", flooder)
	if err := Join(roots); err != nil { // as root: in u0
		t.Fatal(err)
	}
	// uid 4343's subdirectory and entry, and uid 4242's, as their Joins
	// make them.
	entriesAs(t, reg, me, mine)
	entriesAs(t, reg, flooder, theirs)
	t.Cleanup(func() { currentUser = os.Geteuid })
	currentUser = func() int { return me }

	for _, p := range []string{roots, mine, theirs} {
		if ok, r := guardedByARun(t, p, filepath.Join(p, "secret.txt")); !ok {
			t.Errorf("the control, no flood: %s not guarded (read %q)", p, r.Paths)
		}
	}

	floodTop(t, reg, 0, 30)
	junk := filepath.Join(reg, subdirName(flooder))
	for i := range 30 {
		p := filepath.Join(junk, fmt.Sprintf("%032x", i))
		if err := os.WriteFile(p, []byte("/nowhere\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		chownAll(t, flooder, p)
	}
	was := maxRegisterNames
	t.Cleanup(func() { maxRegisterNames = was })
	maxRegisterNames = 4
	for _, p := range []string{roots, mine} {
		if ok, r := guardedByARun(t, p, filepath.Join(p, "secret.txt")); !ok {
			t.Errorf("flooded: %s not guarded (read %q, warning %q)", p, r.Paths, r.Warning())
		}
	}
}

// TestJoinRefusesASubdirNotOurs: a file under our subdirectory's name that
// is not ours alone (another user's directory, a link to one, a file) is
// not written in: Join fails, naming it, its owner and what to do, and
// JoinAs gives E331 saying so; a reader passes it over, and the other
// user's entry in it, naming that user's own path, is not read as ours or
// root's. The control: a subdirectory of ours that others may write in is
// made 0755 again, and written in. Run as root (chown): our subdirectory
// is root's, u0.
func TestJoinRefusesASubdirNotOurs(t *testing.T) {
	rootOnly(t)
	tests := []struct {
		name    string
		plant   func(t *testing.T, sub, elsewhere string)
		wantWhy string
	}{
		{name: "another user's directory", wantWhy: "owned by uid 4242, not by uid 0",
			plant: func(t *testing.T, sub, elsewhere string) {
				if err := os.Rename(elsewhere, sub); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a link to another user's directory", wantWhy: "a link",
			plant: func(t *testing.T, sub, elsewhere string) {
				if err := os.Symlink(elsewhere, sub); err != nil {
					t.Fatal(err)
				}
				chownAll(t, flooder, sub)
			}},
		{name: "another user's file", wantWhy: "not a directory",
			plant: func(t *testing.T, sub, _ string) {
				if err := os.WriteFile(sub, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				chownAll(t, flooder, sub)
			}},
		{name: "control: ours, open to all", plant: func(t *testing.T, sub, _ string) {
			if err := os.Mkdir(sub, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(sub, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			mkSticky(t, reg)
			sub := ownSub(reg)
			// uid 4242's directory, with its entry naming its own path.
			theirs := filepath.Join(dir, "theirs")
			elsewhere := filepath.Join(reg, ".elsewhere")
			if err := os.Mkdir(theirs, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(elsewhere, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := writeEntry(elsewhere, theirs); err != nil {
				t.Fatal(err)
			}
			chownAll(t, flooder, theirs, elsewhere, filepath.Join(elsewhere, entryName(theirs)))
			tt.plant(t, sub, elsewhere)

			ours := filepath.Join(dir, "ours")
			if err := os.Mkdir(ours, 0o700); err != nil {
				t.Fatal(err)
			}
			joinErr := JoinAs("the receipts directory "+ours, ours)
			got, err := ReadRegister(reg)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantWhy == "" {
				fi, err := os.Lstat(sub)
				if joinErr != nil || err != nil || fi.Mode().Perm() != 0o755 ||
					!slices.Equal(got.Paths, []string{ours}) {
					t.Errorf("join: %v; %s: %v (%v); guarded %q: want it joined, 0755, %s guarded",
						joinErr, sub, fi, err, got.Paths, ours)
				}
				return
			}
			msg := fmt.Sprint(joinErr)
			for _, want := range []string{sub, tt.wantWhy, "its owner is uid 4242", "rm -r -- " + sub} {
				if !strings.Contains(msg, want) {
					t.Errorf("join: %v; want it to say %q", joinErr, want)
				}
			}
			var ce *codes.Error
			if !errors.Is(joinErr, errPlantedSubdir) || !errors.As(joinErr, &ce) ||
				ce.Code != codes.E331 || !strings.Contains(ce.Do, "rm -r") {
				t.Errorf("join: %#v; want E331 wrapping errPlantedSubdir, saying what to do", joinErr)
			}
			for _, d := range []string{sub, elsewhere} {
				if _, err := os.Lstat(filepath.Join(d, entryName(ours))); err == nil {
					t.Errorf("an entry of ours was written in %s, where uid 4242 may remove it", d)
				}
			}
			if len(got.Paths) != 0 {
				t.Errorf("guarded %q: want nothing (the planted subdirectory passed over)", got.Paths)
			}
			i := slices.IndexFunc(got.Refused, func(r RefusedEntry) bool { return r.Name == subdirName(0) })
			if i < 0 || !strings.Contains(got.Refused[i].Why, tt.wantWhy) {
				t.Errorf("refused %+v; want %s passed over, %q", got.Refused, subdirName(0), tt.wantWhy)
			}
		})
	}
}

// TestRegisterOldEntryHonoured: an entry at the register's top, as a
// Sabline older than the subdirectories wrote it (and one on Windows
// writes it), is still read and its location guarded by a run's guard
// set, beside the entries in the subdirectories; the control, the
// location without its entry, is not guarded.
func TestRegisterOldEntryHonoured(t *testing.T) {
	unixOnly(t)
	dir := t.TempDir()
	reg := useRegister(t, dir)
	mkSticky(t, reg)
	old, joined := filepath.Join(dir, "old"), filepath.Join(dir, "joined")
	for _, p := range []string{old, joined} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "secret.txt"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Join(joined); err != nil {
		t.Fatal(err)
	}
	if ok, _ := guardedByARun(t, old, filepath.Join(old, "secret.txt")); ok {
		t.Fatalf("the control: %s guarded with no entry", old)
	}
	if wrote, err := writeEntry(reg, old); err != nil || !wrote {
		t.Fatalf("an entry at the top: %v, %v", wrote, err)
	}
	for _, p := range []string{old, joined} {
		if ok, r := guardedByARun(t, p, filepath.Join(p, "secret.txt")); !ok {
			t.Errorf("%s not guarded: read %q, refused %+v", p, r.Paths, r.Refused)
		}
	}
}

// TestSubdirUID: only "u" and a uid written as subdirName writes it names
// a user's subdirectory.
func TestSubdirUID(t *testing.T) {
	for name, want := range map[string]int{"u0": 0, "u1000": 1000, "u2147483647": 2147483647} {
		if uid, ok := subdirUID(name); !ok || uid != want || subdirName(uid) != name {
			t.Errorf("subdirUID(%q) = %d, %v; want %d", name, uid, ok, want)
		}
	}
	for _, name := range []string{"u", "u01", "u+1", "u-1", "U1", "u1a", "u4294967296", " u1", "u1 ",
		"0123456789abcdef0123456789abcdef"} {
		if uid, ok := subdirUID(name); ok {
			t.Errorf("subdirUID(%q) = %d; want no subdirectory's name", name, uid)
		}
	}
}

// TestReadRegisterPassesOverASubdirOthersMayWrite: another user's
// subdirectory of the register that its group, or every user, may write
// in is not relied on (judgeSubdir): any of them could remove its
// entries, or plant one. Its entry, naming that user's own path, is not
// read, and the subdirectory is among the refused. The control: the same
// subdirectory at 0755, whose entry is read. Run as root (chown).
func TestReadRegisterPassesOverASubdirOthersMayWrite(t *testing.T) {
	rootOnly(t)
	for _, mode := range []fs.FileMode{0o775, 0o757, 0o755} {
		t.Run(fmt.Sprintf("%#o", mode), func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			mkSticky(t, reg)
			sub := filepath.Join(reg, subdirName(flooder))
			theirs := filepath.Join(dir, "theirs")
			for _, d := range []string{sub, theirs} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := writeEntry(sub, theirs); err != nil {
				t.Fatal(err)
			}
			chownAll(t, flooder, theirs, sub, filepath.Join(sub, entryName(theirs)))
			if err := os.Chmod(sub, mode); err != nil {
				t.Fatal(err)
			}
			got, err := ReadRegister(reg)
			if err != nil {
				t.Fatal(err)
			}
			trusted := mode == 0o755
			if read := slices.Contains(got.Paths, theirs); read != trusted {
				t.Errorf("mode %s: %s guarded %v, want %v (paths %q, refused %+v)", mode, theirs, read,
					trusted, got.Paths, got.Refused)
			}
			refused := slices.ContainsFunc(got.Refused, func(r RefusedEntry) bool {
				return r.Name == subdirName(flooder) && strings.Contains(r.Why, "other users may write")
			})
			if refused == trusted {
				t.Errorf("mode %s: the subdirectory refused %v, want %v (%+v)", mode, refused, !trusted,
					got.Refused)
			}
		})
	}
}

// TestRegisterOurEntryForRootsPath: a store of a user's own kept in a
// directory root made (mode 0777, as a Kubernetes emptyDir is), which
// the store trusts, is guarded by that user's runs once its entry is in
// the user's subdirectory: a grant of fs:read of it is refused, and the
// file in it kept. Before, every reader passed the entry over (the path
// is root's, not the entry owner's), and another Sabline of the same user
// read the server's token there. The controls: another user's runs do not
// honour the entry (no user makes root's files unreachable to others),
// and a directory of root's that no entry names is granted. Run as root
// (chown).
func TestRegisterOurEntryForRootsPath(t *testing.T) {
	rootOnly(t)
	const me = 4343
	dir := t.TempDir()
	reg := useRegister(t, dir)
	mkSticky(t, reg)
	place := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o777); err != nil { // whatever the umask
			t.Fatal(err)
		}
		f := filepath.Join(p, "serve.token")
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		chownAll(t, me, f)
		return p
	}
	store, plain := place("store"), place("plain") // root's directories
	entriesAs(t, reg, me, store)
	t.Cleanup(func() { currentUser = os.Geteuid })

	currentUser = func() int { return me }
	if ok, r := guardedByARun(t, store, filepath.Join(store, "serve.token")); !ok {
		t.Errorf("uid %d's own entry for %s (root's): not guarded by its runs (read %q, refused %+v)",
			me, store, r.Paths, r.Refused)
	}
	if ok, _ := guardedByARun(t, plain, filepath.Join(plain, "serve.token")); ok {
		t.Errorf("the control: %s, named by no entry, is guarded", plain)
	}
	currentUser = func() int { return flooder }
	if ok, r := guardedByARun(t, store, filepath.Join(store, "serve.token")); ok {
		t.Errorf("the control: uid %d's runs honour uid %d's entry for root's %s (read %q)",
			flooder, me, store, r.Paths)
	}
}

// TestRegisterRetargetedLinkGuardsNothingOfAnothers: another user's
// entries, honoured when the register is read (a link of theirs to a
// directory of theirs, and a directory of theirs), are guarded by the set
// built after only where that user still owns what is there: the link
// retargeted to root's directory, and the directory swapped for such a
// link, between the read and the build (or a pool worker's Refresh), guard
// nothing of root's. Before, the set resolved them again and guarded
// root's directory: with the link flipped in a loop beside them, one run
// of root's in ten granted fs:read of it was refused (E329, "names /
// (Sabline's receipts and tokens, ...)" for a link to /). The control: before
// the change, the other user's directories are guarded, root's granted.
// Run as root (chown).
func TestRegisterRetargetedLinkGuardsNothingOfAnothers(t *testing.T) {
	rootOnly(t)
	dir := t.TempDir()
	reg := useRegister(t, dir)
	mkSticky(t, reg)
	place := func(name string, uid int) string { return placeOwned(t, dir, name, uid, 0o644) }
	victim, own, swap := place("victim", 0), place("own", flooder), place("swap", flooder)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	chownAll(t, flooder, link)
	entriesAs(t, reg, flooder, link, swap)
	locs, r, err := RegisteredLocations()
	if err != nil {
		t.Fatal(err)
	}
	if r.Owners[link] != flooder || r.Owners[swap] != flooder {
		t.Fatalf("read %q, owners %v; want %s and %s, uid %d's", r.Paths, r.Owners, link, swap, flooder)
	}
	in := Inputs{Sabline: locs, Owned: r.Owners}
	before := Build(in, OS())
	for _, p := range []string{own, swap} {
		if !guards(t, before, p, filepath.Join(p, "secret.txt")) {
			t.Errorf("the control: uid %d's %s not guarded", flooder, p)
		}
	}
	if guards(t, before, victim, filepath.Join(victim, "secret.txt")) {
		t.Errorf("the control: root's %s guarded", victim)
	}

	// Between the read and the build: the link now leads to root's
	// directory, and the directory is such a link.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(swap, swap+".was"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, swap} {
		if err := os.Symlink(victim, p); err != nil {
			t.Fatal(err)
		}
		chownAll(t, flooder, p)
	}
	if guards(t, Build(in, OS()), victim, filepath.Join(victim, "secret.txt")) {
		t.Errorf("built after the change: root's %s guarded by uid %d's entries", victim, flooder)
	}
	if guards(t, before.Refresh(Inputs{}, OS()), victim, filepath.Join(victim, "secret.txt")) {
		t.Errorf("refreshed after the change: root's %s guarded by uid %d's entries", victim, flooder)
	}
}

// TestRegisterPathMissingAtTheBuildGuardsNothingOfAnothers: another
// user's entries, honoured when the register is read, guard in the set
// built after no path that is not there as it is built: a directory of
// theirs removed since the read, and where a link of theirs leads when
// nothing is there (a link to a name in root's directory). Root makes
// each after the build, its own, and the set does not keep a grant of
// fs:read of it from root's runs. The control: a directory of theirs
// that is there as the set is built is guarded. Run as root (chown).
func TestRegisterPathMissingAtTheBuildGuardsNothingOfAnothers(t *testing.T) {
	rootOnly(t)
	dir := t.TempDir()
	reg := useRegister(t, dir)
	mkSticky(t, reg)
	place := func(name string, uid int) string { return placeOwned(t, dir, name, uid, 0o644) }
	roots, gone, kept := place("roots", 0), place("gone", flooder), place("kept", flooder)
	later := filepath.Join(roots, "later") // nothing there yet
	link := filepath.Join(dir, "link")
	if err := os.Symlink(later, link); err != nil {
		t.Fatal(err)
	}
	chownAll(t, flooder, link)
	entriesAs(t, reg, flooder, gone, kept, link)
	locs, r, err := RegisteredLocations()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{gone, kept, link} {
		if r.Owners[p] != flooder {
			t.Fatalf("read %q, owners %v; want %s among them, uid %d's", r.Paths, r.Owners, p, flooder)
		}
	}
	// Between the read and the build: the directory is removed.
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	set := Build(Inputs{Sabline: locs, Owned: r.Owners}, OS())
	// After the build, root makes both places, its own.
	for _, p := range []string{gone, later} {
		placeOwned(t, filepath.Dir(p), filepath.Base(p), 0, 0o644)
	}
	for _, p := range []string{gone, later} {
		if guards(t, set, p, filepath.Join(p, "secret.txt")) {
			t.Errorf("root's %s, made after the build, guarded by uid %d's entries", p, flooder)
		}
	}
	if !guards(t, set, kept, filepath.Join(kept, "secret.txt")) {
		t.Errorf("the control: uid %d's %s, there as the set is built, not guarded", flooder, kept)
	}
}

// placeOwned makes the directory name in dir holding secret.txt (of
// mode), both owned by uid, and returns the directory.
func placeOwned(t *testing.T, dir, name string, uid int, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(p, "secret.txt")
	if err := os.WriteFile(f, []byte("x"), mode); err != nil {
		t.Fatal(err)
	}
	chownAll(t, uid, p, f)
	return p
}

// entriesAs writes, as uid's Join writes them, the entries of paths in
// that user's subdirectory of the register reg (made when missing), all
// owned by uid.
func entriesAs(t *testing.T, reg string, uid int, paths ...string) {
	t.Helper()
	sub := filepath.Join(reg, subdirName(uid))
	if err := os.Mkdir(sub, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	chownAll(t, uid, sub)
	for _, p := range paths {
		if _, err := writeEntry(sub, p); err != nil {
			t.Fatal(err)
		}
		chownAll(t, uid, filepath.Join(sub, entryName(p)))
	}
}
