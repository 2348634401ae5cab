package doorcmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"

	"github.com/sabline/sabline/budget"
)

const (
	readRights  = linux.LandlockFSReadFile | linux.LandlockFSReadDir
	writeRights = linux.LandlockFSWriteFile | linux.LandlockFSMakeReg
)

// access is what d lets reach path, the rights of every rule on it or a
// directory above it.
func (d serverDomain) access(path string) uint64 {
	var a uint64
	for _, r := range d.Rules {
		if path == r.Path || strings.HasPrefix(path, strings.TrimSuffix(r.Path, "/")+"/") {
			a |= r.Access
		}
	}
	return a
}

// TestServerRules derives the server's own domain from the operator's
// options: what a worker's policy grants, and the server's own needs,
// nothing more; a direction the budget leaves open is not handled; a
// budget that leaves the workers unconfined holds nothing.
func TestServerRules(t *testing.T) {
	env := serverEnv{Exe: "/opt/sabline/bin/sabline", TempDir: "/var/tmp"}
	tests := []struct {
		name      string
		allow     string
		confine   core.Mode
		tenants   string // the tenants file
		env       serverEnv
		memoryMB  int
		wantSkip  bool
		wantRead  []string // each readable
		wantWrite []string // each writable
		wantNot   []string // each neither readable nor writable
		wantRO    []string // each readable, not writable
		wantExec  []string // each executable
		wantFS    uint64   // rights that must be handled
		wantNoFS  uint64   // rights that must not be handled
		wantNet   uint64
		wantPorts []int
	}{
		{
			name: "io", allow: "io",
			wantRead:  []string{"/srv/root/a.vel", "/srv/rc", "/var/tmp/sabline-1", "/proc/self/fd", "/usr/share/zoneinfo/UTC"},
			wantWrite: []string{"/srv/rc/x.json", "/var/tmp/sabline-1/f", "/dev/null"},
			wantRO:    []string{"/srv/root", "/proc", "/opt/sabline/bin/sabline"},
			wantNot:   []string{"/etc/passwd", "/home/op/.ssh/id_ed25519", "/srv", "/etc/resolv.conf", "/etc/ssl/certs"},
			wantExec:  []string{"/opt/sabline/bin/sabline"},
			wantFS:    linux.LandlockFSExecute | readRights | writeRights,
			wantNet:   linux.LandlockNetBindTCP | linux.LandlockNetConnectTCP,
		},
		{
			name: "a read and a write grant", allow: "io,fs:read:/data,fs:write:/out",
			wantRead:  []string{"/data/x"},
			wantWrite: []string{"/out/y"},
			wantRO:    []string{"/data"},
			wantNot:   []string{"/etc/passwd"},
			wantFS:    readRights | writeRights,
			wantNet:   linux.LandlockNetBindTCP | linux.LandlockNetConnectTCP,
		},
		{
			name: "a host and port", allow: "io,net:example.com:443",
			wantRead:  []string{"/etc/resolv.conf", "/etc/ssl/certs/ca.pem"},
			wantNot:   []string{"/etc/passwd"},
			wantFS:    readRights,
			wantNet:   linux.LandlockNetBindTCP | linux.LandlockNetConnectTCP,
			wantPorts: []int{53, 443},
		},
		{
			name: "any host", allow: "io,net",
			wantFS:  readRights,
			wantNet: linux.LandlockNetBindTCP,
		},
		{
			name: "every read", allow: "io,fs:read",
			wantRead:  []string{"/etc/passwd", "/home/op/notes.txt"},
			wantWrite: []string{"/srv/rc/x.json"},
			wantRO:    []string{"/srv/root", "/etc"},
			wantFS:    writeRights | readRights | linux.LandlockFSExecute,
			wantNet:   linux.LandlockNetBindTCP | linux.LandlockNetConnectTCP,
		},
		{
			name: "a dynamically linked executable", allow: "io",
			env:      serverEnv{Exe: env.Exe, TempDir: env.TempDir, Loader: "/lib64/ld-linux-x86-64.so.2"},
			wantRead: []string{"/etc/ld.so.cache", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
			wantExec: []string{"/lib64/ld-linux-x86-64.so.2", env.Exe},
			wantRO:   []string{"/usr/lib"},
			wantFS:   linux.LandlockFSExecute,
		},
		{
			name: "workers' memory cgroups", allow: "io", memoryMB: 256,
			env:       serverEnv{Exe: env.Exe, TempDir: env.TempDir, Cgroups: "/sys/fs/cgroup/sabline.service"},
			wantWrite: []string{"/sys/fs/cgroup/sabline.service/sabline-worker-1/memory.max"},
			wantNot:   []string{"/sys/fs/cgroup/cgroup.procs", "/sys/kernel"},
		},
		{
			name: "the same without a memory limit", allow: "io",
			env:     serverEnv{Exe: env.Exe, TempDir: env.TempDir, Cgroups: "/sys/fs/cgroup/sabline.service"},
			wantNot: []string{"/sys/fs/cgroup/sabline.service/sabline-worker-1/memory.max"},
		},
		{
			name: "a tenants file", allow: "io", tenants: "/etc/sabline/tenants/tenants.json",
			wantRO:  []string{"/etc/sabline/tenants/tenants.json", "/etc/sabline/tenants/..2026_12_01/tenants.json"},
			wantNot: []string{"/etc/sabline/other", "/etc/passwd"},
			wantFS:  readRights,
		},
		{name: "a module that leaves the workers unconfined", allow: "io,ffi:ctypes", wantSkip: true},
		{
			name: "the same module, strict", allow: "io,ffi:ctypes", confine: core.ModeStrict,
			wantNot: []string{"/etc/passwd"},
			wantFS:  readRights | writeRights,
			wantNet: linux.LandlockNetBindTCP | linux.LandlockNetConnectTCP,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := budget.Parse([]string{tt.allow}, "/srv/root")
			if err != nil {
				t.Fatal(err)
			}
			conf := tt.confine
			if conf == "" {
				conf = core.ModeDefault
			}
			o := doorOptions{ImportRoot: "/srv/root", Ceiling: b, Confine: conf, Receipts: "/srv/rc", MaxMemoryMB: tt.memoryMB, Tenants: tt.tenants}
			e := tt.env
			if e.Exe == "" {
				e = env
			}
			d, err := serverRules(o, e, linux.LandlockMaxABI)
			if err != nil {
				t.Fatal(err)
			}
			if (d.Skip != "") != tt.wantSkip {
				t.Fatalf("Skip %q, want skip %v", d.Skip, tt.wantSkip)
			}
			if tt.wantSkip {
				if len(d.Rules) != 0 || d.HandledFS != 0 {
					t.Errorf("a skipped domain has rules %v, handled %#x", d.Rules, d.HandledFS)
				}
				return
			}
			if d.HandledFS&tt.wantFS != tt.wantFS || d.HandledFS&tt.wantNoFS != 0 {
				t.Errorf("handled %v, want %v and not %v", linux.LandlockAccessNames(d.HandledFS),
					linux.LandlockAccessNames(tt.wantFS), linux.LandlockAccessNames(tt.wantNoFS))
			}
			if tt.wantNet != 0 && d.HandledNet != tt.wantNet {
				t.Errorf("handled net %v, want %v", linux.LandlockNetNames(d.HandledNet), linux.LandlockNetNames(tt.wantNet))
			}
			if !slices.Equal(d.ConnectTCP, tt.wantPorts) {
				t.Errorf("connect to %v, want %v", d.ConnectTCP, tt.wantPorts)
			}
			if d.Scoped&linux.LandlockScopeSignal != 0 {
				t.Error("signals are scoped: the server could not stop the workers it started before it held itself")
			}
			for _, r := range d.Rules {
				if r.Access&^d.HandledFS != 0 {
					t.Errorf("rule %s %s carries %v, not handled", r.Why, r.Path, linux.LandlockAccessNames(r.Access&^d.HandledFS))
				}
			}
			may := func(p string, right uint64) bool { return d.HandledFS&right == 0 || d.access(p)&right != 0 }
			for _, p := range tt.wantRead {
				if !may(p, linux.LandlockFSReadFile) {
					t.Errorf("%s is not readable", p)
				}
			}
			for _, p := range tt.wantWrite {
				if !may(p, linux.LandlockFSWriteFile) {
					t.Errorf("%s is not writable: %v", p, linux.LandlockAccessNames(d.access(p)))
				}
			}
			for _, p := range tt.wantRO {
				if !may(p, linux.LandlockFSReadFile) || may(p, linux.LandlockFSWriteFile) || may(p, linux.LandlockFSMakeReg) {
					t.Errorf("%s: %v, want read only", p, linux.LandlockAccessNames(d.access(p)))
				}
			}
			for _, p := range tt.wantNot {
				if may(p, linux.LandlockFSReadFile) || may(p, linux.LandlockFSWriteFile) {
					t.Errorf("%s: %v, want nothing", p, linux.LandlockAccessNames(d.access(p)))
				}
			}
			for _, p := range tt.wantExec {
				if d.access(p)&linux.LandlockFSExecute == 0 {
					t.Errorf("%s is not executable", p)
				}
			}
			for _, r := range d.Rules {
				if r.Access&linux.LandlockFSExecute != 0 && r.Path != e.Exe && r.Path != e.Loader {
					t.Errorf("%s (%s) is executable: only the server's own executable and its loader may be", r.Path, r.Why)
				}
			}
		})
	}
}

// TestServerRulesRefuseRelative: a path of the server's own that is not
// absolute is an error, never a rule on the working directory.
func TestServerRulesRefuseRelative(t *testing.T) {
	o := doorOptions{ImportRoot: "/srv/root", Ceiling: budget.MustParse("/", "io"), Confine: core.ModeDefault, Receipts: "rc"}
	if _, err := serverRules(o, serverEnv{Exe: "/bin/sabline", TempDir: "/tmp"}, linux.LandlockMaxABI); err == nil {
		t.Error("a relative receipts directory gave a domain")
	}
	o.Receipts = "/srv/rc"
	if _, err := serverRules(o, serverEnv{Exe: "/bin/sabline", TempDir: "/tmp"}, linux.LandlockMaxABI); err != nil {
		t.Errorf("the control, every path absolute: %v", err)
	}
}
