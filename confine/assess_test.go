package confine

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/budgetgen"
)

// policyOf derives the policy of an --allow text, paths taken from /.
func policyOf(allow string, strict bool) core.Policy {
	return core.OSPolicy(budget.MustParse("/", allow), core.Options{Mode: modeOf(strict)})
}

// TestPredictLinux states Linux's levels where Landlock ABI 7 and seccomp
// are present apart from the code that says them: none when the policy is
// off, full otherwise, net grants of named hosts and UDP ones included,
// since the supervisor makes each connection; and the broker's note
// exactly when a policy that enforces something has any network.
func TestPredictLinux(t *testing.T) {
	r := rand.New(rand.NewSource(20))
	counts := map[core.Level]int{}
	brokered := 0
	for range 2000 {
		p := core.OSPolicy(budget.Budget{}.With(budgetgen.Items(r, 6)...), core.Options{Mode: modeOf(r.Intn(4) == 0)})
		want := core.Full
		if !p.Enforced {
			want = core.None
		}
		got := Predict(p, "linux")
		if got.Level != want {
			t.Fatalf("%s: level %s, want %s (%s)", p.JSON(), got.Level, want, got.Reason)
		}
		wantNote := p.Enforced && (p.Network.Mode == core.NetHosts || p.Network.Mode == core.NetOpen)
		note := slices.ContainsFunc(got.Gaps, func(g core.Gap) bool {
			return g.Layer == core.LayerBroker && g.Kind == core.GapNote
		})
		if note != wantNote {
			t.Fatalf("%s: the broker's note %v, want %v (%s)", p.JSON(), note, wantNote, got.Reason)
		}
		if note {
			brokered++
		}
		counts[got.Level]++
	}
	for _, l := range []core.Level{core.Full, core.None} {
		if counts[l] == 0 {
			t.Errorf("no generated budget predicted %s", l)
		}
	}
	if brokered == 0 || brokered == counts[core.Full] {
		t.Errorf("%d of %d full predictions brokered: want some, not all", brokered, counts[core.Full])
	}
	t.Logf("levels predicted: %v, %d brokered", counts, brokered)
}

func TestPredictElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name      string
		allow     string
		goos      System
		wantLevel core.Level
	}{
		{name: "macOS is partial at best", allow: "io", goos: "darwin", wantLevel: core.Partial},
		{name: "windows holds io in the container", allow: "io", goos: "windows", wantLevel: core.Full},
		{name: "windows leaves the container off for a loopback host", allow: "io,net:localhost:8080", goos: "windows", wantLevel: core.Partial},
		{name: "a system with no confinement", allow: "io", goos: "plan9", wantLevel: core.None},
		{name: "a policy that is off", allow: "io,ffi:subprocess", goos: "windows", wantLevel: core.None},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Predict(policyOf(tc.allow, false), tc.goos)
			if got.Level != tc.wantLevel || got.Reason == "" || got.Layers == nil {
				t.Errorf("Predict(%s, %s) = %+v, want level %s with a reason", tc.allow, tc.goos, got, tc.wantLevel)
			}
		})
	}
}

// modeOf is ModeStrict when strict, else ModeDefault.
func modeOf(strict bool) core.Mode {
	if strict {
		return core.ModeStrict
	}
	return core.ModeDefault
}
