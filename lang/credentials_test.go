package lang

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// TestGuardedLocations checks E318: a grant above a guarded location
// never reaches it, whatever opens it (read, list, write); a dot-entry is
// reached by a grant that names it, a credential location only where the
// operator lent it and the grant names it; a location that is a link is
// held where it leads too. Each refusal leaves the disk as it was and
// charges nothing; each grant that reaches is its positive control.
func TestGuardedLocations(t *testing.T) {
	tests := []struct {
		name     string
		grant    string
		lent     []string
		stmt     string
		wantCode codes.Code // "" for allowed
		wantMsg  string     // what a refusal names
	}{
		{name: "any path read", grant: "fs:read",
			stmt: `v = fs.read("$H/.ssh/id_x")`, wantCode: codes.E318, wantMsg: "$H/.ssh/id_x is in $H/.ssh, a credential location (SSH keys and authorized_keys)"},
		{name: "the home directory", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/.ssh/id_x")`, wantCode: codes.E318, wantMsg: "the grant fs:read:$H is broader"},
		{name: "the home directory: listing the location", grant: "fs:read:$H",
			stmt: `v = fs.list("$H/.ssh")`, wantCode: codes.E318, wantMsg: "is in $H/.ssh, a credential location (SSH keys"},
		{name: "a nested location within a named dot-entry", grant: "fs:read:$H/.config",
			stmt: `v = fs.read("$H/.config/gh/hosts.yml")`, wantCode: codes.E318, wantMsg: "is in $H/.config/gh, a credential location (GitHub CLI tokens)"},
		{name: "a file location", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/.netrc")`, wantCode: codes.E318, wantMsg: "is in $H/.netrc"},
		{name: "write under the home directory", grant: "fs:write:$H",
			stmt: `fs.append("$H/.ssh/authorized_keys", "key")`, wantCode: codes.E318, wantMsg: "is in $H/.ssh"},
		{name: "the location that is a link: by where it leads", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/dotfiles/gnupg/key")`, wantCode: codes.E318, wantMsg: "is in $H/dotfiles/gnupg, a credential location (GnuPG keys)"},
		{name: "the location that is a link: as written", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/.gnupg/key")`, wantCode: codes.E318, wantMsg: "is in $H/dotfiles/gnupg"},
		{name: "beside the link's target", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/dotfiles/vimrc")`},
		{name: "a credential location named but not lent", grant: "fs:read:$H/.ssh",
			stmt: `v = fs.read("$H/.ssh/id_x")`, wantCode: codes.E318, wantMsg: "only where the operator lends it"},
		{name: "a credential location named and lent", grant: "fs:read:$H/.ssh", lent: []string{"$H/.ssh"},
			stmt: `v = fs.read("$H/.ssh/id_x")`},
		{name: "a credential location lent: under a broad grant", grant: "fs:read:$H", lent: []string{"$H/.ssh"},
			stmt: `v = fs.read("$H/.ssh/id_x")`, wantCode: codes.E318, wantMsg: "is in $H/.ssh"},
		{name: "a dot-entry under the home's grant", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/.config/app/conf")`, wantCode: codes.E318, wantMsg: "a dot-entry of a home: a grant reaches it only by naming it (fs:read:$H/.config)"},
		{name: "a dot-entry named", grant: "fs:read:$H/.config/app",
			stmt: `v = fs.read("$H/.config/app/conf")`},
		{name: "a dot-entry made during the run", grant: "fs:write:$H",
			stmt: `fs.write("$H/.profile2", "x")`, wantCode: codes.E318, wantMsg: "is in $H/.profile2"},
		{name: "a plain file under the home directory", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/notes.txt")`},
		{name: "a new entry in the home: homes are held as their entries", grant: "fs:write:$H",
			stmt: `fs.write("$H/new.txt", "x")`, wantCode: codes.E318, wantMsg: "would be made or removed in $H, a home"},
		{name: "an entry removed from the home", grant: "fs:write:$H",
			stmt: `fs.remove("$H/notes.txt")`, wantCode: codes.E318, wantMsg: "would be made or removed in $H"},
		{name: "a file of the home written over", grant: "fs:write:$H",
			stmt: `fs.write("$H/notes.txt", "x")`},
		{name: "a new file in a directory of the home", grant: "fs:write:$H",
			stmt: `fs.write("$H/src/new.txt", "x")`},
		{name: "a dot-entry deeper than the home is no dot-entry of a home", grant: "fs:read:$H",
			stmt: `v = fs.read("$H/src/.git/config")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := testkit.Scratch(t)
			for _, f := range []string{".ssh/id_x", ".config/gh/hosts.yml", ".config/app/conf", ".netrc", "notes.txt",
				"dotfiles/gnupg/key", "dotfiles/vimrc", "src/.git/config"} {
				testkit.WriteFile(t, filepath.Join(home, f), "data")
			}
			symlink(t, "dotfiles/gnupg", filepath.Join(home, ".gnupg"))
			fill := strings.NewReplacer("$H", home).Replace
			var lent []string
			for _, l := range tt.lent {
				lent = append(lent, fill(l))
			}
			src := "x = 1\n" + fill(tt.stmt) + "\n"
			before := snapshot(t, home)
			g := guard.Build(guard.Inputs{Home: home, Lent: lent}, guard.OS())
			r := runSrc(t, Config{Budget: budget.MustParse(home, fill(tt.grant)), Cwd: home, Guard: g}, src)
			if tt.wantCode == "" {
				if r.err != nil {
					t.Fatalf("run under %s: %v", fill(tt.grant), r.err)
				}
				return
			}
			testkit.WantError(t, r.err, tt.wantCode, callPos(r.prog, src, 2), fill(tt.wantMsg))
			sameSnapshot(t, before, snapshot(t, home))
			for _, u := range r.in.Usage() {
				if u.Uses != 0 {
					t.Errorf("a refused effect charged %s", u.Grant)
				}
			}
		})
	}
}

// TestKernelSurfaces: /proc and /sys are no files to a program, nor a
// device but the few of /dev, whatever the grant; /dev/null, its control,
// is read.
func TestKernelSurfaces(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("/proc, /sys and /dev are Linux's")
	}
	dev := ""
	for _, d := range []string{"/dev/loop0", "/dev/sda", "/dev/vda", "/dev/mem", "/dev/kmsg"} {
		if _, err := os.Lstat(d); err == nil {
			dev = d
			break
		}
	}
	tests := []struct {
		name, grant, stmt string
		wantRefused       bool
	}{
		{name: "a kernel parameter", grant: "fs:read", stmt: `v = fs.read("/proc/sys/kernel/ostype")`, wantRefused: true},
		{name: "writing one", grant: "fs:write", stmt: `fs.write("/proc/sys/kernel/domainname", "x")`, wantRefused: true},
		{name: "the kernel's own figures", grant: "fs:read", stmt: `v = fs.read("/proc/meminfo")`, wantRefused: true},
		{name: "the kernel's devices", grant: "fs:read", stmt: `v = fs.list("/sys/class")`, wantRefused: true},
		{name: "the null device", grant: "fs:read", stmt: `v = fs.read("/dev/null")`},
		{name: "a device by another name", grant: "fs:read", stmt: `v = fs.read("` + dev + `")`, wantRefused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.stmt, `""`) {
				t.Skip("this machine has none of the devices tried")
			}
			r := runSrc(t, Config{Budget: budget.MustParse("/", tt.grant), Cwd: "/", Guard: guardOf("")}, "x = 1\n"+tt.stmt+"\n")
			if !tt.wantRefused {
				if r.err != nil {
					t.Fatalf("%s: %v", tt.stmt, r.err)
				}
				return
			}
			testkit.WantError(t, r.err, codes.E318, callPos(r.prog, "x = 1\n"+tt.stmt+"\n", 2), "no grant reaches")
		})
	}
}
