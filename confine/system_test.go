package confine

import (
	"runtime"
	"slices"
	"testing"
)

func TestSystems(t *testing.T) {
	if want := []System{Linux, Darwin, Windows}; !slices.Equal(systems, want) {
		t.Errorf("Systems = %v, want %v", systems, want)
	}
	for _, tc := range []struct {
		name      string
		goos      string
		want      System
		wantKnown bool
		wantTitle string
	}{
		{name: "linux", goos: "linux", want: Linux, wantKnown: true, wantTitle: "Linux"},
		{name: "macOS", goos: "darwin", want: Darwin, wantKnown: true, wantTitle: "macOS"},
		{name: "windows", goos: "windows", want: Windows, wantKnown: true, wantTitle: "Windows"},
		{name: "a system with no confinement", goos: "plan9", want: "plan9", wantTitle: "plan9"},
		{name: "no name", goos: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, known := SystemOf(tc.goos)
			if got != tc.want || known != tc.wantKnown || got.Title() != tc.wantTitle {
				t.Errorf("SystemOf(%q) = %q (%q), %v; want %q (%q), %v", tc.goos, got, got.Title(), known, tc.want, tc.wantTitle, tc.wantKnown)
			}
		})
	}
	sys, known := ThisSystem()
	if string(sys) != runtime.GOOS || known != slices.Contains(systems, sys) {
		t.Errorf("ThisSystem() = %q, %v on %s", sys, known, runtime.GOOS)
	}
}
