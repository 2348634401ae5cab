// Package buildbin builds the sabline command, and the few other commands
// the tests run, for the suites, scripts and benchmarks that run them as a
// user would.
//
// # Shared between test processes
//
// `go test ./...` runs each package's tests in a process of its own, and a
// dozen of them run the sabline command; linking it is seconds of CPU
// each. Where the system allows it (see sharedDir), a binary is kept in a
// directory of this user's own beneath the temporary directory, named by
// the content of everything it is built from: the export files of the
// package and every package it imports, as `go list -export -deps` names
// them in the build cache, whose names change with their content, with the
// build tags and the environment that changes a build. A change to any
// source file, tag or toolchain is a new name. A binary is written beside
// its name and renamed into place, so that a process never runs one half
// written; one not used for a day is removed. Elsewhere, each process
// builds its own, as before, in a directory Cleanup removes.
//
// # The test cache
//
// go test answers a package's tests from its cache when the test binary,
// its flags, and the files of the module and the environment variables
// the tests looked at are the same as in a run it kept. A binary built
// here is none of those: after a change to sabline's sources that a test
// binary does not link (internal/prefault, which only the commands
// import), `go test ./...` answered from its cache every test that runs
// sabline. So Build looks at (os.Stat) every file of this module that
// the binary is built from, and at go.mod and go.sum, as the test's own:
// go test sees those files change and runs the test again
// (TestGoTestSeesSourceChange). It sees only what a test looks at while
// the tests run, not in TestMain before m.Run: call Build from the tests
// (a binary built earlier in the process is returned at once, and its
// sources looked at again).
package buildbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	mu     sync.Mutex
	built  = map[string]string{}
	listed = map[string][]byte{} // Build's listing of each binary in built
	dir    string
)

// unused is how long a shared binary is kept after it was last used.
const unused = 24 * time.Hour

// Sabline builds github.com/sabline/sabline/cmd/sabline with the given
// build tags (none, or "sabline_knockout") and CGO_ENABLED=0, once per
// process and tag set (once per content, where it is shared), and returns
// the binary's path.
func Sabline(tags ...string) (string, error) {
	return Build("github.com/sabline/sabline/cmd/sabline", "sabline", tags...)
}

// SablineWithDoor builds cmd/sabline and cmd/sabline-door with tags, as
// Sabline does, and returns the path of a sabline with that sabline-door
// beside it, in a directory of this process's own (Cleanup removes it),
// where sabline serve and sabline mcp find it.
func SablineWithDoor(tags ...string) (string, error) {
	bin, err := Sabline(tags...)
	if err != nil {
		return "", err
	}
	door, err := Build("github.com/sabline/sabline/cmd/sabline-door", "sabline-door", tags...)
	if err != nil {
		return "", err
	}
	mu.Lock()
	defer mu.Unlock()
	key := "with-door " + strings.Join(tags, ",")
	if p, ok := built[key]; ok {
		return p, nil
	}
	sub, err := privateDir()
	if err != nil {
		return "", err
	}
	exe := ""
	if goruntime.GOOS == "windows" {
		exe = ".exe"
	}
	out := filepath.Join(sub, "sabline"+exe)
	for from, to := range map[string]string{bin: out, door: filepath.Join(sub, "sabline-door"+exe)} {
		if err := os.Link(from, to); err != nil {
			return "", fmt.Errorf("buildbin: %w", err)
		}
	}
	built[key] = out
	return out, nil
}

