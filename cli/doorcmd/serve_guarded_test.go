package doorcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeNarrowsOntoNoGuardedLocation: a client of sabline serve may
// narrow the operator's ceiling, never onto a guarded location it does
// not name: with the ceiling fs:read, a request granted the home's .ssh,
// the server's own token file or a dot-entry of the home is refused (403,
// E328) and its answer carries neither the key nor the token; a request
// narrowed onto a plain directory, its control, reads it. With the
// ceiling fs, a request granted the receipts for writing is refused, and
// the receipts directory is as it was.
func TestServeNarrowsOntoNoGuardedLocation(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for rel, data := range map[string]string{".ssh/id_test": "secret key", ".config/app/conf": "settings",
		"plain/notes.txt": "notes"} {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	read := func(allow []string, path string) string {
		body, err := json.Marshal(map[string]any{"source": "print(fs.read(ARGS[0]))", "args": []string{path}, "allow": allow})
		if err != nil {
			t.Fatal(err)
		}
		return string(body)
	}

	s := startServe(t, "--allow", "fs:read")
	token := filepath.Join(s.rc, tokenFileName)
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantCode   string
		wantOut    string
	}{
		{name: "the home's .ssh", body: read([]string{"io", "fs:read:" + home + "/.ssh"}, home+"/.ssh/id_test"),
			wantStatus: 403, wantCode: "E328"},
		{name: "the server's token", body: read([]string{"io", "fs:read:" + token}, token),
			wantStatus: 403, wantCode: "E328"},
		{name: "a dot-entry the ceiling does not name", body: read([]string{"io", "fs:read:" + home + "/.config/app"}, home+"/.config/app/conf"),
			wantStatus: 403, wantCode: "E328"},
		{name: "a plain directory of the home", body: read([]string{"io", "fs:read:" + home + "/plain"}, home+"/plain/notes.txt"),
			wantStatus: 200, wantOut: "notes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, v := s.do(t, "POST", "/v1/run", s.token, tt.body)
			answer, _ := json.Marshal(v)
			if st != tt.wantStatus || (tt.wantCode != "" && !strings.Contains(string(answer), `"code":"`+tt.wantCode+`"`)) {
				t.Fatalf("status %d, answer %s; want %d %s", st, answer, tt.wantStatus, tt.wantCode)
			}
			if strings.Contains(string(answer), "secret key") || strings.Contains(string(answer), s.token) {
				t.Errorf("the answer carries the key or the token: %s", answer)
			}
			if tt.wantOut != "" && !strings.Contains(string(answer), tt.wantOut) {
				t.Errorf("the answer %s does not carry %q", answer, tt.wantOut)
			}
		})
	}

	w := startServe(t, "--allow", "fs")
	before, err := os.ReadDir(w.rc)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"source": `fs.write(ARGS[0], "{}")`, "args": []string{filepath.Join(w.rc, "forged.json")},
		"allow": []string{"io", "fs:write:" + w.rc}})
	if st, v := w.do(t, "POST", "/v1/run", w.token, string(body)); st != 403 {
		t.Errorf("a write grant of the receipts: status %d, %v; want 403, E328", st, v)
	}
	if _, err := os.Lstat(filepath.Join(w.rc, "forged.json")); err == nil {
		t.Error("the receipt was forged")
	}
	after, err := os.ReadDir(w.rc)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) > len(before)+1 { // the refusal's own receipt may be kept there
		t.Errorf("the receipts directory went from %d entries to %d", len(before), len(after))
	}
}
