package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// asMain is set in the environment of this test binary started again as
// the agent itself (TestMain).
const asMain = "SABLINE_STORE_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestStoreURL: the agent takes one URL or one absolute path, and
// refuses anything else before it opens a store.
func TestStoreURL(t *testing.T) {
	abs, _ := filepath.Abs("receipts")
	tests := []struct {
		name    string
		args    []string
		wantURL string
		wantErr bool
	}{
		{name: "a URL", args: []string{"s3://receipts?region=x"}, wantURL: "s3://receipts?region=x"},
		{name: "a file URL", args: []string{"file:///srv/r"}, wantURL: "file:///srv/r"},
		{name: "an absolute path", args: []string{abs}, wantURL: abs},
		{name: "a word", args: []string{"version"}, wantErr: true},
		{name: "a relative path", args: []string{"receipts/dir"}, wantErr: true},
		{name: "a flag", args: []string{"-h"}, wantErr: true},
		{name: "nothing", args: nil, wantErr: true},
		{name: "empty", args: []string{""}, wantErr: true},
		{name: "two", args: []string{abs, abs}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := storeURL(tt.args)
			if (err != nil) != tt.wantErr || got != tt.wantURL {
				t.Errorf("storeURL(%q) = %q, %v; want %q, error %v", tt.args, got, err, tt.wantURL,
					tt.wantErr)
			}
		})
	}
}

// TestAgentByHand: the agent started by hand with a word (sabline-store
// version) exits 2 with its usage and makes nothing where it runs; the
// control, started as sabline serve starts it (an absolute path, its
// input closed at once), makes the directory and exits 0.
func TestAgentByHand(t *testing.T) {
	dir := t.TempDir()
	agent := func(arg string) (string, error) {
		cmd := exec.Command(os.Args[0], arg)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), asMain+"=1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := agent("version")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(out, usage) ||
		!strings.Contains(out, `"version" is neither a URL nor an absolute path`) {
		t.Errorf("sabline-store version: %v, %q; want exit status 2 and the usage", err, out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("sabline-store version made %s in %s", entries[0].Name(), dir)
	}
	made := filepath.Join(dir, "receipts")
	if out, err := agent(made); err != nil {
		t.Fatalf("sabline-store %s: %v, %q", made, err, out)
	}
	if fi, err := os.Stat(made); err != nil || !fi.IsDir() {
		t.Errorf("sabline-store %s made no directory: %v", made, err)
	}
}