// Build builds the package pkg into a binary called name, with tags.
func Build(pkg, name string, tags ...string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	key := pkg + " " + strings.Join(tags, ",")
	if p, ok := built[key]; ok {
		// Looked at again, for the test that asks now (above, "The test
		// cache").
		if err := lookAt(pkg, listed[key]); err != nil {
			return "", err
		}
		return p, nil
	}
	if goruntime.GOOS == "windows" {
		name += ".exe"
	}
	list, err := listing(pkg, tags)
	if err != nil {
		return "", err
	}
	if err := lookAt(pkg, list); err != nil {
		return "", err
	}
	var out string
	if shared, ok := sharedDir(); ok {
		out = filepath.Join(shared, contentOf(pkg, tags, list)[:32]+"-"+name)
		if err := buildShared(pkg, out, tags); err != nil {
			return "", err
		}
		prune(shared)
	} else {
		sub, err := privateDir()
		if err != nil {
			return "", err
		}
		out = filepath.Join(sub, name)
		if err := goBuild(pkg, out, tags, unstamped); err != nil {
			return "", err
		}
	}
	built[key], listed[key] = out, list
	return out, nil
}

// privateDir is a new directory for one binary of this process, beneath
// the one Cleanup removes.
func privateDir() (string, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "sabline-bin-")
		if err != nil {
			return "", fmt.Errorf("buildbin: %w", err)
		}
		dir = d
	}
	sub := filepath.Join(dir, fmt.Sprint(len(built)))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return "", fmt.Errorf("buildbin: %w", err)
	}
	return sub, nil
}

// buildShared makes out unless it is there already: built beside it and
// renamed into place, so that whoever finds it finds it whole.
func buildShared(pkg, out string, tags []string) error {
	now := time.Now()
	if err := os.Chtimes(out, now, now); err == nil {
		return nil // there, and marked as used
	}
	// One process builds it; another that wants it meanwhile waits for it
	// rather than building it beside it.
	unlock := lock(out + ".lock")
	defer unlock()
	if err := os.Chtimes(out, now, now); err == nil {
		return nil // built while this one waited
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), ".build-")
	if err != nil {
		return fmt.Errorf("buildbin: %w", err)
	}
	defer os.RemoveAll(tmp)
	part := filepath.Join(tmp, filepath.Base(out))
	if err := goBuild(pkg, part, tags, unstamped); err != nil {
		return err
	}
	if err := os.Rename(part, out); err != nil {
		return fmt.Errorf("buildbin: %w", err)
	}
	return nil
}

// listFormat is go list's template for listing: a line of each package's
// import path and export file and, for a package of this module, a line
// for each file it is built from and for the module's go.mod.
const listFormat = `{{.ImportPath}} {{.Export}}
{{if and .Module .Module.Main}}{{range .GoFiles}}source {{$.Dir}}/{{.}}
{{end}}{{range .SFiles}}source {{$.Dir}}/{{.}}
{{end}}{{range .HFiles}}source {{$.Dir}}/{{.}}
{{end}}{{range .SysoFiles}}source {{$.Dir}}/{{.}}
{{end}}{{range .EmbedFiles}}source {{$.Dir}}/{{.}}
{{end}}source {{.Module.GoMod}}
{{end}}`

// sourcePrefix begins listing's lines that name a source file.
const sourcePrefix = "source "

// listing is go list's listing (listFormat) of pkg and every package it
// imports, with tags.
func listing(pkg string, tags []string) ([]byte, error) {
	args := []string{"list", "-export", "-deps", "-f", listFormat}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	list, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("buildbin: go list -export %s: %w", pkg, err)
	}
	return list, nil
}

// lookAt looks at (os.Stat) every source file the listing list of pkg
// names, and the module's go.sum, from this process: go test keeps a
// test's result against the files of the module the test looked at, so
// that a change to the binary's sources, which the test binary does not
// link, runs the test again rather than answer it from the cache.
func lookAt(pkg string, list []byte) error {
	looked := map[string]bool{}
	for line := range strings.Lines(string(list)) {
		path, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), sourcePrefix)
		if !ok || looked[path] {
			continue
		}
		looked[path] = true
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("buildbin: %s: %w", pkg, err)
		}
		if filepath.Base(path) == "go.mod" {
			os.Stat(filepath.Join(filepath.Dir(path), "go.sum")) // there or not: looked at
		}
	}
	return nil
}

