package darwin

import (
	"path"
	"strings"

	"github.com/sabline/sabline/confine/core"
)

// What macOS needs of the machine, and what its Apply made of it, as
// functions that run on any system.

// The macOS paths of the interpreter's needs, before their links are
// resolved (/etc is /private/etc).
var (
	darwinTZData   = []string{"/usr/share/zoneinfo", "/etc/localtime", "/var/db/timezone"}
	darwinResolver = []string{"/etc/resolv.conf", "/etc/hosts", "/var/run/resolv.conf"}
	darwinTLSRoots = []string{"/etc/ssl/cert.pem", "/etc/ssl/certs", "/System/Library/Keychains",
		"/Library/Keychains"}
)

// resolved returns p and n with every path as the sandbox matches
// it: its links resolved by eval (filepath.EvalSymlinks on macOS). A
// path that does not exist yet is resolved through the nearest directory
// above it that does, the rest kept as written, so that /tmp/new is
// /private/tmp/new. p is not changed.
func resolved(p core.Policy, n core.Needs,
	eval func(string) (string, error)) (core.Policy, core.Needs) {
	one := func(s string) string {
		if s == "" || !strings.HasPrefix(s, "/") {
			return s
		}
		var rest []string
		for dir := path.Clean(s); ; dir = path.Dir(dir) {
			if got, err := eval(dir); err == nil {
				return path.Join(append([]string{got}, rest...)...)
			}
			if dir == "/" {
				return s
			}
			rest = append([]string{path.Base(dir)}, rest...)
		}
	}
	all := func(list []string) []string {
		if list == nil {
			return nil
		}
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = one(s)
		}
		return out
	}
	p.Read.Paths = all(p.Read.Paths)
	p.Write.Paths = all(p.Write.Paths)
	n.Executable, n.TempDir = one(n.Executable), one(n.TempDir)
	n.TZData, n.Resolver, n.TLSRoots = all(n.TZData), all(n.Resolver), all(n.TLSRoots)
	return p, n
}

// needsOf names macOS's paths for p's needs, unresolved.
func needsOf(p core.Policy, exe, tempDir string) core.Needs {
	n := core.Needs{Executable: exe, TempDir: tempDir, TZData: darwinTZData}
	for _, need := range p.Interpreter {
		switch need {
		case core.NeedResolver:
			n.Resolver = darwinResolver
		case core.NeedTLSRoots:
			n.TLSRoots = darwinTLSRoots
		}
	}
	return n
}

// result is the core.Result of a macOS Apply: Assess of what
// sandbox_init did (profileErr nil when it applied the profile), with a
// gap for each failure, sandbox_init's own words included.
func result(p core.Policy, profileErr, limitErr error) core.Result {
	h := Held{Profile: profileErr == nil}
	if profileErr != nil {
		h.Problems = append(h.Problems, core.Gap{Layer: core.LayerSandboxProfile, Kind: core.GapUnheld,
			Text: "the sandbox profile was refused: " + profileErr.Error()})
	}
	if limitErr != nil {
		h.Problems = append(h.Problems, core.Gap{Layer: core.LayerMemory, Kind: core.GapUnheld,
			Text: "the memory limit could not be set: " + limitErr.Error()})
	}
	return Assess(p, h)
}
