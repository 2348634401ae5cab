package cli

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/run"
)

func TestUnderRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("print(1)\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "hello.vel"))
	write(filepath.Join(root, "lib", "a.vel"))
	write(filepath.Join(root, "notes.txt"))
	write(filepath.Join(outside, "secret.vel"))
	linked := os.Symlink(filepath.Join(outside, "secret.vel"), filepath.Join(root, "out.vel")) == nil
	tests := []struct {
		name     string
		path     string
		wantCode codes.Code
		needLink bool
	}{
		{name: "a file in the root", path: "hello.vel"},
		{name: "a file below", path: "lib/a.vel"},
		{name: "dot dot", path: "../" + filepath.Base(outside) + "/secret.vel", wantCode: codes.E316},
		{name: "dot dot inside", path: "lib/../../x.vel", wantCode: codes.E316},
		{name: "absolute", path: filepath.ToSlash(filepath.Join(outside, "secret.vel")), wantCode: codes.E316},
		{name: "backslash", path: `lib\a.vel`, wantCode: codes.E316},
		{name: "not a program", path: "notes.txt", wantCode: codes.E316},
		{name: "missing", path: "nothing.vel", wantCode: codes.E316},
		{name: "a directory", path: "lib", wantCode: codes.E316},
		{name: "a link out of the root", path: "out.vel", wantCode: codes.E316, needLink: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needLink && !linked {
				t.Skip("this system made no symbolic link")
			}
			got, src, err := underRoot(root, tt.path)
			if code := codes.CodeOf(err); code != tt.wantCode {
				t.Fatalf("underRoot(%q): %v, want code %q", tt.path, err, tt.wantCode)
			}
			if err == nil && (got != filepath.Join(root, filepath.FromSlash(tt.path)) || string(src) != "print(1)\n") {
				t.Errorf("underRoot(%q) = %s, %q", tt.path, got, src)
			}
		})
	}
}

// TestDoorRunnerRefuses: each refusal of the runner happens before a
// worker starts, and leaves one receipt saying so: nothing ran.
func TestDoorRunnerRefuses(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	r, err := newDoorRunner(doorOptions{ImportRoot: root, Ceiling: budget.MustParse(root, "io"), Confine: run.ConfineDefault, Receipts: rc, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		req      door.RunRequest
		wantCode codes.Code
	}{
		{name: "wider budget", req: door.RunRequest{Source: "print(1)", Allow: []string{"fs"}}, wantCode: codes.E328},
		{name: "malformed item", req: door.RunRequest{Source: "print(1)", Allow: []string{"fs:frob:x:y"}}, wantCode: codes.E301},
		{name: "path out of the root", req: door.RunRequest{Path: "../x.vel"}, wantCode: codes.E316},
		{name: "missing path", req: door.RunRequest{Path: "x.vel"}, wantCode: codes.E316},
		{name: "program too large", req: door.RunRequest{Source: strings.Repeat("#", lang.MaxProgramBytes+1)}, wantCode: codes.E316},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Run(context.Background(), tt.req)
			if got := codes.CodeOf(err); got != tt.wantCode {
				t.Errorf("Run: %v, want code %s", err, tt.wantCode)
			}
			runs, _ := receipt.List(rc)
			if n := len(runs); n != i+1 || runs[n-1].Outcome.Code != tt.wantCode || runs[n-1].Outcome.Status != receipt.StatusUsage {
				t.Errorf("receipts %d, the newest %+v: want %d, the newest the refusal's, %s, usage (nothing ran)", n, runs, i+1, tt.wantCode)
			}
		})
	}
	if _, err := r.Receipt("0123456789abcdef"); codes.CodeOf(err) != codes.E317 {
		t.Errorf("Receipt of an unknown run: %v, want E317", err)
	}
	if _, err := r.Receipt("../x"); codes.CodeOf(err) != codes.E317 {
		t.Errorf("Receipt of a path: %v, want E317", err)
	}
}

// TestDoorRunnerGuardsTheTokenFile: a program whose budget reads the
// directory holding the server's token file cannot read the token; the
// file beside it it reads.
func TestDoorRunnerGuardsTheTokenFile(t *testing.T) {
	dir, rc := t.TempDir(), t.TempDir()
	token, beside := filepath.Join(dir, "token"), filepath.Join(dir, "beside")
	for _, p := range []string{token, beside} {
		if err := os.WriteFile(p, []byte("s3cr3t"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err := newDoorRunner(doorOptions{Ceiling: budget.MustParse(dir, "io", "fs:read:"+dir), Confine: run.ConfineDefault,
		Receipts: rc, Workers: 1, Guarded: []string{token}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, tt := range []struct {
		path     string
		wantCode string
	}{{beside, ""}, {token, string(codes.E318)}} {
		reply, err := r.Run(context.Background(), door.RunRequest{Source: "print(fs.read(ARGS[0]))", Args: []string{tt.path}})
		if err != nil || reply.Code != tt.wantCode || (tt.wantCode == "") != (reply.Stdout == "s3cr3t\n") {
			t.Errorf("reading %s: %v, code %q, stdout %q; want code %q and the file printed only without one", tt.path, err, reply.Code, reply.Stdout, tt.wantCode)
		}
	}
}

func TestLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.2:0", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{":8080", false},
		{"0.0.0.0:8080", false},
		{"[::]:8080", false},
		{"192.168.1.4:8080", false},
		{"example.org:80", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if got := loopback(tt.addr); got != tt.want {
			t.Errorf("loopback(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestLoadToken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "token")
	tok, made, err := loadToken(path, false)
	if err != nil || !made || len(tok) != 64 {
		t.Fatalf("loadToken of no file: %q %v %v, want a new 64-digit token", tok, made, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if goruntime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %s, want 0600", fi.Mode().Perm())
	}
	again, made, err := loadToken(path, false)
	if err != nil || made || again != tok {
		t.Errorf("loadToken of its own file: %q %v %v, want the same token", again, made, err)
	}
	fresh, made, err := loadToken(path, true)
	if err != nil || !made || fresh == tok {
		t.Errorf("a fresh token: %q %v %v, want a new one", fresh, made, err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadToken(short, false); codes.CodeOf(err) != codes.E301 {
		t.Errorf("a short token: %v, want E301", err)
	}
	if goruntime.GOOS != "windows" {
		open := filepath.Join(dir, "open")
		if err := os.WriteFile(open, []byte("0123456789abcdef0123456789abcdef\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := loadToken(open, false); codes.CodeOf(err) != codes.E301 {
			t.Errorf("a token others can read: %v, want E301", err)
		}
		if err := os.Chmod(open, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _, err := loadToken(open, false); err != nil || got != "0123456789abcdef0123456789abcdef" {
			t.Errorf("the same token, mode 0600: %q %v", got, err)
		}
	}
}

// onlyRefusals checks that every receipt in dir past the first before
// says the run was refused before it started: nothing ran.
func onlyRefusals(t *testing.T, dir string, before int) {
	t.Helper()
	runs, err := receipt.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs[before:] {
		if o := r.Outcome; o.Status != receipt.StatusUsage && o.Status != receipt.StatusRefused {
			t.Errorf("receipt %s after a refusal says %s (%s): something ran", r.RunID, o.Status, o.Message)
		}
	}
}
