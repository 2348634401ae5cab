package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestRefusalsDoNotProbe: under a narrow grant, a refusal of a path
// outside it names the path as written and the grant it lacks, and says
// the same whatever lies there: a file, a missing name, a directory with
// a missing name in it, a loop of links, a link to the root. A program
// (or a door's client) learns nothing of what exists beyond its grants,
// however many runs it makes. The control is the same paths under a grant
// that covers them, where the system's answers do differ.
func TestRefusalsDoNotProbe(t *testing.T) {
	w := newPathWorld(t)
	if err := os.Mkdir(filepath.Join(w.o, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "loop", filepath.Join(w.o, "loop"))
	symlink(t, "/", filepath.Join(w.o, "up"))
	paths := []string{"$O/secret.txt/x", "$O/none/x", "$O/sub/none/x", "$O/loop/x", "$O/up/x", "$O/sub/../none/x"}
	for _, effect := range []string{`v = fs.read(%q)`, `v = fs.exists(%q)`, `v = fs.list(%q)`, `fs.write(%q, "x")`,
		`fs.mkdir(%q)`, `fs.remove(%q)`} {
		verb := strings.TrimPrefix(strings.SplitN(effect, "(", 2)[0], "v = ")
		t.Run(verb, func(t *testing.T) {
			said := map[string]string{} // the refusal, with the path as written made "P", by path
			for _, p := range paths {
				stmt := strings.Replace(effect, "%q", `"`+p+`"`, 1)
				r := w.runIn(t, "fs:"+access(effect)+":$G", stmt, "")
				if codes.CodeOf(r.err) != codes.E302 {
					t.Fatalf("%s: %v, want E302", w.fill(stmt), r.err)
				}
				msg := r.err.(*codes.Error).Msg
				if !strings.Contains(msg, "add fs:"+access(effect)+":"+filepath.Clean(w.fill(p))) {
					t.Errorf("%s: %q does not name the grant the path as written needs", w.fill(stmt), msg)
				}
				said[p] = strings.NewReplacer(w.fill(p), "P", filepath.Clean(w.fill(p)), "P").Replace(msg)
			}
			for _, p := range paths[1:] {
				if said[p] != said[paths[0]] {
					t.Errorf("the refusals tell %s from %s:\n%s\n%s", p, paths[0], said[paths[0]], said[p])
				}
			}
			// The control: under fs, the system's answers tell them apart.
			answers := map[string]bool{}
			for _, p := range paths {
				r := w.runIn(t, "fs", strings.Replace(effect, "%q", `"`+p+`"`, 1), "")
				answers[strings.NewReplacer(w.fill(p), "P").Replace(errText(r.err))] = true
			}
			if len(answers) < 2 {
				t.Errorf("under fs every path had the same answer %v: the control tells nothing", answers)
			}
		})
	}
}

// TestRefusalsThroughALinkDoNotProbe: a path a grant covers as written,
// whose walk leads outside every grant through a link inside it ($G/outdir,
// a link to $O), is refused as leading outside (E302), and says the same
// whatever lies beyond: a loop of links, a missing name, a directory, a
// file. Before, a walk that could not go on there was answered with the
// system's word (E314, "more than 40 links, or a loop of them"; a
// directory it may not search, "permission denied"), which told the
// program what lies outside its grants. The control: the same names in
// the grant itself, where the system's answers differ.
func TestRefusalsThroughALinkDoNotProbe(t *testing.T) {
	w := newPathWorld(t)
	for _, d := range []string{w.o, w.g} {
		if err := os.Mkdir(filepath.Join(d, "dir"), 0o755); err != nil {
			t.Fatal(err)
		}
		symlink(t, "loop", filepath.Join(d, "loop"))
	}
	names := []string{"loop/x", "none/x", "dir/x", "secret.txt/x"}
	for _, effect := range []string{`v = fs.read(%q)`, `v = fs.exists(%q)`, `v = fs.list(%q)`,
		`fs.write(%q, "x")`, `fs.mkdir(%q)`, `fs.remove(%q)`} {
		verb := strings.TrimPrefix(strings.SplitN(effect, "(", 2)[0], "v = ")
		t.Run(verb, func(t *testing.T) {
			said := map[string]string{} // the refusal, the path as written made "P", by name
			for _, n := range names {
				p := "$G/outdir/" + n
				stmt := strings.Replace(effect, "%q", `"`+p+`"`, 1)
				r := w.runIn(t, "fs:"+access(effect)+":$G", stmt, "")
				if codes.CodeOf(r.err) != codes.E302 {
					t.Errorf("%s: %v, want E302", w.fill(stmt), r.err)
					continue
				}
				said[n] = strings.ReplaceAll(r.err.(*codes.Error).Msg, w.fill(p), "P")
				if !strings.Contains(said[n], "leads outside every grant") {
					t.Errorf("%s: %q does not say it leads outside", w.fill(stmt), said[n])
				}
			}
			for _, n := range names[1:] {
				if said[n] != said[names[0]] {
					t.Errorf("the refusals tell %s from %s:\n%s\n%s", n, names[0], said[names[0]], said[n])
				}
			}
			// The control: in the grant, the system's answers tell them apart.
			answers := map[string]bool{}
			for _, n := range names {
				p := "$G/" + n
				r := w.runIn(t, "fs:"+access(effect)+":$G", strings.Replace(effect, "%q", `"`+p+`"`, 1), "")
				answers[strings.ReplaceAll(errText(r.err), w.fill(p), "P")] = true
			}
			if len(answers) < 2 {
				t.Errorf("in the grant every name had the same answer %v: the control tells nothing", answers)
			}
		})
	}
}

func access(effect string) string {
	if strings.HasPrefix(effect, "v = ") {
		return "read"
	}
	return "write"
}

func errText(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}

// TestRemoveGrantRootBySpelling: fs.remove never removes a granted
// directory, or the working directory, itself: the direct spelling was
// refused, and now every spelling is, since each is judged from the
// directory opened for the grant (unconfined, "/tmp/.." + the grant's
// path removed it). An entry within the grant, the control, is removed.
func TestRemoveGrantRootBySpelling(t *testing.T) {
	w := newPathWorld(t)
	if err := os.Mkdir(filepath.Join(w.g, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(w.o, "cwd"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		wantErr bool
		gone    string // what the control removes
	}{
		{name: "the grant, directly", path: "$G", wantErr: true},
		{name: "the grant, by /tmp/..", path: "/tmp/..$G", wantErr: true},
		{name: "the grant, by a sibling's ..", path: "$O/../g", wantErr: true},
		{name: "the grant, by its own entry's ..", path: "$G/d/../../g", wantErr: true},
		{name: "the grant, by a link's ..", path: "$G/sub/../../g", wantErr: true},
		{name: "the grant, relative", path: "../../g", wantErr: true},
		{name: "the working directory, by ..", path: "../cwd", wantErr: true},
		{name: "an empty directory within the grant", path: "$G/../g/empty", gone: "$G/empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := NewInterp(Config{Budget: budget.MustParse(w.g, "fs:write:"+w.g, "fs:write:"+w.o), Cwd: filepath.Join(w.o, "cwd"),
				Guard: guardOf(w.home, w.receipts)})
			_, err := in.fsRemove("fs.remove", w.fill(tt.path))
			switch {
			case tt.wantErr:
				if codes.CodeOf(err) != codes.E314 || !strings.Contains(err.Error(), "a granted directory itself") {
					t.Fatalf("fs.remove(%s): %v, want E314 naming a granted directory itself", w.fill(tt.path), err)
				}
				for _, d := range []string{w.g, filepath.Join(w.o, "cwd")} {
					if _, err := os.Stat(d); err != nil {
						t.Fatalf("%s is gone: %v", d, err)
					}
				}
			case err != nil:
				t.Fatalf("fs.remove(%s): %v", w.fill(tt.path), err)
			default:
				if _, err := os.Stat(w.fill(tt.gone)); !os.IsNotExist(err) {
					t.Fatalf("%s: %v, want it removed", w.fill(tt.gone), err)
				}
			}
		})
	}
}

