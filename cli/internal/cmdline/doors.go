package cmdline

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
)

// Doors are the commands sabline serve and sabline mcp. Only the
// sabline-door command links them (cli/doorcmd): the HTTP server and the
// MCP SDK they need would otherwise be initialised by every process the
// sabline binary starts, each worker included, for nothing. The sabline
// command runs a door by starting sabline-door in its place.
type Doors interface {
	// Run runs the door command cmd ("serve" or "mcp") with args and
	// returns its exit status.
	Run(cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// FlagSet is the flag set of cmd, for its help.
	FlagSet(cmd string) *flag.FlagSet
}

// Linked is the doors this binary links: nil in the sabline command, set
// by doorcmd.Main before it hands over to cli.Main.
var Linked Doors

// DoorName is the doors' command (cmd/sabline-door).
const DoorName = "sabline-door"

// Beside is the executable name beside this process's executable when it
// is there, else name on PATH: how the sabline command finds the
// commands built with it (the store agent, the doors).
func Beside(name string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := strings.TrimSuffix(exe, ".exe")
		dir := p[:strings.LastIndexAny(p, `/\`)+1]
		beside := dir + name
		if strings.HasSuffix(exe, ".exe") {
			beside += ".exe"
		}
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
			return beside, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("no %s beside this executable nor on PATH: %w", name, err)
	}
	return p, nil
}

// BuildEnv carries the build of the sabline command to the sabline-door
// it starts, which refuses to run as another build's doors (SameBuild).
const BuildEnv = "SABLINE_DOOR_BUILD"

// Build names this binary's build: the module's version ("(devel)" for a
// build of the repository), the commit it was built from and its build
// tags, where the build recorded them.
func Build() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			v += " " + s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			v += " modified"
		case s.Key == "-tags" && s.Value != "":
			v += " tags " + s.Value // a knock-out build's doors are not another's
		}
	}
	return v
}

// devel is Build's version of a build of the repository that recorded
// no commit (go run, or a tree outside version control).
const devel = "(devel)"

// SameBuild reports whether the builds a and b (Build) may be taken for
// one: the same build tags (a knock-out build's doors are never
// another's, nor another's a knock-out's), and the same version and
// commit, unless one of them recorded neither, which no other build is
// told apart from.
func SameBuild(a, b string) bool {
	restA, tagsA, _ := strings.Cut(a, " tags ")
	restB, tagsB, _ := strings.Cut(b, " tags ")
	if tagsA != tagsB {
		return false
	}
	return restA == restB || restA == devel || restB == devel
}
