package linux

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

// planBudgets are the budgets whose plans the golden files hold.
var planBudgets = []struct {
	name   string
	allow  string
	strict bool
}{
	{name: "no-fs", allow: "io"},
	{name: "fs-read", allow: "io,fs:read:/srv/data"},
	{name: "fs-write", allow: "io,fs:write:/srv/out"},
	{name: "fs-read-write", allow: "io,fs:read:/srv/data,fs:write:/srv/out"},
	{name: "fs", allow: "io,fs"},
	{name: "net-closed", allow: "io,fs:read:/srv/work,fs:write:/srv/work"},
	{name: "net-localhost-8080", allow: "io,net:localhost:8080"},
	{name: "net", allow: "io,net"},
	{name: "ffi-pathlib", allow: "io,ffi:pathlib"},
	{name: "ffi-socket", allow: "io,ffi:socket"},
	{name: "strict-ffi-requests", allow: "io,ffi:requests", strict: true},
}

// testNeeds are fixed needs, so that plans do not depend on the machine.
var testNeeds = core.Needs{
	Executable: "/opt/sabline/bin/sabline",
	TempDir:    "/tmp/sabline-run",
	TZData:     []string{"/usr/share/zoneinfo"},
	Resolver:   []string{"/etc/resolv.conf", "/etc/hosts"},
	TLSRoots:   []string{"/etc/ssl/certs"},
}

func planPolicy(allow string, strict bool) core.Policy {
	return core.OSPolicy(budget.MustParse("/", allow), core.Options{Mode: confinetest.ModeOf(strict)})
}

// renderLandlock prints a plan for people to read.
func renderLandlock(r LandlockRuleset) string {
	var b strings.Builder
	list := func(names []string) string {
		if len(names) == 0 {
			return "-"
		}
		return strings.Join(names, " ")
	}
	fmt.Fprintf(&b, "abi %d\n", r.ABI)
	fmt.Fprintf(&b, "handled fs: %s\n", list(LandlockAccessNames(r.HandledFS)))
	for _, rule := range r.Rules {
		fmt.Fprintf(&b, "rule %s: %s (%s)\n", rule.Path, list(LandlockAccessNames(rule.Access)), rule.Why)
	}
	fmt.Fprintf(&b, "handled net: %s\n", list(LandlockNetNames(r.HandledNet)))
	ports := make([]string, len(r.ConnectTCP))
	for i, p := range r.ConnectTCP {
		ports[i] = fmt.Sprint(p)
	}
	fmt.Fprintf(&b, "connect tcp: %s\n", list(ports))
	fmt.Fprintf(&b, "scoped: %s\n", list(landlockScopeNamesOf(r.Scoped)))
	return b.String()
}

func TestLandlockPlanGolden(t *testing.T) {
	for _, tt := range planBudgets {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := LandlockPlan(planPolicy(tt.allow, tt.strict), testNeeds, LandlockMaxABI)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "landlock", tt.name, []byte("allow "+tt.allow+"\n"+renderLandlock(plan)))
		})
	}
	t.Run("by-abi", func(t *testing.T) {
		const allow = "io,fs:read:/srv/data,fs:write:/srv/out,net:localhost:8080"
		out := "allow " + allow + "\n"
		for abi := 1; abi <= LandlockMaxABI+1; abi++ {
			plan, err := LandlockPlan(planPolicy(allow, false), testNeeds, abi)
			if err != nil {
				t.Fatal(err)
			}
			out += fmt.Sprintf("\nkernel abi %d\n%s", abi, renderLandlock(plan))
		}
		golden(t, "landlock", "by-abi", []byte(out))
	})
}

