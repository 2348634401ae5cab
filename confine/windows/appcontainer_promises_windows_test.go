//go:build windows

package windows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// systemPromiseWorld is this machine: the machine-wide ACE mutex, the
// DACLs of scratch paths, a scratch records directory (not the machine's
// own, which runs of the installed command share), and the process's own
// token. Profiles are not made: the SIDs are well formed and name no
// profile, and the sweep's deletions are recorded instead.
func systemPromiseWorld(t *testing.T) (*promiseWorld, string) {
	lock, err := newMutexLock()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lock.close)
	dir, records := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "granted.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	return &promiseWorld{
		host: aceHost{Lock: lock, ACL: fileACL{}, Records: fileRecords{dir: records}, LockWait: aceLockWait,
			DeleteProfile: func(name string) error { deleted = append(deleted, name); return nil }},
		sids:  [2]string{"S-1-15-2-1-2-3-4-5-6-7", "S-1-15-2-1-2-3-4-5-6-8"},
		paths: []string{t.TempDir(), dir, file},
		holds: func(t *testing.T, path, sid string) bool {
			t.Helper()
			sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
			if err != nil {
				t.Fatalf("GetNamedSecurityInfo(%s): %v", path, err)
			}
			return strings.Contains(sd.String(), sid)
		},
		recordExists: func(name string) bool {
			_, err := os.Stat(filepath.Join(records, name))
			return err == nil
		},
		deleted:      func() []string { return deleted },
		ownContainer: ownContainer,
	}, ""
}
