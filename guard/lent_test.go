package guard

import (
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

// TestLentReachesOnlyItsLocation shows that a credential the operator
// lends (Inputs.Lent, --lend-credential) lends that location, as written
// and where it leads, and no credential location beneath the lent path:
// lending ~/.config does not lend ~/.config/gh, lending the home or "/"
// lends none of the credentials in them, and lending ~/.ssh lends ~/.ssh
// only. Each case checks which locations the set marks Lent, whether
// Admit lets a budget name the location, and whether Refuses keeps a file
// in it from a grant that names it.
func TestLentReachesOnlyItsLocation(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one: its paths are Unix paths")
	}
	tests := []struct {
		name string
		lent []string
		// grant is the path a budget grants, file a file within it.
		grant, file string
		// wantLent are the paths of the locations marked Lent, sorted.
		wantLent []string
		// wantAdmitNames is the location Admit's refusal names, and
		// wantRefusedBy the one Refuses names (the file is canonical);
		// both "" when the grant reaches the file.
		wantAdmitNames, wantRefusedBy string
	}{
		{name: "control: ~/.ssh lent, a grant of it", lent: []string{"/root/.ssh"},
			grant: "/root/.ssh", file: "/root/dotfiles/ssh/id_rsa",
			wantLent: []string{"/root/.ssh", "/root/dotfiles/ssh"}},
		{name: "control: ~/.config/gh lent, a grant of it", lent: []string{"/root/.config/gh"},
			grant: "/root/.config/gh", file: "/root/.config/gh/hosts.yml",
			wantLent: []string{"/root/.config/gh"}},
		{name: "~/.config lent, a grant of ~/.config/gh", lent: []string{"/root/.config"},
			grant: "/root/.config/gh", file: "/root/.config/gh/hosts.yml",
			wantAdmitNames: "/root/.config/gh", wantRefusedBy: "/root/.config/gh"},
		{name: "the home lent, a grant of ~/.ssh", lent: []string{"/root"},
			grant: "/root/.ssh", file: "/root/dotfiles/ssh/id_rsa",
			wantAdmitNames: "/root/.ssh", wantRefusedBy: "/root/dotfiles/ssh"},
		{name: "/ lent, a grant of the shadow file", lent: []string{"/"},
			grant: "/etc/shadow", file: "/etc/shadow",
			wantAdmitNames: "/etc/shadow", wantRefusedBy: "/etc/shadow"},
		{name: "~/.ssh lent, a grant of ~/.config/gh", lent: []string{"/root/.ssh"},
			grant: "/root/.config/gh", file: "/root/.config/gh/hosts.yml",
			wantLent:       []string{"/root/.ssh", "/root/dotfiles/ssh"},
			wantAdmitNames: "/root/.config/gh", wantRefusedBy: "/root/.config/gh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := build(tt.lent...)
			var gotLent []string
			for _, l := range set.Locations() {
				if l.Lent {
					gotLent = append(gotLent, l.Path)
				}
			}
			sort.Strings(gotLent)
			if !slices.Equal(gotLent, tt.wantLent) {
				shown := gotLent
				if len(shown) > 4 {
					shown = shown[:4]
				}
				t.Errorf("lending %q marks %d locations Lent (%q...), want %q", tt.lent, len(gotLent), shown, tt.wantLent)
			}
			allow := "fs:read:" + tt.grant
			err := set.Admit(budget.MustParse("/", allow), machine.Resolve)
			switch {
			case (err != nil) != (tt.wantAdmitNames != ""):
				t.Errorf("lending %q, Admit(%s) = %v, want refused %v", tt.lent, allow, err, tt.wantAdmitNames != "")
			case err != nil && !strings.Contains(err.Error(), " names "+tt.wantAdmitNames+" ("):
				t.Errorf("the refusal %q does not name %s", err, tt.wantAdmitNames)
			}
			grant := machine.Resolve(tt.grant)
			l, refused := set.Refuses(tt.file, grant)
			switch {
			case refused != (tt.wantRefusedBy != ""):
				t.Errorf("lending %q, Refuses(%s, %s) = %v (%+v), want refused %v", tt.lent, tt.file, grant, refused, l, tt.wantRefusedBy != "")
			case refused && l.Path != tt.wantRefusedBy:
				t.Errorf("refused by %s, want %s", l.Path, tt.wantRefusedBy)
			}
		})
	}
}
