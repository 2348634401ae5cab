package run

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
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
	theirs, err := readBuildInfo(p)
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

// The build information a Go linker writes into an ELF executable: the
// section, its 32-byte header (the magic, the pointer size, the flags),
// then, since Go 1.18 (flagInline), the Go version and the module
// information, each a string after its length as a uvarint; the module
// information is wrapped in 16 bytes on each side. debug/buildinfo reads
// the same from every executable format; this reads ELF's alone, with
// debug/elf, which the sabline binary links already, where
// debug/buildinfo would link the readers of four formats more.
const (
	buildInfoSection = ".go.buildinfo"
	buildInfoMagic   = "\xff Go buildinf:"
	buildInfoHeader  = 32
	buildInfoFlags   = 15  // the flags' offset in the header
	flagInline       = 0x2 // the strings follow the header
	modInfoWrap      = 16
	// maxBuildInfoBytes bounds the section read: a build's is a few KB.
	maxBuildInfoBytes = 1 << 20
)

// errNoBuildInfo is the error of an executable that carries no build
// information readBuildInfo can read.
var errNoBuildInfo = errors.New("no Go build information")

// readBuildInfo reads the build information of the ELF executable at path.
func readBuildInfo(path string) (*debug.BuildInfo, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the build information of %s: %w", path, err)
	}
	defer f.Close()
	s := f.Section(buildInfoSection)
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("read the build information of %s: %w", path, errNoBuildInfo)
	}
	if s.Size > maxBuildInfoBytes {
		return nil, fmt.Errorf("read the build information of %s: its section holds %d bytes, over %d",
			path, s.Size, maxBuildInfoBytes)
	}
	data, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("read the build information of %s: %w", path, err)
	}
	bi, err := parseBuildInfo(data)
	if err != nil {
		return nil, fmt.Errorf("read the build information of %s: %w", path, err)
	}
	return bi, nil
}

// parseBuildInfo parses the content of a build information section.
func parseBuildInfo(data []byte) (*debug.BuildInfo, error) {
	if len(data) < buildInfoHeader || !bytes.HasPrefix(data, []byte(buildInfoMagic)) {
		return nil, errNoBuildInfo
	}
	if data[buildInfoFlags]&flagInline == 0 {
		return nil, fmt.Errorf("%w: a Go before 1.18 wrote it", errNoBuildInfo)
	}
	vers, rest, ok := uvarintString(data[buildInfoHeader:])
	if !ok {
		return nil, fmt.Errorf("%w: the Go version is cut short", errNoBuildInfo)
	}
	mod, _, ok := uvarintString(rest)
	if !ok {
		return nil, fmt.Errorf("%w: the module information is cut short", errNoBuildInfo)
	}
	if len(mod) < 2*modInfoWrap+1 || mod[len(mod)-modInfoWrap-1] != '\n' {
		return nil, fmt.Errorf("%w: no module information", errNoBuildInfo)
	}
	bi, err := debug.ParseBuildInfo(string(mod[modInfoWrap : len(mod)-modInfoWrap]))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoBuildInfo, err)
	}
	bi.GoVersion = string(vers)
	return bi, nil
}

// uvarintString is the string at the start of b after its length, as a
// uvarint, and what follows it; false when b is shorter than either says.
func uvarintString(b []byte) (s, rest []byte, ok bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, false
	}
	return b[w : w+int(n)], b[w+int(n):], true
}
