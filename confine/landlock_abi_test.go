package confine

import (
	"strings"
	"testing"
)

// TestLandlockABITable pins the table of ABIs: one line per ABI from 1 to
// LandlockMaxABI, each offering everything the one below offers, and the
// first ABI of each feature where the kernel's documentation puts it.
func TestLandlockABITable(t *testing.T) {
	if len(landlockABIs) != LandlockMaxABI {
		t.Fatalf("landlockABIs has %d lines, LandlockMaxABI is %d", len(landlockABIs), LandlockMaxABI)
	}
	var prev LandlockABIInfo
	for i, info := range landlockABIs {
		if info.ABI != i+1 {
			t.Errorf("line %d is ABI %d", i, info.ABI)
		}
		if info.Kernel == "" || info.Adds == "" || strings.ContainsAny(info.Adds+info.Lacking, "\n|") {
			t.Errorf("ABI %d: kernel %q, adds %q, lacking %q: a kernel and one line of text each", info.ABI, info.Kernel, info.Adds, info.Lacking)
		}
		if info.FS&prev.FS != prev.FS || info.Net&prev.Net != prev.Net || info.Scopes&prev.Scopes != prev.Scopes ||
			info.LogFlags&prev.LogFlags != prev.LogFlags {
			t.Errorf("ABI %d offers less than ABI %d", info.ABI, prev.ABI)
		}
		if info.FS == prev.FS && info.Net == prev.Net && info.Scopes == prev.Scopes && info.LogFlags == prev.LogFlags {
			t.Errorf("ABI %d adds nothing", info.ABI)
		}
		prev = info
	}
	for _, tc := range []struct {
		name string
		got  int
		want int
	}{
		{name: "refer", got: landlockABIRefer, want: 2},
		{name: "truncate", got: landlockABITruncate, want: 3},
		{name: "TCP bind and connect", got: LandlockABITCP, want: 4},
		{name: "TCP bind and connect, from the table", got: landlockABIOffersTCP, want: LandlockABITCP},
		{name: "ioctl on devices", got: landlockSince(func(i LandlockABIInfo) bool { return i.FS&landlockFSIoctlDev != 0 }), want: 5},
		{name: "scopes", got: landlockABIScopes, want: 6},
		{name: "logging flags", got: landlockSince(func(i LandlockABIInfo) bool { return i.LogFlags != 0 }), want: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("first ABI of %s = %d, want %d", tc.name, tc.got, tc.want)
			}
		})
	}
	if got := LandlockABIOf(1).FS; got != 1<<13-1 {
		t.Errorf("ABI 1 offers FS rights %#x, want the thirteen rights %#x", got, 1<<13-1)
	}
}

func TestLandlockABIOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		abi     int
		wantABI int
	}{
		{name: "no Landlock", abi: 0, wantABI: 0},
		{name: "a negative ABI", abi: -1, wantABI: 0},
		{name: "the first", abi: 1, wantABI: 1},
		{name: "the highest planned for", abi: LandlockMaxABI, wantABI: LandlockMaxABI},
		{name: "a newer kernel is planned for at the highest", abi: LandlockMaxABI + 3, wantABI: LandlockMaxABI},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LandlockABIOf(tc.abi); got.ABI != tc.wantABI {
				t.Errorf("LandlockABIOf(%d).ABI = %d, want %d", tc.abi, got.ABI, tc.wantABI)
			}
		})
	}
	if LandlockABIOf(0).FS != 0 {
		t.Error("no Landlock offers file rights")
	}
}

