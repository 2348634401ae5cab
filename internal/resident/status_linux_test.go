package resident

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusReadsLongFile: a status file whose Groups line, before the
// counted lines, takes it past one read of 4 KiB (a user in hundreds of
// groups) is read whole; one whose lines are not a status file's is
// refused when opened, and one past the bound when read.
func TestStatusReadsLongFile(t *testing.T) {
	counted := line("RssAnon", 7000) + line("RssFile", 3000) + line("RssShmem", 100) +
		line("VmSwap", 24)
	for _, tt := range []struct {
		name    string
		status  string
		want    uint64
		wantErr string
	}{
		{name: "long Groups", status: "Name:\tsabline\nGroups:" +
			strings.Repeat(" 1234567890", 500) + "\n" + counted, want: (7000 + 100 + 24) << 10},
		{name: "no counted lines", status: "Name:\tsabline\n", wantErr: "no RssAnon"},
		{name: "past the bound", status: "Groups:" + strings.Repeat(" 1", maxStatus) + "\n" +
			counted, wantErr: "no RssAnon"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "status")
			if err := os.WriteFile(path, []byte(tt.status), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path)
			var got uint64
			if err == nil {
				defer s.Close()
				got, err = s.Held()
			}
			switch {
			case tt.wantErr == "" && (err != nil || got != tt.want):
				t.Errorf("read %d bytes: %d, %v; want %d", len(tt.status), got, err, tt.want)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("read %d bytes: %d, %v; want an error saying %q", len(tt.status), got,
					err, tt.wantErr)
			}
		})
	}
}

// TestOfProcess: the status of a process the test started is read from
// outside it while it runs, and no longer once it has been waited for.
func TestOfProcess(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to start: %v", err)
	}
	s, err := OfProcess(cmd.Process.Pid)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	defer s.Close()
	held, err := s.Held()
	if err != nil || held == 0 {
		t.Errorf("a running process holds %d bytes (%v), want more than 0", held, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if held, err := s.Held(); err == nil {
		t.Errorf("a process waited for holds %d bytes, want an error", held)
	}
}
