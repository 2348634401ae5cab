package guard

import (
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

// mountinfo is a table as a container host shows it: the table's own
// surfaces, procfs mounted again for a container, a mount point with a
// space, a FUSE mount, lxcfs, and an unknown type.
const mountinfo = `21 26 0:20 / /proc rw,relatime - proc proc rw
22 26 0:21 / /sys rw,nosuid,nodev,noexec,relatime - sysfs sysfs rw
23 26 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334172k,mode=755
26 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
50 26 0:40 / /srv/ct1/proc rw,nosuid,nodev,noexec,relatime - proc proc rw
51 26 0:41 / /srv/ct1/sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro
52 26 254:1 /data /mnt/my\040disk rw,noatime shared:7 master:2 - xfs /dev/vdb rw
53 26 0:42 / /home/ana/remote rw,nosuid,nodev,relatime - fuse.sshfs ana@host: rw
54 26 0:43 / /var/lib/lxcfs rw,nosuid,nodev,relatime - fuse.lxcfs lxcfs rw
55 26 0:44 / /run/netns/blue rw - nsfs nsfs rw
56 26 0:45 / /mnt/future rw - quantumfs none rw
57 26 0:46 / /srv/back\134slash\011tab rw - tmpfs tmpfs rw
`

func TestParseMountInfo(t *testing.T) {
	mounts, err := ParseMountInfo([]byte(mountinfo))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		point       string
		wantType    string
		wantRoot    string
		wantOptions []string
		wantKernel  bool
	}{
		{name: "procfs where the table names it", point: "/proc", wantType: "proc", wantRoot: "/", wantOptions: []string{"rw", "relatime"}, wantKernel: true},
		{name: "the root", point: "/", wantType: "ext4", wantRoot: "/", wantOptions: []string{"rw", "relatime"}},
		{name: "procfs mounted again", point: "/srv/ct1/proc", wantType: "proc", wantRoot: "/", wantOptions: []string{"rw", "nosuid", "nodev", "noexec", "relatime"}, wantKernel: true},
		{name: "a space escaped, optional fields", point: "/mnt/my disk", wantType: "xfs", wantRoot: "/data", wantOptions: []string{"rw", "noatime"}},
		{name: "a FUSE subtype", point: "/home/ana/remote", wantType: "fuse.sshfs", wantRoot: "/", wantOptions: []string{"rw", "nosuid", "nodev", "relatime"}},
		{name: "lxcfs stands in for the kernel", point: "/var/lib/lxcfs", wantType: "fuse.lxcfs", wantRoot: "/", wantOptions: []string{"rw", "nosuid", "nodev", "relatime"}, wantKernel: true},
		{name: "an unknown type is the kernel's", point: "/mnt/future", wantType: "quantumfs", wantRoot: "/", wantOptions: []string{"rw"}, wantKernel: true},
		{name: "a backslash and a tab escaped", point: "/srv/back\\slash\ttab", wantType: "tmpfs", wantRoot: "/", wantOptions: []string{"rw"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := slices.IndexFunc(mounts, func(m Mount) bool { return m.Point == tt.point })
			if i < 0 {
				t.Fatalf("no mount at %q among %d", tt.point, len(mounts))
			}
			m := mounts[i]
			if m.FSType != tt.wantType || m.Root != tt.wantRoot || !slices.Equal(m.Options, tt.wantOptions) {
				t.Errorf("type %q root %q options %q, want %q %q %q", m.FSType, m.Root, m.Options, tt.wantType, tt.wantRoot, tt.wantOptions)
			}
			if got := m.KernelSurface(); got != tt.wantKernel {
				t.Errorf("KernelSurface %v, want %v", got, tt.wantKernel)
			}
		})
	}
	if len(mounts) != 13 {
		t.Errorf("%d mounts, want 13", len(mounts))
	}
}

