package linux

import (
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

// TestLandlockABITable pins the table of ABIs: one line per ABI from 1 to
// LandlockMaxABI, each offering everything the one below offers, and the
// first ABI of each feature where the kernel's documentation puts it.
func TestLandlockABITable(t *testing.T) {
	if len(LandlockABIs()) != LandlockMaxABI {
		t.Fatalf("landlockABIs has %d lines, LandlockMaxABI is %d", len(LandlockABIs()), LandlockMaxABI)
	}
	var prev LandlockABIInfo
	for i, info := range LandlockABIs() {
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
		{name: "refer", got: LandlockABIRefer(), want: 2},
		{name: "truncate", got: LandlockABITruncate(), want: 3},
		{name: "TCP bind and connect", got: LandlockABITCP, want: 4},
		{name: "TCP bind and connect, from the table", got: landlockABIOffersTCP, want: LandlockABITCP},
		{name: "ioctl on devices", got: landlockSince(func(i LandlockABIInfo) bool { return i.FS&landlockFSIoctlDev != 0 }), want: 5},
		{name: "scopes", got: LandlockABIScopes(), want: 6},
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
	p := confinetest.PolicyOf("io,net:example.org:443", false)
	for abi := 1; abi <= LandlockMaxABI+1; abi++ {
		info := LandlockABIOf(abi)
		plan, err := LandlockPlan(p, core.Needs{TempDir: "/tmp/run"}, abi)
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