func TestLandlockPlan(t *testing.T) {
	const (
		read  = LandlockFSReadFile | LandlockFSReadDir
		write = LandlockFSWriteFile | LandlockFSMakeReg | LandlockFSRemoveFile
	)
	tests := []struct {
		name       string
		allow      string
		strict     bool
		abi        int
		wantABI    int
		wantHandle uint64 // rights HandledFS must include
		wantFree   uint64 // rights HandledFS must not include
		wantRules  map[string]uint64
		wantNet    uint64
		wantPorts  []int
		wantScoped uint64
	}{
		{
			name: "read and write grants at ABI 7", allow: "io,fs:read:/srv/data,fs:write:/srv/out", abi: 7, wantABI: 7,
			wantHandle: LandlockFSExecute | read | write | landlockFSRefer | LandlockFSTruncate | landlockFSIoctlDev,
			wantRules: map[string]uint64{
				"/srv/data": read,
				"/srv/out":  write | LandlockFSTruncate | LandlockFSMakeDir | LandlockFSRemoveDir,
			},
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name: "a kernel above ABI 7 is planned as 7", allow: "io", abi: 9, wantABI: 7,
			wantHandle: LandlockFSExecute | read | write, wantNet: LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name: "ABI 2 cannot hold truncation, TCP or scopes", allow: "io,fs:write:/srv/out", abi: 2, wantABI: 2,
			wantHandle: LandlockFSExecute | read | write | landlockFSRefer, wantFree: LandlockFSTruncate | landlockFSIoctlDev,
			wantRules: map[string]uint64{"/srv/out": write},
		},
		{
			name: "ABI 1 knows no refer", allow: "io,fs:write:/srv/out", abi: 1, wantABI: 1,
			wantHandle: LandlockFSExecute | write, wantFree: landlockFSRefer | LandlockFSTruncate,
		},
		{
			name:  "ABI 5 holds TCP but not scopes: no port, the supervisor connects",
			allow: "io,net:example.org:443", abi: 5, wantABI: 5,
			wantHandle: LandlockFSExecute | read | write | landlockFSIoctlDev,
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
		},
		{
			name: "no port of a TCP or UDP grant", allow: "io,net:example.org:443,net:udp:example.org:8125",
			abi: 7, wantABI: 7, wantNet: LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name: "UDP alone: no resolver's port", allow: "io,net:udp", abi: 7, wantABI: 7,
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name:  "a host without a port: connect handled too",
			allow: "io,net:example.org", abi: 7, wantABI: 7,
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name: "an open network handles bind and connect", allow: "io,net", abi: 7, wantABI: 7,
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name:  "a module that widens to any host: bind and connect handled",
			allow: "io,ffi:socket,net:example.org:443", abi: 7, wantABI: 7,
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name: "an open network at ABI 3 handles no TCP", allow: "io,net,fs:write:/srv/out", abi: 3, wantABI: 3,
			wantHandle: LandlockFSTruncate,
		},
		{
			name: "unrestricted reads and writes are rules on /, for the carving", allow: "io,fs", abi: 7, wantABI: 7,
			wantHandle: LandlockFSExecute | read | write | LandlockFSTruncate | landlockFSMakeChar | landlockFSMakeBlock,
			wantRules: map[string]uint64{"/": read | write | LandlockFSTruncate | LandlockFSMakeDir | LandlockFSRemoveDir |
				landlockFSMakeSock | landlockFSMakeFifo | landlockFSMakeSym},
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name: "a path widening is both directions on /", allow: "io,ffi:pathlib,fs:read:/srv/data", abi: 7, wantABI: 7,
			wantHandle: LandlockFSExecute | read | write,
			wantRules:  map[string]uint64{"/": read | write},
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
		{
			name: "strict keeps a widening module from widening", allow: "io,ffi:requests,fs:read:/srv/data", strict: true, abi: 7, wantABI: 7,
			wantHandle: LandlockFSExecute | read | write,
			wantRules:  map[string]uint64{"/srv/data": read},
			wantNet:    LandlockNetBindTCP | LandlockNetConnectTCP,
			wantScoped: LandlockScopeSignal | LandlockScopeAbstractUnixSocket,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := LandlockPlan(planPolicy(tt.allow, tt.strict), testNeeds, tt.abi)
			if err != nil {
				t.Fatal(err)
			}
			if plan.ABI != tt.wantABI {
				t.Errorf("ABI = %d, want %d", plan.ABI, tt.wantABI)
			}
			if missing := tt.wantHandle &^ plan.HandledFS; missing != 0 {
				t.Errorf("HandledFS lacks %v", LandlockAccessNames(missing))
			}
			if extra := tt.wantFree & plan.HandledFS; extra != 0 {
				t.Errorf("HandledFS has %v", LandlockAccessNames(extra))
			}
			for path, want := range tt.wantRules {
				got := uint64(0)
				for _, r := range plan.Rules {
					if r.Path == path && r.Grant {
						got |= r.Access
					}
				}
				if missing := want &^ got; missing != 0 {
					t.Errorf("rule %s lacks %v", path, LandlockAccessNames(missing))
				}
			}
			if plan.HandledNet != tt.wantNet {
				t.Errorf("HandledNet = %v, want %v", LandlockNetNames(plan.HandledNet), LandlockNetNames(tt.wantNet))
			}
			if !slices.Equal(plan.ConnectTCP, tt.wantPorts) {
				t.Errorf("ConnectTCP = %v, want %v", plan.ConnectTCP, tt.wantPorts)
			}
			if plan.Scoped != tt.wantScoped {
				t.Errorf("Scoped = %v, want %v", landlockScopeNamesOf(plan.Scoped), landlockScopeNamesOf(tt.wantScoped))
			}
		})
	}
}

