package guard

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReadEmptyRegister: a register that is there and trusted, and holds
// no entry yet (or only one being written), holds nothing to guard, and
// is no error: the register's own directory is still guarded.
func TestReadEmptyRegister(t *testing.T) {
	unixOnly(t)
	tests := []struct {
		name  string
		files []string // the register's files
	}{
		{name: "no entry"},
		{name: "only an entry being written", files: []string{".tmp-0123"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := useRegister(t, t.TempDir())
			mkSticky(t, reg)
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(reg, f), []byte("/nowhere"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadRegister(reg)
			if err != nil || len(got.Paths) != 0 || len(got.Refused) != 0 || got.Unread != 0 {
				t.Errorf("ReadRegister = %+v, %v; want nothing, and no error", got, err)
			}
			locs, _, err := RegisteredLocations()
			if err != nil || !slices.Equal(locs, []string{reg}) {
				t.Errorf("RegisteredLocations = %q, %v; want the register alone", locs, err)
			}
		})
	}
}

// TestJoinRepairsOurEntry: an entry of ours under the path's name that
// does not hold the path (cut short by a crash, say) is replaced by one
// that does, and the path is guarded.
func TestJoinRepairsOurEntry(t *testing.T) {
	unixOnly(t)
	tests := []struct {
		name string
		data string // what our entry holds before the join
	}{
		{name: "cut short", data: "/"},
		{name: "empty"},
		{name: "another path", data: "/elsewhere\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			mkSticky(t, reg)
			store := filepath.Join(dir, "receipts")
			if err := os.Mkdir(store, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(ownSub(reg), 0o755); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(ownSub(reg), entryName(store))
			if err := os.WriteFile(name, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := Join(store); err != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(name); err != nil || string(data) != store+"\n" {
				t.Errorf("our entry holds %q (%v) after the join, want %q", data, err, store+"\n")
			}
			if got, err := ReadRegister(reg); err != nil || !slices.Equal(got.Paths, []string{store}) {
				t.Errorf("ReadRegister = %+v, %v; want %s guarded", got, err, store)
			}
		})
	}
}

// TestJoinLeavesAnotherUsersFile: another user's file under the name our
// entry would take at the register's top, even one naming our path, is
// neither taken for our entry nor replaced: we join in our subdirectory,
// our path is guarded, and their file is as it was; written at the top
// (as a Sabline on Windows writes, or an older one), our entry takes the
// name and a suffix. Run as root (chown).
func TestJoinLeavesAnotherUsersFile(t *testing.T) {
	unixOnly(t)
	if os.Geteuid() != 0 {
		t.Skip("writing a file as another user takes root (chown)")
	}
	const them = 4242
	tests := []struct {
		name string
		data func(ours string) string // what their file holds
	}{
		{name: "their entry naming our path", data: func(ours string) string { return ours + "\n" }},
		{name: "their file of something else", data: func(string) string { return "squatted\n" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			mkSticky(t, reg)
			ours := filepath.Join(dir, "ours")
			if err := os.Mkdir(ours, 0o700); err != nil {
				t.Fatal(err)
			}
			theirs := filepath.Join(reg, entryName(ours))
			want := tt.data(ours)
			if err := os.WriteFile(theirs, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(theirs, them, them); err != nil {
				t.Fatal(err)
			}
			if err := Join(ours); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(theirs)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(theirs)
			if owner := fileOwner(fi); owner != them || string(data) != want {
				t.Errorf("their file is now uid %d's holding %q, want uid %d's holding %q",
					owner, data, them, want)
			}
			if data, err := os.ReadFile(filepath.Join(ownSub(reg), entryName(ours))); err != nil ||
				string(data) != ours+"\n" {
				t.Errorf("our entry holds %q (%v), want %q", data, err, ours+"\n")
			}
			if got, err := ReadRegister(reg); err != nil || !slices.Contains(got.Paths, ours) {
				t.Errorf("ReadRegister = %+v, %v; want %s guarded", got, err, ours)
			}
			if wrote, err := writeEntry(reg, ours); err != nil || !wrote {
				t.Fatalf("written at the top: %v, %v", wrote, err)
			}
			names, _ := filepath.Glob(filepath.Join(reg, "*"))
			suffixed := slices.ContainsFunc(names, func(n string) bool {
				return strings.HasPrefix(filepath.Base(n), entryName(ours)+"-")
			})
			if !suffixed {
				t.Errorf("no entry of ours at the top under a suffix: %q", names)
			}
		})
	}
}

// TestJoinPrunes: a Join that adds an entry removes the entries that
// name nothing now, in its subdirectory and at the register's top (as
// older Sablines wrote them, in an earlier boot: one of this boot no view
// holds is left, TestPruneLeavesAnUnheldEntryOfThisBoot), and only those:
// an entry of a path still
// there stays (the control), as does a file that is not an entry; a Join
// that adds nothing reads no more of the register, and removes nothing.
// Run as root, another user's entry naming nothing at the top is removed
// too (root may, in the sticky register). Read from the register's
// directory.
func TestJoinPrunes(t *testing.T) {
	unixOnly(t)
	dir := t.TempDir()
	reg := useRegister(t, dir)
	kept, gone, joined := filepath.Join(dir, "kept"), filepath.Join(dir, "gone"), filepath.Join(dir, "joined")
	for _, d := range []string{kept, gone, joined} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := Join(kept, gone); err != nil {
		t.Fatal(err)
	}
	oldGone := filepath.Join(dir, "old-gone") // an older Sabline's, at the top, of an earlier boot
	if err := os.Mkdir(oldGone, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := writeEntry(reg, oldGone); err != nil {
		t.Fatal(err)
	}
	writtenBeforeThisBoot(t, filepath.Join(reg, entryName(oldGone)))
	if err := os.Remove(oldGone); err != nil {
		t.Fatal(err)
	}
	notOne := filepath.Join(reg, "0123456789abcdef0123456789abcdef")
	if err := os.WriteFile(notOne, []byte("no newline"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	missing := 2
	if os.Geteuid() == 0 {
		theirs := filepath.Join(dir, "theirs")
		at := filepath.Join(reg, entryName(theirs))
		if err := os.WriteFile(at, []byte(theirs+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(at, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		writtenBeforeThisBoot(t, at)
		missing++
	}
	before, err := ReadRegister(reg)
	if err != nil || before.Missing != missing || !slices.Equal(before.Paths, []string{kept}) {
		t.Fatalf("before the join: %+v (%v), want %s guarded and %d missing", before, err, kept,
			missing)
	}

	if err := Join(kept); err != nil { // there already: nothing added
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(ownSub(reg), entryName(gone))); err != nil {
		t.Errorf("a Join that added nothing removed %s's entry: %v", gone, err)
	}

	if err := Join(joined); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range []string{reg, ownSub(reg)} {
		for _, e := range entriesOf(d) {
			have[filepath.Join(strings.TrimPrefix(d, reg), e.Name())] = true
		}
	}
	sub := "/" + subdirName(currentUser())
	want := map[string]bool{filepath.Join(sub, entryName(kept)): true,
		filepath.Join(sub, entryName(joined)): true, filepath.Base(notOne): true, sub[1:]: true}
	if !maps.Equal(have, want) {
		t.Errorf("the register holds %v after the join, want %v (the entries naming nothing "+
			"removed)", have, want)
	}
	after, err := ReadRegister(reg)
	if err != nil || after.Missing != 0 || len(after.Paths) != 2 {
		t.Errorf("after the join: %+v (%v), want 2 guarded and none missing", after, err)
	}
}

// TestPruneGivesBackAnEntryMadeMeanwhile: a path made again while its
// entry is being removed (after prune found it missing, before it looked
// again) has its entry back once prune is done, and is guarded; the
// control, a path that stays missing, has none.
func TestPruneGivesBackAnEntryMadeMeanwhile(t *testing.T) {
	unixOnly(t)
	for _, tc := range []struct {
		name      string
		makeAgain bool
	}{
		{name: "made again meanwhile", makeAgain: true},
		{name: "still missing", makeAgain: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			p := filepath.Join(dir, "receipts")
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := Join(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { pruned = func(string) {} })
			pruned = func(got string) {
				if got == p && tc.makeAgain {
					if err := os.Mkdir(p, 0o700); err != nil {
						t.Error(err)
					}
				}
			}
			if n := prune(reg); n != 1 {
				t.Fatalf("prune removed %d entries, want 1", n)
			}
			_, err := os.Lstat(filepath.Join(ownSub(reg), entryName(p)))
			if has := err == nil; has != tc.makeAgain {
				t.Errorf("entry of %s there after prune: %v, want %v", p, has, tc.makeAgain)
			}
			got, err := ReadRegister(reg)
			if err != nil || slices.Contains(got.Paths, p) != tc.makeAgain {
				t.Errorf("ReadRegister = %+v, %v; want %s guarded %v", got, err, p, tc.makeAgain)
			}
		})
	}
}

// TestPruneLeavesWhatAnotherViewHolds: an entry whose path a Join does
// not find is left when a Sabline of another view (another mount
// namespace, where the path may be hidden from this one: a tmpfs over its
// parent) holds it, and removed by the next Join of the view that holds
// it, or by any once the boot that held it is gone: the register stays
// bounded. Before, a Join in any view removed it.
func TestPruneLeavesWhatAnotherViewHolds(t *testing.T) {
	unixOnly(t)
	const boot, earlier = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	as := asView(t)
	for _, tc := range []struct {
		name        string
		holder, by  string // the views that join the path, then another
		wantKept    bool
		thenByOwner bool // the holder's view joins again: the entry goes
	}{
		{name: "held by another view of this boot", holder: boot + "-1", by: boot + "-2", wantKept: true,
			thenByOwner: true},
		{name: "held by this view (the control)", holder: boot + "-2", by: boot + "-2"},
		{name: "held by a view of an earlier boot", holder: earlier + "-1", by: boot + "-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			store := filepath.Join(dir, "store")
			for _, d := range []string{store, filepath.Join(dir, "a"), filepath.Join(dir, "b")} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			as(tc.holder)
			if err := Join(store); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(store); err != nil { // not there for the view that joins next
				t.Fatal(err)
			}
			entry := filepath.Join(ownSub(reg), entryName(store))
			if !strings.HasPrefix(tc.holder, boot) {
				writtenBeforeThisBoot(t, entry) // joined in that boot
			}
			as(tc.by)
			if err := Join(filepath.Join(dir, "a")); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(entry); (err == nil) != tc.wantKept {
				t.Fatalf("the entry of %s, joined in view %s, after a Join in view %s: kept %v, want %v",
					store, tc.holder, tc.by, err == nil, tc.wantKept)
			}
			if !tc.thenByOwner {
				return
			}
			as(tc.holder)
			if err := Join(filepath.Join(dir, "b")); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(entry); err == nil {
				t.Errorf("the entry of %s is kept after a Join in the view that held it", store)
			}
		})
	}
}

// TestReadHonoursAnEntryAnOlderSablinePruned: a Sabline older than the
// holds, beside this one on the register, prunes an entry whose path it
// does not see (in a mount namespace of its own, where a tmpfs hides it)
// by removing its name, and leaves the hold it does not know of. The view
// that holds the entry still relies on its path: a read of the register
// guards it. Before, the read listed only the names, and the path went
// unguarded. The controls: an entry with no hold (joined where the view
// cannot be told), or held only by a view of an earlier boot, is not read
// back once its name is gone; an entry still named is read once.
func TestReadHonoursAnEntryAnOlderSablinePruned(t *testing.T) {
	unixOnly(t)
	const boot, earlier = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	as := asView(t)
	for _, tc := range []struct {
		name     string
		holder   string // the view that joins the store; "" where none can be told
		unnamed  bool   // its name removed, as an older Sabline's prune removes it
		wantRead bool
	}{
		{name: "held by a view of this boot, its name pruned", holder: boot + "-1", unnamed: true,
			wantRead: true},
		{name: "held by a view of this boot, still named (the control)", holder: boot + "-1",
			wantRead: true},
		{name: "held by no view, its name pruned", unnamed: true},
		{name: "held by a view of an earlier boot, its name pruned", holder: earlier + "-1",
			unnamed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			store := filepath.Join(dir, "store")
			if err := os.Mkdir(store, 0o700); err != nil {
				t.Fatal(err)
			}
			as(tc.holder)
			if err := Join(store); err != nil {
				t.Fatal(err)
			}
			entry := filepath.Join(ownSub(reg), entryName(store))
			if tc.unnamed {
				// What a Sabline before the holds did of an entry whose
				// path it did not find: os.Remove of its name.
				if err := os.Remove(entry); err != nil {
					t.Fatal(err)
				}
			}
			as(boot + "-2") // the reader: this boot, another mount namespace
			got, err := ReadRegister(reg)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, p := range got.Paths {
				if p == store {
					n++
				}
			}
			if want := map[bool]int{true: 1}[tc.wantRead]; n != want {
				t.Errorf("ReadRegister guards %s %d times, want %d (paths %q, refused %+v)",
					store, n, want, got.Paths, got.Refused)
			}
			if len(got.Refused) != 0 {
				t.Errorf("ReadRegister refused %+v, want nothing", got.Refused)
			}
		})
	}
}

// writtenBeforeThisBoot sets the modification time of the register's
// entry at p to a day before this boot began (bootTime), as an entry
// written in an earlier boot has it.
func writtenBeforeThisBoot(t *testing.T, p string) {
	t.Helper()
	boot, ok := bootTime()
	if !ok {
		boot = time.Now()
	}
	was := boot.Add(-24 * time.Hour)
	if err := os.Chtimes(p, was, was); err != nil {
		t.Fatal(err)
	}
}

// TestPruneLeavesAnUnheldEntryOfThisBoot: an entry no view holds,
// written in this boot, is an older Sabline's (one that holds nothing,
// beside this one during an upgrade), which may see its path in a mount
// namespace of its own: a prune that does not find the path leaves it,
// in a user's subdirectory and at the register's top alike. Before, it
// removed it, and the older Sabline's store went unguarded. The
// controls: such an entry written in an earlier boot, and one this view
// joined and held, are removed.
func TestPruneLeavesAnUnheldEntryOfThisBoot(t *testing.T) {
	unixOnly(t)
	if _, ok := bootTime(); !ok {
		t.Skip("this system's boot time cannot be read")
	}
	const boot = "0123456789abcdef0123456789abcdef"
	was := viewTag
	t.Cleanup(func() { viewTag = was })
	viewTag = func() string { return boot + "-2" }
	for _, tc := range []struct {
		name     string
		top      bool // at the register's top, as a Sabline before the subdirectories wrote it
		earlier  bool // written in an earlier boot
		joined   bool // joined, and held, by this view
		wantKept bool
	}{
		{name: "an older Sabline's, of this boot", wantKept: true},
		{name: "an older Sabline's at the top, of this boot", top: true, wantKept: true},
		{name: "an older Sabline's, of an earlier boot", earlier: true},
		{name: "an older Sabline's at the top, of an earlier boot", top: true, earlier: true},
		{name: "joined and held by this view", joined: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			store := filepath.Join(dir, "store")
			for _, d := range []string{store, filepath.Join(dir, "a"), filepath.Join(dir, "b")} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			// The register, and our subdirectory of it.
			if err := Join(filepath.Join(dir, "a")); err != nil {
				t.Fatal(err)
			}
			at := ownSub(reg)
			if tc.top {
				at = reg
			}
			if tc.joined {
				if err := Join(store); err != nil {
					t.Fatal(err)
				}
			} else if _, err := writeEntry(at, store); err != nil { // no hold: an older Sabline's
				t.Fatal(err)
			}
			entry := filepath.Join(at, entryName(store))
			if tc.earlier {
				writtenBeforeThisBoot(t, entry)
			}
			if err := os.Remove(store); err != nil { // not there for this view
				t.Fatal(err)
			}
			if err := Join(filepath.Join(dir, "b")); err != nil { // adds an entry: prunes
				t.Fatal(err)
			}
			if _, err := os.Lstat(entry); (err == nil) != tc.wantKept {
				t.Errorf("the entry of %s after a prune that did not find it: kept %v, want %v",
					store, err == nil, tc.wantKept)
			}
		})
	}
}

// asView returns a function that has this process take the view tag
// given (viewTag), as a Sabline of that boot and mount namespace would;
// the test's end puts the process's own back.
func asView(t *testing.T) func(tag string) {
	was := viewTag
	t.Cleanup(func() { viewTag = was })
	return func(tag string) { viewTag = func() string { return tag } }
}