// TestReadWhatIsAFile: fs.read reads regular files and, at most 1 MiB of
// it, a device; a named pipe in a granted directory is refused at once
// (E314), where the read waited for a writer without end, and so is a
// write to one. A device node outside /dev is refused wherever it is
// (E318), as in /dev. The controls: a regular file, /dev/null. fs.write
// of /dev/null writes, as the kernel's O_TRUNC does, where the write
// emptied the device first and failed (E314, "truncate null: invalid
// argument"); its control is fs.append, which empties nothing.
func TestReadWhatIsAFile(t *testing.T) {
	w := newPathWorld(t)
	if err := mkfifo(filepath.Join(w.g, "fifo")); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	node := filepath.Join(w.g, "null-node")
	devices := mknodNull(node) == nil
	tests := []struct {
		name     string
		grant    string
		stmt     string
		want     string // over v, for a run that ends
		wantCode codes.Code
		wantMsg  string
		device   bool // the row needs the device node made
	}{
		{name: "a regular file", grant: "fs:read:$G", stmt: `v = fs.read("$G/real.txt")`, want: `v == "real"`},
		{name: "/dev/null", grant: "fs:read", stmt: `v = fs.read("/dev/null")`, want: `v == ""`},
		{name: "/dev/null, written", grant: "fs:write", stmt: `v = fs.write("/dev/null", "x")`,
			want: `v == None`},
		{name: "/dev/null, appended", grant: "fs:write", stmt: `v = fs.append("/dev/null", "x")`,
			want: `v == None`},
		{name: "/dev/zero", grant: "fs:read", stmt: `v = fs.read("/dev/zero")`, wantCode: codes.E314,
			wantMsg: "a device that gives more than 1048576 bytes"},
		{name: "/dev/urandom", grant: "fs:read", stmt: `v = fs.read("/dev/urandom")`, wantCode: codes.E314,
			wantMsg: "a device that gives more than 1048576 bytes"},
		{name: "a named pipe, read", grant: "fs:read:$G", stmt: `v = fs.read("$G/fifo")`, wantCode: codes.E314,
			wantMsg: "neither a regular file nor a device"},
		{name: "a named pipe, written", grant: "fs:write:$G", stmt: `fs.write("$G/fifo", "x")`, wantCode: codes.E314,
			wantMsg: "neither a regular file nor a device"},
		{name: "a device node outside /dev", grant: "fs:read:$G", stmt: `v = fs.read("$G/null-node")`, wantCode: codes.E318,
			wantMsg: "a device", device: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.device && !devices {
				t.Skip("no device node can be made here (mknod needs root)")
			}
			done := make(chan ran, 1)
			go func() { done <- w.runIn(t, tt.grant, tt.stmt, tt.want) }()
			var r ran
			select {
			case r = <-done:
			case <-time.After(testkit.Bound(10 * time.Second)):
				t.Fatal("the effect waited: it opened the pipe")
			}
			if tt.wantCode == "" {
				if r.err != nil {
					t.Fatal(r.err)
				}
				return
			}
			testkit.WantError(t, r.err, tt.wantCode, callPos(r.prog, "v = None\n"+w.fill(tt.stmt), 2), tt.wantMsg)
		})
	}
}

// TestOpenLastNameNoFollow: the last name of a path is opened without
// following a link, whatever the flags: a link is errIsLink, for the walk
// to read and judge where it leads, and a dangling link opened to create
// makes no file where it leads. The control is the file itself.
func TestOpenLastNameNoFollow(t *testing.T) {
	w := newPathWorld(t)
	d, err := openRoot(w.g)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDir(d)
	for _, tt := range []struct {
		name string
		flag int
	}{
		{name: "in", flag: os.O_RDONLY},
		{name: "out", flag: os.O_RDONLY},
		{name: "missing", flag: os.O_WRONLY | os.O_CREATE},
	} {
		f, err := openFileAt(d, tt.name, tt.flag, 0o644)
		if err != errIsLink {
			if f != nil {
				f.Close()
			}
			t.Errorf("open %s (flags %#x): %v, want errIsLink", tt.name, tt.flag, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(w.o, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it never made through the dangling link", filepath.Join(w.o, "new.txt"), err)
	}
	f, err := openFileAt(d, "real.txt", os.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("the control: %v", err)
	}
	f.Close()
}