// contentOf names what pkg is built from, with tags, as listing lists it:
// a hash of the export files of pkg and of every package it imports,
// whose names in the build cache are hashes of their content, and of what
// else changes a build.
func contentOf(pkg string, tags []string, list []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\ntags %s\nGOOS %s GOARCH %s GOFLAGS %s\n", pkg, strings.Join(tags, ","),
		goruntime.GOOS, goruntime.GOARCH, os.Getenv("GOFLAGS"))
	for line := range strings.Lines(string(list)) {
		if !strings.HasPrefix(line, sourcePrefix) {
			h.Write([]byte(line))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// unstamped is goBuild's flag for a binary with no VCS stamp: a binary
// is shared by the content it is built from, which the repository's
// state is not part of.
const unstamped = "-buildvcs=false"

// ErrNoCheckout is SablineStamped's error where the tests do not run in
// a git checkout, or git is not there, or the checkout is a linked
// worktree (its .git a file), which the Go command does not take for a
// repository (golang/go#58218): there is no commit it would stamp.
var ErrNoCheckout = errors.New("buildbin: not in a git checkout the Go command stamps, or no git")

// SablineStamped builds cmd/sabline into out with the commit of the
// repository it is built in stamped (-buildvcs=true), as a release's `go
// build` is, for the tests of what a build says of its source: built each
// time, never shared, since the repository's state is not part of a
// shared binary's name. It returns the commit and whether the tree had
// changes not committed, as git says them (what the stamp should say),
// and ErrNoCheckout where there is no commit to stamp.
func SablineStamped(out string) (commit string, modified bool, err error) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false, fmt.Errorf("%w: %v", ErrNoCheckout, err)
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", false, fmt.Errorf("%w: %v", ErrNoCheckout, err)
	}
	// The Go command looks for a .git directory: a linked worktree's
	// .git, a file, builds with no stamp at all, or the stamp of a
	// repository around it.
	dotGit := filepath.Join(strings.TrimSpace(string(top)), ".git")
	if fi, err := os.Stat(dotGit); err != nil || !fi.IsDir() {
		return "", false, fmt.Errorf("%w: %s is not a directory (a linked worktree?)",
			ErrNoCheckout, dotGit)
	}
	status, err := exec.Command("git", "status", "--porcelain").Output()
	if err != nil {
		return "", false, fmt.Errorf("buildbin: git status: %w", err)
	}
	err = goBuild("github.com/sabline/sabline/cmd/sabline", out, nil, "-buildvcs=true")
	return strings.TrimSpace(string(head)), len(strings.TrimSpace(string(status))) > 0, err
}

// StampedFor is SablineStamped into a directory of t's own: the binary,
// and the commit and changes its stamp should say. t is skipped, saying
// why, where there is no commit to stamp (ErrNoCheckout), and fails where
// the build does.
func StampedFor(t testing.TB) (bin, commit string, modified bool) {
	t.Helper()
	bin = filepath.Join(t.TempDir(), "sabline")
	commit, modified, err := SablineStamped(bin)
	if errors.Is(err, ErrNoCheckout) {
		t.Skipf("no commit to stamp: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin, commit, modified
}

// goBuild runs go build with CGO_ENABLED=0 and the flag vcs.
func goBuild(pkg, out string, tags []string, vcs string) error {
	args := []string{"build", vcs, "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("buildbin: go build %s: %w\n%s", pkg, err, msg)
	}
	return nil
}

// prune removes the shared binaries not used for a day, and what a build
// that died left.
func prune(shared string) {
	entries, err := os.ReadDir(shared)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && time.Since(info.ModTime()) > unused {
			os.RemoveAll(filepath.Join(shared, e.Name()))
		}
	}
}

// Cleanup removes every binary this process built for itself. Call it
// from TestMain after the tests have run; shared binaries stay, for the
// next process.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	dir, built, listed = "", map[string]string{}, map[string][]byte{}
}
