package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

func TestMain(m *testing.M) {
	code := testkit.RunApart(m) // the binaries it runs join a register of its own
	buildbin.Cleanup()
	os.Exit(code)
}

// TestEmbeddedModule runs distance.vel with the embedding binary: the
// worker has the module registered in main, the budget still decides
// whether the program may load it, and the level says what the kernel
// held.
func TestEmbeddedModule(t *testing.T) {
	bin, err := buildbin.Build("github.com/sabline/sabline/examples/embed", "embed")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantExit   int
		wantStdout string
		wantStderr string
		wantLevel  string
	}{
		{name: "strict holds the module to the budget", args: []string{"--allow", "io,ffi:geo", "--confine", "strict"},
			wantStdout: "Paris to Berlin: 877 km\n", wantLevel: `"confinement": "full"`},
		{name: "without strict the module turns the OS layer off, and says so", args: []string{"--allow", "io,ffi:geo"},
			wantStdout: "Paris to Berlin: 877 km\n", wantStderr: "ffi:geo is not in the confinement table", wantLevel: `"confinement": "none"`},
		{name: "not granted", args: []string{"--allow", "io"}, wantExit: 1, wantStderr: "E302", wantLevel: `"confinement": "full"`},
		{name: "a module registered nowhere is a typo, and the list names the embedded one", args: []string{"--allow", "io,ffi:gep"}, wantExit: 2,
			wantStderr: `E301: --allow: ffi:gep: no host module "gep" is registered in this build; the registered ones are ctypes, geo, hashlib,`,
			wantLevel:  `"code": "E301"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc := t.TempDir()
			cmd := exec.Command(bin, append([]string{"--receipts", rc, "distance.vel"}, tc.args...)...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if got := cmd.ProcessState.ExitCode(); got != tc.wantExit {
				t.Fatalf("exit %d, want %d (%v)\nstderr: %s", got, tc.wantExit, err, stderr.String())
			}
			if stdout.String() != tc.wantStdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.wantStdout)
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tc.wantStderr)
			}
			receipts, _ := filepath.Glob(filepath.Join(rc, "*.json"))
			if len(receipts) != 1 {
				t.Fatalf("%d receipts, want 1", len(receipts))
			}
			data, err := os.ReadFile(receipts[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.wantLevel) {
				t.Errorf("receipt does not say %s:\n%s", tc.wantLevel, data)
			}
		})
	}
}
