package run

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// buildInfo is the build information of one of the two main packages of
// a build stamped stamp (none when ""), linking deps, Go 1.26.8.
func buildInfo(path, stamp string, deps ...*debug.Module) *debug.BuildInfo {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Path:      path,
		Main:      debug.Module{Path: "github.com/sabline/sabline", Version: "(devel)"},
		Deps:      deps,
		Settings: []debug.BuildSetting{
			{Key: "-buildmode", Value: "exe"},
			{Key: "-compiler", Value: "gc"},
			{Key: "CGO_ENABLED", Value: "0"},
			{Key: "GOARCH", Value: "amd64"},
			{Key: "GOOS", Value: "linux"},
		},
	}
	if stamp != "" {
		bi.Settings = append(bi.Settings[:2:2], append([]debug.BuildSetting{
			{Key: "-ldflags", Value: "-X main.buildStamp=" + stamp}}, bi.Settings[2:]...)...)
	}
	return bi
}

var (
	starlarkDep = &debug.Module{Path: "go.starlark.net", Version: "v0.0.0-20260908191801-89a6a09411d5",
		Sum: "h1:X8HyonnLxrmAbdeMIEGEJVZ/yg6WykLZyAZmpCLSfMA="}
	mcpDep = &debug.Module{Path: "github.com/modelcontextprotocol/go-sdk", Version: "v1.8.0",
		Sum: "h1:KIvahhYqwtbeniWVPs3TcXEA7b8jEtwfBpOTAI+Urx4="}
)

// TestSameBuild: a worker binary is the command's own only when both are
// one build that can be told from another: stamped alike, or a released
// module version; every other difference, and a build with neither,
// leaves the command to start itself.
func TestSameBuild(t *testing.T) {
	released := func(bi *debug.BuildInfo) *debug.BuildInfo {
		bi.Main.Version, bi.Main.Sum = "v1.4.0", "h1:mainsum="
		return bi
	}
	tests := []struct {
		name        string
		cmd, worker *debug.BuildInfo
		want        bool
	}{
		{name: "one stamp, the worker linking a part of the command's modules", want: true,
			cmd:    buildInfo(commandPackage, "abc", starlarkDep, mcpDep),
			worker: buildInfo(workerPackage, "abc", starlarkDep)},
		{name: "a released version, no stamp", want: true,
			cmd:    released(buildInfo(commandPackage, "", starlarkDep)),
			worker: released(buildInfo(workerPackage, "", starlarkDep))},
		{name: "a working tree's build, no stamp",
			cmd:    buildInfo(commandPackage, "", starlarkDep),
			worker: buildInfo(workerPackage, "", starlarkDep)},
		{name: "a working tree's build with changes, no stamp",
			cmd: func() *debug.BuildInfo {
				bi := released(buildInfo(commandPackage, ""))
				bi.Main.Version += "+dirty"
				return bi
			}(),
			worker: func() *debug.BuildInfo {
				bi := released(buildInfo(workerPackage, ""))
				bi.Main.Version += "+dirty"
				return bi
			}()},
		{name: "two stamps",
			cmd:    buildInfo(commandPackage, "abc", starlarkDep),
			worker: buildInfo(workerPackage, "abd", starlarkDep)},
		{name: "the worker stamped, the command not",
			cmd:    buildInfo(commandPackage, "", starlarkDep),
			worker: buildInfo(workerPackage, "abc", starlarkDep)},
		{name: "two released versions",
			cmd: released(buildInfo(commandPackage, "")),
			worker: func() *debug.BuildInfo {
				bi := released(buildInfo(workerPackage, ""))
				bi.Main.Version = "v1.3.0"
				return bi
			}()},
		{name: "another Go",
			cmd: buildInfo(commandPackage, "abc"),
			worker: func() *debug.BuildInfo {
				bi := buildInfo(workerPackage, "abc")
				bi.GoVersion = "go1.26.7"
				return bi
			}()},
		{name: "other build tags",
			cmd: buildInfo(commandPackage, "abc"),
			worker: func() *debug.BuildInfo {
				bi := buildInfo(workerPackage, "abc")
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "-tags", Value: "sabline_knockout"})
				return bi
			}()},
		{name: "a module at another version",
			cmd: buildInfo(commandPackage, "abc", starlarkDep),
			worker: buildInfo(workerPackage, "abc", &debug.Module{Path: starlarkDep.Path,
				Version: "v0.0.0-20250101000000-000000000000", Sum: "h1:other="})},
		{name: "a module the command does not link",
			cmd:    buildInfo(commandPackage, "abc", starlarkDep),
			worker: buildInfo(workerPackage, "abc", starlarkDep, mcpDep)},
		{name: "a module replaced in the worker alone",
			cmd: buildInfo(commandPackage, "abc", starlarkDep),
			worker: buildInfo(workerPackage, "abc", &debug.Module{Path: starlarkDep.Path,
				Version: starlarkDep.Version, Sum: starlarkDep.Sum,
				Replace: &debug.Module{Path: "../starlark", Version: "(devel)"}})},
		{name: "a worker that is another command",
			cmd:    buildInfo(commandPackage, "abc"),
			worker: buildInfo("github.com/sabline/sabline/cmd/sabline-store", "abc")},
		{name: "a host program that embeds Sabline",
			cmd:    buildInfo("example.com/host", "abc"),
			worker: buildInfo(workerPackage, "abc")},
		{name: "no build information", cmd: buildInfo(commandPackage, "abc")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameBuild(tt.cmd, tt.worker); got != tt.want {
				t.Errorf("sameBuild = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestStamped: the stamp is found in each spelling of -X, and only with a
// value.
func TestStamped(t *testing.T) {
	tests := []struct {
		name    string
		ldflags string
		want    bool
	}{
		{name: "-X, then the assignment", ldflags: "-s -X main.buildStamp=abc", want: true},
		{name: "-X=", ldflags: "-X=main.buildStamp=abc -w", want: true},
		{name: "--X=", ldflags: "--X=main.buildStamp=abc", want: true},
		{name: "an empty stamp", ldflags: "-X main.buildStamp="},
		{name: "another variable", ldflags: "-X main.version=abc"},
		{name: "another package's variable", ldflags: "-X other.buildStamp=abc"},
		{name: "no link flags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := &debug.BuildInfo{}
			if tt.ldflags != "" {
				bi.Settings = []debug.BuildSetting{{Key: "-ldflags", Value: tt.ldflags}}
			}
			if got := stamped(bi); got != tt.want {
				t.Errorf("stamped(%q) = %v, want %v", tt.ldflags, got, tt.want)
			}
		})
	}
}

// FuzzSameBuild: build information as a binary could carry it (the
// worker binary's is read from a file beside the executable), parsed and
// compared with the command's: never a panic, and a match only between a
// command and a worker that are one build that can be told apart.
func FuzzSameBuild(f *testing.F) {
	cmd := buildInfo(commandPackage, "abc", starlarkDep, mcpDep).String()
	worker := buildInfo(workerPackage, "abc", starlarkDep).String()
	f.Add(cmd, worker)
	f.Add(cmd, buildInfo(workerPackage, "abd", starlarkDep).String())
	f.Add(buildInfo(commandPackage, "").String(), buildInfo(workerPackage, "").String())
	f.Add("", "")
	f.Fuzz(func(t *testing.T, cmdText, workerText string) {
		if len(cmdText) > 64<<10 || len(workerText) > 64<<10 {
			return
		}
		c, err := debug.ParseBuildInfo(cmdText)
		if err != nil {
			return
		}
		w, err := debug.ParseBuildInfo(workerText)
		if err != nil {
			return
		}
		if !sameBuild(c, w) {
			return
		}
		if c.Path != commandPackage || w.Path != workerPackage || c.GoVersion != w.GoVersion {
			t.Fatalf("matched another pair:\n%s\n%s", c, w)
		}
		if !stamped(c) && !released(c.Main) {
			t.Fatalf("matched a build that cannot be told apart:\n%s", c)
		}
		if !stamped(w) && !released(w.Main) {
			t.Fatalf("matched a worker that cannot be told apart:\n%s", w)
		}
	})
}

// ownSection is the build information section of this test's executable.
func ownSection(t testing.TB) (exe string, data []byte) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Skipf("the test's executable is not ELF (%v): nothing to read", err)
	}
	defer f.Close()
	s := f.Section(buildInfoSection)
	if s == nil {
		t.Fatalf("%s has no %s section", exe, buildInfoSection)
	}
	if data, err = s.Data(); err != nil {
		t.Fatal(err)
	}
	return exe, data
}