// TestLandlockPlanReadsTheTable: at every ABI, the plan handles what the
// table says that ABI offers, and nothing it does not.
func TestLandlockPlanReadsTheTable(t *testing.T) {
	p := policyOf("io,net:example.org:443", false)
	for abi := 1; abi <= LandlockMaxABI+1; abi++ {
		info := LandlockABIOf(abi)
		plan, err := LandlockPlan(p, Needs{TempDir: "/tmp/run"}, abi)
		if err != nil {
			t.Fatal(err)
		}
		if plan.HandledFS&^info.FS != 0 {
			t.Errorf("ABI %d: the plan handles %v, which the ABI does not offer", abi, LandlockAccessNames(plan.HandledFS&^info.FS))
		}
		if want := info.FS &^ (LandlockFSReadFile | LandlockFSReadDir); plan.HandledFS&want != want {
			t.Errorf("ABI %d: the plan leaves %v unhandled under a budget that grants no write", abi, LandlockAccessNames(want&^plan.HandledFS))
		}
		if (plan.HandledNet != 0) != (info.Net != 0) || plan.HandledNet&^info.Net != 0 {
			t.Errorf("ABI %d: the plan handles net %v, the ABI offers %v", abi, LandlockNetNames(plan.HandledNet), LandlockNetNames(info.Net))
		}
		if plan.Scoped != info.Scopes {
			t.Errorf("ABI %d: the plan scopes %v, the ABI offers %v", abi, landlockScopeNamesOf(plan.Scoped), landlockScopeNamesOf(info.Scopes))
		}
	}
}

// TestAdviceReadsTheTable: the doctor's advice for a Linux kernel names,
// from the table, each higher ABI whose addition Sabline would hold, with
// the kernel that offers it, and nothing at the highest ABI.
func TestAdviceReadsTheTable(t *testing.T) {
	tests := []struct {
		name string
		m    Machine
		want []string
	}{
		{name: "the highest ABI, seccomp present", m: Machine{OS: "linux", LandlockABI: LandlockMaxABI, Seccomp: true}},
		{name: "a newer ABI still", m: Machine{OS: "linux", LandlockABI: LandlockMaxABI + 1, Seccomp: true}},
		{name: "ABI 3 lacks TCP", m: Machine{OS: "linux", LandlockABI: 3, Seccomp: true},
			want: []string{"Landlock ABI 3 cannot hold TCP binds or ports: " + LandlockABIOf(LandlockABITCP).Lacking[len("TCP binds or ports: "):] +
				". Linux 6.7 offers ABI 4"}},
		{name: "ABI 2 lacks truncation and TCP", m: Machine{OS: "linux", LandlockABI: 2, Seccomp: true},
			want: []string{"Landlock ABI 2 cannot hold truncation: a write grant's neighbours may be truncated. Linux 6.2 offers ABI 3",
				"Landlock ABI 2 cannot hold " + LandlockABIOf(LandlockABITCP).Lacking + ". Linux 6.7 offers ABI 4"}},
		{name: "no Landlock", m: Machine{OS: "linux", LandlockNote: "ENOSYS", Seccomp: true},
			want: []string{"Landlock is missing (ENOSYS): reads and writes are held by the language alone. Use a kernel from 5.13 " +
				"with CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot parameter"}},
		{name: "macOS", m: Machine{OS: "darwin"}, want: []string{systemAdvice[Darwin]}},
		{name: "windows", m: Machine{OS: "windows"}, want: []string{systemAdvice[Windows]}},
		{name: "a system with no confinement", m: Machine{OS: "plan9"},
			want: []string{"this build of Sabline confines runs on Linux, macOS and Windows only: a run here is level none; " +
				"run untrusted programs on Linux, or in a virtual machine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.m.Advice()
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Advice() =\n\t%q\nwant\n\t%q", got, tt.want)
			}
		})
	}
	for _, sys := range []System{Darwin, Windows} {
		if a := systemAdvice[sys]; !strings.Contains(a, "only on the "+sys.Title()+" leg of CI, which has not run yet") {
			t.Errorf("the advice for %s does not say its calls have not run yet: %q", sys, a)
		}
	}
}

func TestLandlockOffers(t *testing.T) {
	if got := LandlockOffers(0); got != nil {
		t.Errorf("LandlockOffers(0) = %q, want nothing", got)
	}
	got := LandlockOffers(4)
	if len(got) != 4 || !strings.HasPrefix(got[3], "ABI 4: TCP bind and connect") {
		t.Errorf("LandlockOffers(4) = %q", got)
	}
	if n := len(LandlockOffers(LandlockMaxABI + 2)); n != LandlockMaxABI {
		t.Errorf("LandlockOffers past the highest ABI gives %d lines, want %d", n, LandlockMaxABI)
	}
}