func TestParseMountInfoRefuses(t *testing.T) {
	good := "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
	tests := []struct {
		name      string
		data      string
		wantErr   string // "" for none
		wantCount int
	}{
		{name: "empty", data: "", wantCount: 0},
		{name: "blank lines", data: "\n\n" + good + "\n", wantCount: 1},
		{name: "no separator", data: good + "27 26 0:1 / /x rw ext4 /dev/x rw\n", wantErr: "line 2: not ID", wantCount: 1},
		{name: "separator too early", data: "1 2 0:1 / - ext4 x rw\n", wantErr: "line 1: not ID"},
		{name: "nothing after the separator", data: "1 2 0:1 / /x rw - ext4\n", wantErr: "line 1: not ID"},
		{name: "an id that is no number", data: "x 2 0:1 / /x rw - ext4 x rw\n", wantErr: "mount id"},
		{name: "a relative mount point", data: "1 2 0:1 / x rw - ext4 x rw\n", wantErr: "not absolute"},
		{name: "an escape cut short", data: `1 2 0:1 / /x\04 rw - ext4 x rw` + "\n", wantErr: "cut short"},
		{name: "an escape of no octal digits", data: `1 2 0:1 / /x\999 rw - ext4 x rw` + "\n", wantErr: "three octal digits"},
		{name: "an escape past a byte", data: `1 2 0:1 / /x\777 rw - ext4 x rw` + "\n", wantErr: "three octal digits"},
		{name: "a line past the bound", data: "1 2 0:1 / /" + strings.Repeat("a", maxMountLine) + " rw - ext4 x rw\n" + good, wantErr: "over the bound", wantCount: 1},
		{name: "too many lines", data: strings.Repeat(good, maxMounts+1), wantErr: "over the bound of 65536 lines"},
		{name: "too many bytes", data: strings.Repeat("\n", maxMountInfoBytes+1), wantErr: "over the bound of 16777216"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mounts, err := ParseMountInfo([]byte(tt.data))
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
			if len(mounts) != tt.wantCount {
				t.Errorf("%d mounts, want %d", len(mounts), tt.wantCount)
			}
		})
	}
}

func TestDataFS(t *testing.T) {
	tests := []struct {
		name     string
		fstype   string
		wantData bool
	}{
		{"ext4", "ext4", true}, {"xfs", "xfs", true}, {"btrfs", "btrfs", true}, {"tmpfs", "tmpfs", true},
		{"overlay", "overlay", true}, {"vfat", "vfat", true}, {"exfat", "exfat", true}, {"ntfs3", "ntfs3", true},
		{"f2fs", "f2fs", true}, {"zfs", "zfs", true}, {"nfs", "nfs", true}, {"nfs4", "nfs4", true},
		{"cifs", "cifs", true}, {"smb3", "smb3", true}, {"9p", "9p", true}, {"virtiofs", "virtiofs", true},
		{"squashfs", "squashfs", true}, {"iso9660", "iso9660", true}, {"erofs", "erofs", true},
		{"ramfs", "ramfs", true}, {"fuse", "fuse", true}, {"fuse.sshfs", "fuse.sshfs", true}, {"fuseblk", "fuseblk", true},
		{"autofs, judged by what it mounts", "autofs", true},
		{"proc", "proc", false}, {"sysfs", "sysfs", false}, {"debugfs", "debugfs", false}, {"tracefs", "tracefs", false},
		{"securityfs", "securityfs", false}, {"cgroup", "cgroup", false}, {"cgroup2", "cgroup2", false},
		{"bpf", "bpf", false}, {"configfs", "configfs", false}, {"devtmpfs", "devtmpfs", false},
		{"devpts", "devpts", false}, {"mqueue", "mqueue", false}, {"pstore", "pstore", false},
		{"efivarfs", "efivarfs", false}, {"binfmt_misc", "binfmt_misc", false}, {"nsfs", "nsfs", false},
		{"hugetlbfs", "hugetlbfs", false}, {"fusectl", "fusectl", false}, {"rpc_pipefs", "rpc_pipefs", false},
		{"selinuxfs", "selinuxfs", false}, {"lxcfs", "fuse.lxcfs", false}, {"a bare fuse. prefix", "fuse.", false},
		{"a type no kernel has yet", "kernelfs2030", false}, {"empty", "", false}, {"case matters", "EXT4", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DataFS(tt.fstype); got != tt.wantData {
				t.Errorf("DataFS(%q) = %v, want %v", tt.fstype, got, tt.wantData)
			}
		})
	}
}