// TestReadBuildInfo: what readBuildInfo reads of an executable is what
// debug/buildinfo reads of it.
func TestReadBuildInfo(t *testing.T) {
	exe, _ := ownSection(t)
	got, err := readBuildInfo(exe)
	if err != nil {
		t.Fatal(err)
	}
	want, err := buildinfo.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("readBuildInfo:\n%s\nwant, as debug/buildinfo reads it:\n%s", got, want)
	}
	if _, err := readBuildInfo(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("read the build information of a file that is not there")
	}
}

// TestParseBuildInfo: a section cut short, or one of another format, is
// an error; the whole one parses.
func TestParseBuildInfo(t *testing.T) {
	_, data := ownSection(t)
	oldFormat := bytes.Clone(data)
	oldFormat[buildInfoFlags] &^= flagInline
	tests := []struct {
		name    string
		data    []byte
		wantErr bool
	}{
		{name: "the whole section", data: data},
		{name: "empty", data: nil, wantErr: true},
		{name: "the header alone", data: data[:buildInfoHeader], wantErr: true},
		{name: "cut in the module information", data: data[:buildInfoHeader+40], wantErr: true},
		{name: "no magic", data: append([]byte("x"), data[1:]...), wantErr: true},
		{name: "the format before Go 1.18", data: oldFormat, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi, err := parseBuildInfo(tt.data)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseBuildInfo: %v, want an error: %v", err, tt.wantErr)
			}
			if err == nil && (bi.GoVersion == "" || bi.Path == "") {
				t.Errorf("parsed no Go version or path: %+v", bi)
			}
		})
	}
}

// FuzzParseBuildInfo: a build information section as a file beside the
// executable could hold it: never a panic, and whatever parses names a Go
// version that was in it.
func FuzzParseBuildInfo(f *testing.F) {
	_, data := ownSection(f)
	f.Add(data)
	f.Add(data[:buildInfoHeader+8])
	f.Add([]byte(buildInfoMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxBuildInfoBytes {
			return
		}
		bi, err := parseBuildInfo(data)
		if err == nil && !bytes.Contains(data, []byte(bi.GoVersion)) {
			t.Fatalf("a Go version %q that is not in the section", bi.GoVersion)
		}
	})
}