// TestLandlockPlanInvariants checks, for every budget at every ABI, what
// must hold of any plan.
func TestLandlockPlanInvariants(t *testing.T) {
	// The file system rights the kernel documents for each ABI.
	knownAt := map[int]int{1: 13, 2: 14, 3: 15, 4: 15, 5: 16, 6: 16, 7: 16}
	fileNeeds := map[string]bool{testNeeds.Executable: true, "/dev/null": true, "/dev/urandom": true}
	const fileRights = LandlockFSExecute | LandlockFSWriteFile | LandlockFSReadFile | LandlockFSTruncate | landlockFSIoctlDev
	checked := 0
	for _, tt := range planBudgets {
		for abi := 1; abi <= LandlockMaxABI; abi++ {
			plan, err := LandlockPlan(planPolicy(tt.allow, tt.strict), testNeeds, abi)
			if err != nil {
				t.Fatalf("%s at ABI %d: %v", tt.name, abi, err)
			}
			where := fmt.Sprintf("%s at ABI %d", tt.name, abi)
			if plan.HandledFS&LandlockFSExecute == 0 {
				t.Errorf("%s: execute is not handled", where)
			}
			if plan.HandledFS >= 1<<knownAt[abi] {
				t.Errorf("%s: HandledFS %v has a right the ABI does not know", where, LandlockAccessNames(plan.HandledFS))
			}
			if abi < 4 && plan.HandledNet != 0 || (abi < 6) != (plan.Scoped == 0) {
				t.Errorf("%s: network %v or scopes %v beyond the ABI", where, plan.HandledNet, plan.Scoped)
			}
			// A run listens on no port, whatever its budget.
			if abi >= 4 && plan.HandledNet&LandlockNetBindTCP == 0 {
				t.Errorf("%s: TCP bind is not handled", where)
			}
			for _, r := range plan.Rules {
				switch {
				case r.Access == 0 || r.Access&^plan.HandledFS != 0:
					t.Errorf("%s: rule %s has %v outside the handled rights", where, r.Path, LandlockAccessNames(r.Access))
				case r.Access&(LandlockFSExecute|landlockFSRefer|landlockFSIoctlDev|landlockFSMakeChar|landlockFSMakeBlock) != 0:
					t.Errorf("%s: rule %s grants %v", where, r.Path, LandlockAccessNames(r.Access))
				case fileNeeds[r.Path] && r.Access&^fileRights != 0:
					t.Errorf("%s: file rule %s has directory rights %v", where, r.Path, LandlockAccessNames(r.Access))
				}
				checked++
			}
		}
	}
	t.Logf("checked %d rules of %d plans", checked, len(planBudgets)*LandlockMaxABI)
}

