package darwin

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
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

// machine is what Apply reads of macOS to build the profile: on macOS
// the system's own functions, in tests fixed ones.
type machine struct {
	Exe  string                       // the running executable; "" when unknown
	Cwd  string                       // the working directory; "" when unknown
	Home func() (string, error)       // $HOME (os.UserHomeDir)
	User func() (string, error)       // the user database's home for the user (userHome)
	Eval func(string) (string, error) // a path, its links resolved (filepath.EvalSymlinks)
}

// profileOn returns the profile that holds p on the machine m describes
// (Profile), tempDir being the run's private temporary directory: the
// needs named for macOS, the home directory found (homeOf), and every
// path resolved as the sandbox matches it.
func profileOn(p core.Policy, tempDir string, m machine) (string, error) {
	home, err := homeOf(m.Home, m.User)
	if err != nil {
		return "", fmt.Errorf("darwin profile: the home directory: %w", err)
	}
	rp, rn := resolved(p, needsOf(p, m.Exe, tempDir), m.Eval)
	one := func(s string) string {
		_, n := resolved(core.Policy{}, core.Needs{TempDir: s}, m.Eval)
		return n.TempDir
	}
	return Profile(rp, rn, one(home), one(m.Cwd))
}

// homeOf returns the home directory whose reads the profile refuses:
// $HOME as env reads it, or, where it is not set, the one the user
// database names for the user running the worker. A worker without the
// env grant starts with an environment of its supervisor's making, which
// holds no HOME: without the database, no such run's profile was built.
func homeOf(env, db func() (string, error)) (string, error) {
	home, err := env()
	if err == nil && home != "" {
		return home, nil
	}
	if err == nil {
		err = errors.New("$HOME is empty")
	}
	dbHome, dberr := db()
	switch {
	case dberr != nil:
		return "", fmt.Errorf("%w, and the user database: %w", err, dberr)
	case dbHome == "":
		return "", fmt.Errorf("%w, and the user database names none", err)
	}
	return dbHome, nil
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
func result(p core.Policy, profileErr, limitErr error, guarded []string) core.Result {
	h := Held{Profile: profileErr == nil, Guarded: guarded}
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

// guardedBeneath returns, in words, the guarded locations of carveOuts
// that the profile reaches: its allowance of a granted directory holds
// for everything beneath it, with no carving (guard.Reached). Each grant
// is taken as written and as the profile names it, its links resolved
// by eval; names are compared as APFS compares them (guard.APFSName),
// without case unless it was made to keep it.
func guardedBeneath(p core.Policy, carveOuts []guard.CarveOut,
	eval func(string) (string, error)) []string {
	rp, _ := resolved(p, core.Needs{}, eval)
	paths := slices.Concat(p.Read.Paths, p.Write.Paths, rp.Read.Paths, rp.Write.Paths)
	return guard.Reached(carveOuts, paths, func(a, dir string) bool {
		return posixWithin(guard.APFSName(a), guard.APFSName(dir))
	})
}
