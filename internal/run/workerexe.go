package run

import (
	"debug/buildinfo"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// The worker's executable. A worker started from the sabline binary
// initialises every package that binary links, the doors' HTTP and MCP
// stacks among them, though a worker runs none of them. The sabline
// command therefore starts its run's worker from sabline-worker
// (cmd/sabline-worker), which links only what a worker runs, when it lies
// beside the running executable (never from PATH) and is provably the
// same build; in every other case (none there, another build, a build
// that cannot be told apart from another, a program that embeds Sabline,
// any system but Linux) the worker is this executable started again, as
// it always was, and nothing is reported. A pool's workers are this
// executable: a door holds its own process to a Landlock domain that
// lets it execute that one file (cli's serverRules). See
// docs/platforms.md, "The worker's executable".
const (
	// workerCommand is the worker binary's name beside sabline.
	workerCommand = "sabline-worker"
	// commandPackage and workerPackage are the main packages of the two.
	commandPackage = "github.com/sabline/sabline/cmd/sabline"
	workerPackage  = "github.com/sabline/sabline/cmd/sabline-worker"
	// stampVar is the variable a build's stamp is linked into, in both
	// main packages (-ldflags "-X main.buildStamp=STAMP"): see
	// cmd/sabline-worker.
	stampVar = "main.buildStamp"
)

// ownBuild is this executable's build information, nil where it has none.
var ownBuild = sync.OnceValue(func() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
})

// workerExecutable is the executable a worker is started from, and its
// first argument: for the command line's worker (oneShot), sabline-worker
// beside this executable when it is this build's; else this executable
// under the name it was started by.
func workerExecutable(oneShot bool) (path, arg0 string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", "", err
	}
	if !oneShot {
		return exe, os.Args[0], nil
	}
	if p, ok := workerBeside(exe, ownBuild()); ok {
		return p, p, nil
	}
	return exe, os.Args[0], nil
}

// workerBeside is the worker binary beside exe, and true, when there is
// one of the same build as self (sameBuild).
func workerBeside(exe string, self *debug.BuildInfo) (string, bool) {
	if goruntime.GOOS != "linux" || self == nil || self.Path != commandPackage {
		return "", false
	}
	p := filepath.Join(filepath.Dir(exe), workerCommand)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	theirs, err := buildinfo.ReadFile(p)
	if err != nil || !sameBuild(self, theirs) {
		return "", false
	}
	return p, true
}

// sameBuild reports whether the worker binary whose build information is
// worker was made in the same build as the sabline command whose
// information is cmd: the same Go, the same main module at the same
// version, the same build settings, and each module the worker links at
// the version and sum the command links it at; and the build is one that
// can be told apart from another: both carry the same build stamp
// (stampVar) in their link flags, or the main module is a released or
// pseudo-version whose sum the go command checked (go install ...@v1.2.3),
// not a working tree's "(devel)" or "+dirty".
func sameBuild(cmd, worker *debug.BuildInfo) bool {
	if cmd == nil || worker == nil || cmd.Path != commandPackage || worker.Path != workerPackage {
		return false
	}
	if cmd.GoVersion != worker.GoVersion || !sameModule(&cmd.Main, &worker.Main) {
		return false
	}
	if len(cmd.Settings) != len(worker.Settings) {
		return false
	}
	for i, s := range cmd.Settings {
		if worker.Settings[i] != s {
			return false
		}
	}
	linked := make(map[string]*debug.Module, len(cmd.Deps))
	for _, d := range cmd.Deps {
		linked[d.Path] = d
	}
	for _, d := range worker.Deps {
		if c, ok := linked[d.Path]; !ok || !sameModule(c, d) {
			return false
		}
	}
	return stamped(cmd) || released(cmd.Main)
}

// sameModule reports whether a and b are one module at one version.
func sameModule(a, b *debug.Module) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Path == b.Path && a.Version == b.Version && a.Sum == b.Sum &&
		sameModule(a.Replace, b.Replace)
}

// stamped reports whether bi's link flags give stampVar a value: -X
// stampVar=STAMP, or -X=stampVar=STAMP.
func stamped(bi *debug.BuildInfo) bool {
	for _, s := range bi.Settings {
		if s.Key != "-ldflags" {
			continue
		}
		for _, f := range strings.Fields(s.Value) {
			f = strings.TrimPrefix(strings.TrimPrefix(f, "-X="), "--X=")
			if v, ok := strings.CutPrefix(f, stampVar+"="); ok && v != "" {
				return true
			}
		}
	}
	return false
}

// released reports whether m is a module version whose content its sum
// names: what go install ...@version builds.
func released(m debug.Module) bool {
	return m.Sum != "" && m.Version != "" && m.Version != "(devel)" &&
		!strings.HasSuffix(m.Version, "+dirty") && m.Replace == nil
}
