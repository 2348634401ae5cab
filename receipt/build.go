package receipt

import (
	goruntime "runtime"
	"runtime/debug"
	"sync"

	"github.com/sabline/sabline/program"
)

// Version is Sabline's version.
const Version = "0.1.0"

// Build says which binary made the receipt: Sabline's version, whether it
// is a knock-out build, and, where the Go command stamped the binary with
// it (a `go build` inside the repository; not `go run`, nor a build with
// -buildvcs=false), the commit its source was at and whether that source
// had changes not committed. A linked git worktree is no repository to
// the Go command (golang/go#58218): a build there names no commit, or,
// where the worktree lies in another checkout's work tree, that one's.
// Two builds of one version are told apart by their commit alone; a
// receipt or a kernel report with none names no source exactly.
type Build struct {
	Version  string `json:"version"`
	Knockout bool   `json:"knockout"` // built with -tags sabline_knockout: no budget checks
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// ThisBuild is the build of this binary, read once.
var ThisBuild = sync.OnceValue(func() Build {
	b := Build{Version: Version, Knockout: program.Knockout}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.Commit, b.Modified = SourceOf(bi)
	}
	return b
})

// SourceOf is the commit that bi, a binary's build information
// (debug.ReadBuildInfo, or buildinfo.ReadFile of another binary), says its
// source was at, and whether that source had changes not committed: ""
// and false where the Go command stamped none.
func SourceOf(bi *debug.BuildInfo) (commit string, modified bool) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return commit, modified
}

// String is b as `sabline version` says it: the version and, where it
// was stamped, the commit.
func (b Build) String() string {
	s := "sabline " + b.Version
	if b.Commit != "" {
		s += " commit " + b.Commit
		if b.Modified {
			s += " with changes not committed"
		}
	}
	return s
}

// VersionString is what --version prints: this build (ThisBuild), its
// system and architecture, and, for a knock-out build, that every budget
// check passes.
func VersionString() string {
	b := ThisBuild()
	s := b.String() + " (" + goruntime.GOOS + "/" + goruntime.GOARCH + ")"
	if b.Knockout {
		s += " KNOCK-OUT BUILD: every budget check passes"
	}
	return s
}