func TestLandlockPlanErrors(t *testing.T) {
	tests := []struct {
		name    string
		policy  core.Policy
		needs   core.Needs
		abi     int
		wantErr string
	}{
		{name: "nothing enforced", policy: planPolicy("io,ffi:os", false), needs: testNeeds, abi: 7, wantErr: "enforces nothing"},
		{name: "no ABI", policy: planPolicy("io", false), needs: testNeeds, abi: 0, wantErr: "ABI 0"},
		{name: "relative grant", policy: core.OSPolicy(budget.MustParse("", "fs:read:data"), core.Options{}), needs: testNeeds, abi: 7, wantErr: `"data" (read grant) is not an absolute path`},
		{name: "relative need", policy: planPolicy("io", false), needs: core.Needs{Executable: "sabline", TempDir: "/tmp/r"}, abi: 7, wantErr: `"sabline" (interpreter: executable) is not an absolute path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LandlockPlan(tt.policy, tt.needs, tt.abi)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestLandlockPlanNoPorts: whatever ports the grants name, in the range
// or not, the ruleset lets the worker connect to none and bind none: its
// supervisor makes each connection. Its control, the same policies below
// ABI 4, handles no TCP at all.
func TestLandlockPlanNoPorts(t *testing.T) {
	withPort := func(port int) core.Policy {
		p := planPolicy("io", false)
		p.Network = core.Network{Mode: core.NetHosts, Hosts: []core.Endpoint{{Host: "example.org", Port: port}}}
		return p
	}
	tests := []struct {
		name string
		p    core.Policy
	}{
		{name: "port 1", p: planPolicy("io,net:example.org:1", false)},
		{name: "port 65535", p: planPolicy("io,net:example.org:65535", false)},
		{name: "below the range", p: withPort(-1)},
		{name: "above it", p: withPort(65536)},
		{name: "a UDP grant's port", p: planPolicy("io,net:udp:10.0.0.2:514", false)},
		{name: "no network", p: planPolicy("io", false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := LandlockPlan(tt.p, testNeeds, LandlockMaxABI)
			if err != nil || len(plan.ConnectTCP) != 0 {
				t.Fatalf("ConnectTCP = %v, %v; want no port", plan.ConnectTCP, err)
			}
			if want := uint64(LandlockNetBindTCP | LandlockNetConnectTCP); plan.HandledNet != want {
				t.Errorf("HandledNet = %#x, want %#x", plan.HandledNet, want)
			}
			low, err := LandlockPlan(tt.p, testNeeds, LandlockABITCP-1)
			if err != nil || low.HandledNet != 0 || len(low.ConnectTCP) != 0 {
				t.Errorf("at ABI %d: HandledNet %#x, ConnectTCP %v, %v; want none", LandlockABITCP-1,
					low.HandledNet, low.ConnectTCP, err)
			}
		})
	}
}

func TestLandlockNames(t *testing.T) {
	tests := []struct {
		name  string
		names func(uint64) []string
		mask  uint64
		want  []string
	}{
		{name: "none", names: LandlockAccessNames, mask: 0, want: nil},
		{name: "read", names: LandlockAccessNames, mask: LandlockFSReadDir | LandlockFSReadFile, want: []string{"read_file", "read_dir"}},
		{name: "ends of the table", names: LandlockAccessNames, mask: LandlockFSExecute | landlockFSIoctlDev, want: []string{"execute", "ioctl_dev"}},
		{name: "an unknown bit", names: LandlockAccessNames, mask: 1 << 16, want: []string{"bit16"}},
		{name: "net", names: LandlockNetNames, mask: LandlockNetConnectTCP | LandlockNetBindTCP, want: []string{"bind_tcp", "connect_tcp"}},
		{name: "scopes", names: landlockScopeNamesOf, mask: LandlockScopeSignal, want: []string{"signal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.names(tt.mask); !slices.Equal(got, tt.want) {
				t.Errorf("names(%#x) = %q, want %q", tt.mask, got, tt.want)
			}
		})
	}
}
