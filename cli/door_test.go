package cli

import (
	"bytes"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/cli/internal/cmdline"
)

// TestDoorStarted: without the doors linked, sabline serve and sabline
// mcp run the sabline-door found on PATH (none beside a test binary) as
// a child when the streams are not this process's own: its arguments,
// the build it must be, its output and its exit status are the
// command's. With no sabline-door anywhere, the command is E338.
func TestDoorStarted(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("the stand-in sabline-door is a shell script")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"$@\"\necho \"build=$" + cmdline.BuildEnv + "\"\nexit 7\n"
	if err := os.WriteFile(filepath.Join(dir, cmdline.DoorName), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		path       string
		args       []string
		wantStatus int
		wantOut    string
		wantErr    string
	}{
		{name: "serve", path: dir, args: []string{"serve", "--listen", "127.0.0.1:0"}, wantStatus: 7,
			wantOut: "serve --listen 127.0.0.1:0\nbuild=" + cmdline.Build() + "\n"},
		{name: "mcp", path: dir, args: []string{"mcp", "--workers", "1"}, wantStatus: 7,
			wantOut: "mcp --workers 1\nbuild=" + cmdline.Build() + "\n"},
		{name: "help of a door", path: dir, args: []string{"help", "serve"}, wantStatus: 7,
			wantOut: "help serve\nbuild=" + cmdline.Build() + "\n"},
		{name: "no sabline-door", path: t.TempDir(), args: []string{"serve"}, wantStatus: 2,
			wantErr: "E338: sabline serve: no sabline-door beside this executable nor on PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", tt.path)
			var out, errOut bytes.Buffer
			status := Main(tt.args, strings.NewReader(""), &out, &errOut)
			if status != tt.wantStatus || out.String() != tt.wantOut ||
				!strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("sabline %s: %d, stdout %q, stderr %q; want %d, %q and %q",
					strings.Join(tt.args, " "), status, out.String(), errOut.String(), tt.wantStatus,
					tt.wantOut, tt.wantErr)
			}
		})
	}
}
