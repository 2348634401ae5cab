//go:build unix

package cmdline

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestStartAgentAbsolute: a store named by a path alone reaches the
// agent as an absolute path, which is all it takes (sabline-store's
// TestStoreURL); a URL reaches it as given. The agent here is a script
// that writes down its argument and exits.
func TestStartAgentAbsolute(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent")
	got := filepath.Join(dir, "arg")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+got+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, url, want string }{
		{name: "a path alone", url: "receipts/here", want: filepath.Join(wd, "receipts/here")},
		{name: "a URL", url: "s3://receipts?region=x", want: "s3://receipts?region=x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(got)
			a, err := StartAgent(tt.url, script, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			<-a.Done()
			b, err := os.ReadFile(got)
			if err != nil || string(b) != tt.want {
				t.Errorf("the agent was given %q (%v), want %q", b, err, tt.want)
			}
		})
	}
}
