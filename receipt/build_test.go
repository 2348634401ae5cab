package receipt

import (
	"runtime/debug"
	"testing"

	"github.com/sabline/sabline/budget"
)

// TestSourceOf: the commit and its changes are read from the settings the
// Go command stamps, and a build with none names none; Build.String says
// them as `sabline version` does.
func TestSourceOf(t *testing.T) {
	const rev = "c6ca3673749fdd94900cb143e4350b85a001e444"
	for _, tt := range []struct {
		name         string
		settings     []debug.BuildSetting
		wantCommit   string
		wantModified bool
		wantString   string
	}{
		{name: "stamped, committed", settings: []debug.BuildSetting{{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}},
			wantCommit: rev, wantString: "sabline 0.1.0 commit " + rev},
		{name: "stamped, with changes", settings: []debug.BuildSetting{
			{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: rev}},
			wantCommit: rev, wantModified: true,
			wantString: "sabline 0.1.0 commit " + rev + " with changes not committed"},
		{name: "not stamped (go run, -buildvcs=false)", settings: []debug.BuildSetting{
			{Key: "-buildvcs", Value: "false"}}, wantString: "sabline 0.1.0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			commit, modified := SourceOf(&debug.BuildInfo{Settings: tt.settings})
			if commit != tt.wantCommit || modified != tt.wantModified {
				t.Errorf("SourceOf: %q, %v; want %q, %v", commit, modified, tt.wantCommit,
					tt.wantModified)
			}
			b := Build{Version: Version, Commit: commit, Modified: modified}
			if got := b.String(); got != tt.wantString {
				t.Errorf("String: %q, want %q", got, tt.wantString)
			}
		})
	}
}

// TestReceiptNamesThisBuild: a receipt names the build that made it, as
// ThisBuild reads it.
func TestReceiptNamesThisBuild(t *testing.T) {
	r := NewForSource("/p.vel", nil, budget.Budget{}, nil)
	if r.Sabline != ThisBuild() || r.Sabline.Version != Version {
		t.Errorf("the receipt names the build %+v, want %+v", r.Sabline, ThisBuild())
	}
}
