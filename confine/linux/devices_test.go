package linux

import (
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// table is a mount table as the tests give it: "ID PARENT POINT TYPE
// OPTIONS" a line.
func table(t *testing.T, lines ...string) []guard.Mount {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		f := strings.Fields(l)
		b.WriteString(f[0] + " " + f[1] + " 0:1 / " + f[2] + " " + f[4] + " - " + f[3] + " src rw\n")
	}
	mounts, err := guard.ParseMountInfo([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return mounts
}

func TestRemountPlan(t *testing.T) {
	if guard.FoldCase {
		t.Skip("mount points are Linux paths")
	}
	const base = msREMOUNT | msBIND | msNODEV
	tests := []struct {
		name   string
		mounts []string
		want   []remountStep
	}{
		{name: "a root and /dev of its own",
			mounts: []string{"1 0 / ext4 rw,relatime", "2 1 /dev devtmpfs rw,nosuid", "3 2 /dev/shm tmpfs rw,nosuid,nodev", "4 2 /dev/pts devpts rw"},
			want:   []remountStep{{"/", base | msRELATIME}}},
		{name: "the flags a mount has are kept",
			mounts: []string{"1 0 / ext4 rw,relatime", "2 1 /dev devtmpfs rw", "5 1 /ro ext4 ro,nosuid,noexec,noatime,nodiratime", "6 1 /sym tmpfs rw,nosymfollow,relatime"},
			want:   []remountStep{{"/", base | msRELATIME}, {"/ro", base | msRDONLY | msNOSUID | msNOEXEC | msNOATIME | msNODIRATIME}, {"/sym", base | msNOSYMFOLLOW | msRELATIME}}},
		{name: "a mount whose name begins with dev is no /dev",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw",
				"3 1 /devel ext4 rw,relatime", "4 1 /dev2 xfs rw,relatime"},
			want: []remountStep{{"/devel", base | msRELATIME}, {"/dev2", base | msRELATIME}}},
		{name: "no atime flag named is strictatime",
			mounts: []string{"1 0 / ext4 rw", "2 1 /dev devtmpfs rw"},
			want:   []remountStep{{"/", base | msSTRICTATIME}}},
		{name: "already nodev needs none",
			mounts: []string{"1 0 / ext4 rw,nodev,relatime", "2 1 /dev devtmpfs rw", "7 1 /proc proc rw,nosuid,nodev,noexec"},
			want:   nil},
		{name: "kernel surfaces outside /dev too",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw", "7 1 /srv/ct/proc proc rw,relatime"},
			want:   []remountStep{{"/srv/ct/proc", base | msRELATIME}}},
		{name: "the mount that holds /dev, where /dev is no mount, keeps its devices",
			mounts: []string{"1 0 / ext4 rw,relatime", "8 1 /home xfs rw,relatime"},
			want:   []remountStep{{"/home", base | msRELATIME}}},
		{name: "a mount mounted over, and what lies beneath it, is not reached",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw", "10 1 /mnt tmpfs rw", "11 10 /mnt/a ext4 rw", "12 10 /mnt tmpfs rw,relatime"},
			want:   []remountStep{{"/mnt", base | msRELATIME}}},
		{name: "/dev listed before the root: the root is remounted all the same",
			mounts: []string{"2 1 /dev devtmpfs rw", "1 0 / ext4 rw,relatime"},
			want:   []remountStep{{"/", base | msRELATIME}}},
		{name: "nothing", mounts: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := remountPlan(table(t, tt.mounts...))
			if !slices.Equal(got, tt.want) {
				t.Errorf("remountPlan = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDeviceGrants(t *testing.T) {
	if guard.FoldCase {
		t.Skip("mount points are Linux paths")
	}
	tests := []struct {
		name     string
		mounts   []string
		grants   []string
		wantOpen []string
	}{
		{name: "a grant on a mount without nodev",
			mounts: []string{"1 0 / ext4 rw", "2 1 /dev devtmpfs rw"}, grants: []string{"/srv/data"}, wantOpen: []string{"/srv/data"}},
		{name: "the same, nodev",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw"}, grants: []string{"/srv/data"}},
		{name: "a mount without nodev beneath a grant",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw", "3 1 /srv/data/usb vfat rw"},
			grants: []string{"/srv", "/home"}, wantOpen: []string{"/srv"}},
		{name: "a grant of every path reaches every mount",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw", "3 1 /mnt/usb vfat rw"}, grants: []string{"/"}, wantOpen: []string{"/"}},
		{name: "the devices of /dev are Landlock's",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw"}, grants: []string{"/dev/null", "/"}},
		{name: "a kernel surface is reached by no grant",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw", "4 1 /srv/ct/dev devtmpfs rw"}, grants: []string{"/srv"}},
		{name: "a mount hidden beneath another",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw", "10 1 /mnt tmpfs rw", "11 10 /mnt/a ext4 rw", "12 10 /mnt tmpfs rw,nodev"},
			grants: []string{"/mnt"}},
		{name: "the one over it",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw", "10 1 /mnt tmpfs rw,nodev", "12 10 /mnt tmpfs rw"},
			grants: []string{"/mnt/x"}, wantOpen: []string{"/mnt/x"}},
		// /srv/x was mounted, then /srv over the directory above it, then
		// /srv/x again: the table lists both at /srv/x, and the later is
		// the one a path there reaches.
		{name: "the later of two at one point, without nodev",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw",
				"3 1 /srv/x ext4 rw,nodev", "4 1 /srv tmpfs rw,nodev", "5 4 /srv/x vfat rw"},
			grants: []string{"/srv/x/data"}, wantOpen: []string{"/srv/x/data"}},
		{name: "the later of two at one point, nodev",
			mounts: []string{"1 0 / ext4 rw,nodev", "2 1 /dev devtmpfs rw",
				"3 1 /srv/x vfat rw", "4 1 /srv tmpfs rw,nodev", "5 4 /srv/x ext4 rw,nodev"},
			grants: []string{"/srv/x/data"}},
		{name: "no grant", mounts: []string{"1 0 / ext4 rw"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := deviceGrants(tt.grants, table(t, tt.mounts...))
			if !slices.Equal(got, tt.wantOpen) {
				t.Errorf("deviceGrants = %q, want %q", got, tt.wantOpen)
			}
		})
	}
}

// TestVisibleMountsLoop: a table whose parents loop, which no kernel
// writes but a file could hold, is read to an end: the walk up each
// mount's parents is bounded by the table's length. Two mounts each the
// other's parent at different points, and a stack at one point whose
// parents loop beneath the mount on top of it.
func TestVisibleMountsLoop(t *testing.T) {
	if guard.FoldCase {
		t.Skip("mount points are Linux paths")
	}
	tests := []struct {
		name   string
		mounts []string
		want   []int // the IDs of the mounts reached
	}{
		{name: "each the other's parent",
			mounts: []string{"1 2 /a ext4 rw", "2 1 /b ext4 rw"}, want: []int{1, 2}},
		{name: "a stack at one point whose parents loop",
			mounts: []string{"1 2 /m tmpfs rw", "2 1 /m tmpfs rw", "3 1 /m tmpfs rw"},
			want:   []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mounts := table(t, tt.mounts...)
			done := make(chan []int, 1)
			go func() {
				var ids []int
				for _, m := range visibleMounts(mounts) {
					ids = append(ids, m.ID)
				}
				done <- ids
			}()
			select {
			case got := <-done:
				if !slices.Equal(got, tt.want) {
					t.Errorf("visible mounts %v, want %v", got, tt.want)
				}
			case <-time.After(time.Minute):
				t.Fatal("visibleMounts did not end in a minute")
			}
		})
	}
}

// TestAssessDeviceNodes: a grant beneath which device nodes are held by
// the language alone makes the level partial, and the reason names it;
// without, the same run is full.
func TestAssessDeviceNodes(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the grant's path is a Unix one")
	}
	p := core.OSPolicy(budget.MustParse("/", "io,fs:read:/srv/data"), core.Options{})
	held := Held{LandlockABI: LandlockMaxABI, Seccomp: true, CapabilitiesDropped: true}
	if r := Assess(p, held); r.Level != core.Full {
		t.Fatalf("without device nodes: %s (%s), want full", r.Level, r.Reason)
	}
	held.DeviceNodes, held.DeviceNodesWhy = []string{"/srv/data"}, "the worker was not started in a mount namespace of its own"
	r := Assess(p, held)
	want := "device nodes beneath /srv/data are refused by the language only: the worker was not started in a mount namespace of its own"
	if r.Level != core.Partial || r.Reason != want {
		t.Errorf("level %s, reason %q; want partial, %q", r.Level, r.Reason, want)
	}
	if got := grantedPaths(p); !slices.Equal(got, []string{"/srv/data"}) {
		t.Errorf("grantedPaths = %q", got)
	}
	if got := grantedPaths(core.OSPolicy(budget.MustParse("/", "io,fs:read"), core.Options{})); !slices.Equal(got, []string{"/"}) {
		t.Errorf("grantedPaths of every path = %q, want /", got)
	}
}