func TestDataMagic(t *testing.T) {
	tests := []struct {
		name     string
		magic    uint64
		wantData bool
	}{
		{"ext4", 0xef53, true}, {"tmpfs", 0x01021994, true}, {"overlay", 0x794c7630, true}, {"btrfs", 0x9123683e, true},
		{"xfs", 0x58465342, true}, {"fuse", 0x65735546, true}, {"nfs", 0x6969, true},
		{"a sign-extended 32-bit magic (btrfs)", 0xffffffff9123683e, true},
		{"proc", 0x9fa0, false}, {"sysfs", 0x62656572, false}, {"debugfs", 0x64626720, false},
		{"tracefs", 0x74726163, false}, {"cgroup2", 0x63677270, false}, {"devpts", 0x1cd1, false},
		{"bpf", 0xcafe4a11, false}, {"securityfs", 0x73636673, false}, {"nsfs", 0x6e736673, false},
		{"unknown", 0x12345678, false}, {"zero", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := DataMagic(tt.magic); got != tt.wantData {
				t.Errorf("DataMagic(%#x) = %v, want %v", tt.magic, got, tt.wantData)
			}
		})
	}
}

// TestBuildGuardsKernelMounts: a kernel surface mounted outside the
// table's paths is a location no grant reaches, carved out of the grants
// above it; one within /proc, /sys or /dev adds nothing (the table holds
// those whole, /dev's devices reachable), and a data mount adds nothing.
func TestBuildGuardsKernelMounts(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the table's kernel surfaces by path are Linux's")
	}
	m := newFake(map[string]string{
		"/srv/ct1/proc/sys/kernel/hostname": "",
		"/srv/ct1/data.txt":                 "",
		"/mnt/future/x":                     "",
		"/dev/null":                         "",
	})
	mounts, err := ParseMountInfo([]byte(mountinfo +
		"60 23 0:50 / /dev/null rw - devtmpfs udev rw\n" +
		"61 26 0:51 / /procfs rw - proc proc rw\n" + "62 26 0:52 / /sysroot/sys rw - sysfs sysfs rw\n" +
		"63 26 0:53 / /devices rw - debugfs debugfs rw\n"))
	if err != nil {
		t.Fatal(err)
	}
	set := Build(Inputs{Mounts: mounts}, m)
	tests := []struct {
		name       string
		path       string
		grant      string
		wantRefuse bool
		wantHolds  string
	}{
		{name: "procfs mounted again", path: "/srv/ct1/proc/sys/kernel/hostname", grant: "/srv/ct1", wantRefuse: true, wantHolds: "a proc mount"},
		{name: "beside it", path: "/srv/ct1/data.txt", grant: "/srv/ct1"},
		{name: "sysfs mounted again", path: "/srv/ct1/sys/kernel", grant: "/", wantRefuse: true, wantHolds: "a sysfs mount"},
		{name: "an unknown type", path: "/mnt/future/x", grant: "/mnt", wantRefuse: true, wantHolds: "a quantumfs mount"},
		{name: "a namespace file", path: "/run/netns/blue", grant: "/run", wantRefuse: true, wantHolds: "a nsfs mount"},
		{name: "lxcfs", path: "/var/lib/lxcfs/proc/meminfo", grant: "/var", wantRefuse: true, wantHolds: "a fuse.lxcfs mount"},
		{name: "procfs at a name that begins with /proc's", path: "/procfs/1/environ", grant: "/",
			wantRefuse: true, wantHolds: "a proc mount"},
		{name: "sysfs at a name that begins with /sys's", path: "/sysroot/sys/kernel", grant: "/sysroot",
			wantRefuse: true, wantHolds: "a sysfs mount"},
		{name: "debugfs at a name that begins with /dev's", path: "/devices/tracing", grant: "/",
			wantRefuse: true, wantHolds: "a debugfs mount"},
		{name: "a data mount", path: "/mnt/my disk/a", grant: "/mnt/my disk"},
		{name: "a FUSE data mount", path: "/home/ana/remote/a", grant: "/home/ana/remote"},
		{name: "a bind mount on /dev/null keeps it reachable", path: "/dev/null", grant: "/dev/null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, refused := set.Refuses(tt.path, tt.grant)
			if refused != tt.wantRefuse || !strings.HasPrefix(l.Holds, tt.wantHolds) {
				t.Errorf("Refuses(%q, %q) = %v, %+v, want %v holding %q", tt.path, tt.grant, refused, l, tt.wantRefuse, tt.wantHolds)
			}
		})
	}
	// The kernel holds the one that exists out of a grant above it.
	carved := false
	for _, c := range set.CarveOuts() {
		if c.Path == "/srv/ct1/proc" && !c.Named {
			carved = true
		}
		if Within(c.Path, "/proc") && c.Path != "/proc" || Within(c.Path, "/sys") && c.Path != "/sys" || c.Path == "/dev/null" {
			t.Errorf("carve-out %q within the table's own surfaces", c.Path)
		}
	}
	if !carved {
		t.Errorf("no carve-out for /srv/ct1/proc among %v", set.CarveOuts())
	}
	// Admission refuses a grant inside one, and admits the grant above it.
	if err := set.Admit(budget.MustParse("/", "fs:write:/srv/ct1/proc"), nil); err == nil || !strings.Contains(err.Error(), "a kernel surface") {
		t.Errorf("Admit(fs:write:/srv/ct1/proc) = %v, want a kernel surface refused", err)
	}
	if err := set.Admit(budget.MustParse("/", "fs:write:/srv/ct1"), nil); err != nil {
		t.Errorf("Admit(fs:write:/srv/ct1) = %v, want it admitted", err)
	}
	// Without the mount table, the same grant reaches into it: the
	// positive control.
	if _, refused := Build(Inputs{}, m).Refuses("/srv/ct1/proc/sys/kernel/hostname", "/srv/ct1"); refused {
		t.Errorf("refused without a mount table: the test shows nothing")
	}
}

// FuzzMountInfo reads any bytes as a mount table: it never panics, every
// mount it returns has an absolute, clean mount point, and a table with
// no error reads back the same from its own lines.
func FuzzMountInfo(f *testing.F) {
	f.Add([]byte(mountinfo))
	f.Add([]byte(""))
	f.Add([]byte("1 2 0:1 / /x\\040y rw - ext4 x rw\n"))
	f.Add([]byte("1 2 0:1 / /x\\04"))
	f.Add([]byte("1 2 0:1 / /x rw a b c - fuse.x y z\n1 2 0:1 / /../.. rw - proc p rw"))
	f.Add([]byte("- - - - - - - - -\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		mounts, _ := ParseMountInfo(data)
		if len(mounts) > maxMounts {
			t.Fatalf("%d mounts, over the bound", len(mounts))
		}
		for _, m := range mounts {
			if !strings.HasPrefix(m.Point, "/") || filepath.Clean(m.Point) != m.Point {
				t.Fatalf("mount point %q is not absolute and clean", m.Point)
			}
			if _, ok := m.kernelLocation(); ok && !m.KernelSurface() {
				t.Fatalf("a data mount %q guarded", m.FSType)
			}
		}
	})
}
