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
// source file, tag or toolchain is a new name. A build is written into a
// directory beside that name and renamed into place, so that a process
// never runs a binary half written; one not used for a day is removed.
// Elsewhere, each process builds its own, as before, in a directory
// Cleanup removes.
//
// # The sabline command and its worker
//
// Sabline builds the command and the worker binary (cmd/sabline-worker)
// into one directory, in one go build, with one build stamp, as a release
// is built: the command's runs then start that worker binary, as an
// installed sabline's do (docs/platforms.md, "The worker's executable").
// Build of cmd/sabline alone makes a command whose workers are itself.
package buildbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"
)

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// unused is how long a shared binary is kept after it was last used.
const unused = 24 * time.Hour

// The main packages Sabline builds, the command first.
const (
	commandPkg = "github.com/sabline/sabline/cmd/sabline"
	workerPkg  = "github.com/sabline/sabline/cmd/sabline-worker"
)

// Sabline builds github.com/sabline/sabline/cmd/sabline and, beside it,
// its worker binary, with the given build tags (none, or
// "sabline_knockout"), CGO_ENABLED=0 and one build stamp, once per
// process and tag set (once per content, where it is shared), and
// returns the command's path.
func Sabline(tags ...string) (string, error) {
	dir, err := build([]string{commandPkg, workerPkg}, "sabline", tags)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, exeName("sabline")), nil
}

// Build builds the package pkg into a binary called name, with tags.
func Build(pkg, name string, tags ...string) (string, error) {
	dir, err := build([]string{pkg}, name, tags)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, exeName(name)), nil
}

// exeName is the file name of the command name.
func exeName(name string) string {
	if goruntime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// build builds the main packages pkgs into a directory, and returns it:
// one package as a binary called name, more than one each as go build
// names it (the last element of its path), stamped (see Sabline). The
// directory is called after name, and the content's name where it is
// shared.
func build(pkgs []string, name string, tags []string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	key := strings.Join(pkgs, " ") + " " + strings.Join(tags, ",")
	if p, ok := built[key]; ok {
		return p, nil
	}
	sum, err := contentOf(pkgs, tags)
	if err != nil {
		return "", err
	}
	var out string
	if shared, ok := sharedDir(); ok {
		// A directory, ".d": the binaries of trees from before it was one
		// are files, called by the same content's name without it.
		out = filepath.Join(shared, sum[:32]+"-"+name+".d")
		if err := buildShared(pkgs, name, out, tags, sum[:32]); err != nil {
			return "", err
		}
		prune(shared)
	} else {
		sub, err := privateDir()
		if err != nil {
			return "", err
		}
		out = filepath.Join(sub, name)
		if err := goBuild(pkgs, name, out, tags, sum[:32]); err != nil {
			return "", err
		}
	}
	built[key] = out
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

// buildShared makes the directory out unless it is there already: built
// beside it and renamed into place, so that whoever finds it finds it
// whole.
func buildShared(pkgs []string, name, out string, tags []string, stamp string) error {
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
	if err := goBuild(pkgs, name, part, tags, stamp); err != nil {
		return err
	}
	if err := os.Rename(part, out); err != nil {
		return fmt.Errorf("buildbin: %w", err)
	}
	return nil
}

// contentOf names what pkgs are built from, with tags: a hash of the
// export files of each and of every package they import, whose names in
// the build cache are hashes of their content, and of what else changes a
// build.
func contentOf(pkgs []string, tags []string) (string, error) {
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}"}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	list, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("buildbin: go list -export %s: %w", strings.Join(pkgs, " "), err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\ntags %s\nGOOS %s GOARCH %s GOFLAGS %s\n%s", strings.Join(pkgs, " "), strings.Join(tags, ","),
		goruntime.GOOS, goruntime.GOARCH, os.Getenv("GOFLAGS"), list)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// goBuild runs go build with CGO_ENABLED=0, its binaries written into the
// directory out (one package's called name); a build of more than one
// package links stamp into each (-X main.buildStamp), so that the sabline
// command knows its worker binary as the same build.
func goBuild(pkgs []string, name, out string, tags []string, stamp string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("buildbin: %w", err)
	}
	args := []string{"build", "-o", filepath.Join(out, exeName(name))}
	if len(pkgs) > 1 {
		args = []string{"build", "-o", out + string(filepath.Separator),
			"-ldflags", "-X main.buildStamp=" + stamp}
	}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("buildbin: go build %s: %w\n%s", strings.Join(pkgs, " "), err, msg)
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
	dir, built = "", map[string]string{}
}
