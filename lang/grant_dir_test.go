package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// TestWriteGrantIsADirectory: fs:write:out.txt names a directory, made
// before the run when out.txt did not exist, so that writing the file
// out.txt meets "is a directory": the refusal says why and what to grant
// instead (before, it said only the system's answer, and its advice was
// that the budget had allowed it). A directory beneath a grant that is
// not a grant's own path keeps the system's answer, and so does a read
// of a directory a read grant names (a read grant names a file or a
// directory, and none is made: the advice is a write grant's alone); the
// control grants the directory above, as the refusal advises, and the
// file is written.
func TestWriteGrantIsADirectory(t *testing.T) {
	tests := []struct {
		name     string
		read     bool   // a read grant, and a read of target
		grant    string // beneath the scratch directory
		made     string // a directory there before the run
		target   string
		wantCode codes.Code
		wantMsg  string
	}{
		{name: "the grant's own path", grant: "out.txt", made: "out.txt", target: "out.txt",
			wantCode: codes.E314, wantMsg: "to write a file of that name, grant the directory it is in"},
		{name: "a directory beneath a grant", grant: ".", made: "sub", target: "sub",
			wantCode: codes.E314, wantMsg: "is a directory"},
		{name: "the directory above granted (the control)", grant: ".", target: "out.txt"},
		// A read grant is of a directory or a file, and is made by none:
		// a read of a directory it names keeps the system's answer.
		{name: "a read grant's own path", read: true, grant: "data", made: "data", target: "data",
			wantCode: codes.E314, wantMsg: "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if tt.made != "" {
				if err := os.Mkdir(filepath.Join(dir, tt.made), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			access, stmt := "write", `fs.write("`+tt.target+`", "x")`
			if tt.read {
				access, stmt = "read", `fs.read("`+tt.target+`")`
			}
			b := budget.MustParse(dir, "fs:"+access+":"+filepath.Join(dir, tt.grant))
			r := runSrc(t, Config{Budget: b, Cwd: dir}, stmt+"\n")
			if codes.CodeOf(r.err) != tt.wantCode {
				t.Fatalf("error %v, want code %q", r.err, tt.wantCode)
			}
			if tt.wantCode != "" {
				if !strings.Contains(r.err.Error(), tt.wantMsg) {
					t.Errorf("error %q, want it to say %q", r.err, tt.wantMsg)
				}
				const hint = "grant the directory it is in"
				if strings.Contains(r.err.Error(), hint) != strings.Contains(tt.wantMsg, hint) {
					t.Errorf("error %q: want the advice %q only on a grant's own path", r.err, hint)
				}
				return
			}
			if b, err := os.ReadFile(filepath.Join(dir, tt.target)); err != nil || string(b) != "x" {
				t.Errorf("the file written: %q, %v; want x", b, err)
			}
		})
	}
}
