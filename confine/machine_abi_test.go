package confine

import (
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/linux"
)

// TestAdviceReadsTheTable: the doctor's advice for a Linux kernel names,
// from the table, each higher ABI whose addition Sabline would hold, with
// the kernel that offers it, and nothing at the highest ABI.
func TestAdviceReadsTheTable(t *testing.T) {
	tests := []struct {
		name string
		m    Machine
		want []string
	}{
		{name: "the highest ABI, seccomp present", m: Machine{OS: "linux", LandlockABI: linux.LandlockMaxABI, Seccomp: true}},
		{name: "a newer ABI still", m: Machine{OS: "linux", LandlockABI: linux.LandlockMaxABI + 1, Seccomp: true}},
		{name: "ABI 3 lacks TCP", m: Machine{OS: "linux", LandlockABI: 3, Seccomp: true},
			want: []string{"Landlock ABI 3 cannot hold TCP binds and connects: a worker's own TCP sockets " +
				"are held by seccomp alone. Linux 6.7 offers ABI 4"}},
		{name: "ABI 2 lacks TCP: the filter holds truncation", m: Machine{OS: "linux", LandlockABI: 2, Seccomp: true},
			want: []string{"Landlock ABI 2 cannot hold " + linux.LandlockABIOf(linux.LandlockABITCP).Lacking +
				". Linux 6.7 offers ABI 4"}},
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
	if n := len(LandlockOffers(linux.LandlockMaxABI + 2)); n != linux.LandlockMaxABI {
		t.Errorf("LandlockOffers past the highest ABI gives %d lines, want %d", n, linux.LandlockMaxABI)
	}
}
