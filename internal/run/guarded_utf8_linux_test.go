package run

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/receipt"
)

// rawReads opens the file named on its standard input (its bytes as they
// are) by raw calls, the kernel alone judging the open, and writes what
// it reads of it to its standard output, or says the open's errno.
const rawReads = `c = ffi.module("ctypes")
fd = c.syscall("openat", -100, io.read_line(), 0)
if fd.ret < 0:
    print("refused", fd.errno)
else:
    buf = c.syscall("mmap", 0, 4096, 3, 0x22, -1, 0).ret  # PROT_READ|WRITE, PRIVATE|ANONYMOUS
    c.syscall("write", 1, buf, c.syscall("read", fd.ret, buf, 4096).ret)
`

// superviseRawRead runs rawReads under ffi:ctypes and allow, strict (the
// kernel holds it, Landlock), handed file on its standard input.
func superviseRawRead(t *testing.T, allow []string, file string, edit func(*Run)) supervised {
	t.Helper()
	s := superviseProgram(t, rawReads, append([]string{"io", "ffi:ctypes"}, allow...),
		func(r *Run) {
			r.Confine = core.ModeStrict
			r.Stdin = strings.NewReader(file + "\n")
			if edit != nil {
				edit(r)
			}
		})
	t.Logf("outcome %s %s %q at %s, stdout %q", s.rec.Outcome.Status, s.rec.Outcome.Code,
		s.rec.Outcome.Message, s.rec.RunParameters.Confinement, s.stdout)
	return s
}

// writeFile writes content in dir/name, skipping the test where the file
// system takes no such name.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		if errors.Is(err, fs.ErrInvalid) || errors.Is(err, os.ErrPermission) {
			t.Skipf("this file system takes no name %q: %v", name, err)
		}
		t.Fatal(err)
	}
	return p
}

// TestGuardedMatchNotUTF8: SABLINE_CREDENTIALS names dir/*.key, and a
// run granted fs:read of dir, strict, read dir/k\xe9.key by raw calls
// and printed it, at full. The file matched the pattern, and the kernel
// was to hold it out of the grant (a carve-out), but the worker is
// handed its path in a JSON string, where the byte became U+FFFD: the
// carving held out k\ufffd.key, not there. Such a budget is now refused
// before anything runs (E301), naming the file. The controls: the same
// run where the match is named in UTF-8 (k.key) has its open refused by
// the kernel, and a grant of a directory beside dir reads a file there.
// The variable is read once per process, so the test runs again in a
// process that has it from the start.
func TestGuardedMatchNotUTF8(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	const dirEnv = "SABLINE_TEST_MATCH_DIR"
	work := os.Getenv(dirEnv)
	if work == "" {
		work = t.TempDir()
		for _, d := range []string{"latin1", "utf8", "beside"} {
			if err := os.Mkdir(filepath.Join(work, d), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestGuardedMatchNotUTF8$", "-test.v",
			"-test.count=1")
		cmd.Env = append(os.Environ(), dirEnv+"="+work, guard.CredentialsEnv+"="+
			filepath.Join(work, "latin1", "*.key")+":"+filepath.Join(work, "utf8", "*.key"))
		out, err := cmd.CombinedOutput()
		t.Logf("the test in a process with %s set:\n%s", guard.CredentialsEnv, out)
		if err == nil && strings.Contains(string(out), "--- SKIP: TestGuardedMatchNotUTF8 ") {
			t.Skip("skipped in the process with the variable set")
		}
		if err != nil || !strings.Contains(string(out), "--- PASS: TestGuardedMatchNotUTF8 ") {
			t.Fatalf("the test in a process with %s set: %v", guard.CredentialsEnv, err)
		}
		return
	}
	for _, tc := range []struct {
		name, dir, file string
		code            codes.Code
	}{
		{name: "a match not UTF-8 beneath the grant", dir: "latin1", file: "k\xe9.key",
			code: codes.E301},
		{name: "control: a match named in UTF-8", dir: "utf8", file: "k.key"},
		{name: "control: a grant beside it", dir: "beside", file: "k.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const content = "bytes-of-a-key"
			dir := filepath.Join(work, tc.dir)
			file := writeFile(t, dir, tc.file, content)
			defer os.Remove(file)
			s := superviseRawRead(t, []string{"fs:read:" + dir}, file, nil)
			if lvl := s.rec.RunParameters.Confinement; tc.code == "" && lvl != core.Full {
				t.Skipf("level %s (%s): the kernel holds no open here", lvl,
					s.rec.RunParameters.ConfinementReason)
			}
			switch {
			case tc.code != "":
				wantCode(t, s, tc.code, `holds "`)
				if !strings.Contains(s.rec.Outcome.Message, `k\xe9.key`) ||
					strings.Contains(s.stdout, content) {
					t.Fatalf("message %q, stdout %q: want the file named, and not read",
						s.rec.Outcome.Message, s.stdout)
				}
			case tc.dir == "beside":
				if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, content) {
					t.Fatalf("the control: outcome %+v, stdout %q; want the file read", s.rec.Outcome,
						s.stdout)
				}
			default:
				if s.rec.Outcome.Status != receipt.StatusOK || s.stdout != "refused EACCES\n" {
					t.Fatalf("the control: outcome %+v, stdout %q; want the open refused",
						s.rec.Outcome, s.stdout)
				}
			}
		})
	}
}

// TestTLSRootNotUTF8: the operator's TLS roots are held as grants are
// under a net grant, and their paths reach the worker in JSON strings
// too. SSL_CERT_DIR named a directory holding the run's receipts
// directory, r\xe9c: the carving held out r\ufffdc, not there, and a
// strict run's raw calls read a receipt in it, at full. SSL_CERT_FILE
// named a link to c\xe9rt.pem: the worker found it resolving otherwise
// than its admission said, withheld it and said "a link was made on its
// way", which no one had made. Both are refused now (E301). The
// controls: the same receipts directory named rec, whose receipt the
// kernel refuses to the raw calls; r\xe9c under a budget with no net
// grant, which holds no TLS root; and a link to cert.pem, read.
func TestTLSRootNotUTF8(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	const content = "bytes-held-out"
	for _, tc := range []struct {
		name, receipts, cert string
		net                  bool
		code                 codes.Code
		said, stdout         string
	}{
		{name: "SSL_CERT_DIR above a receipts directory not UTF-8", receipts: "r\xe9c",
			net: true, code: codes.E301, said: `holds "`},
		{name: "control: a receipts directory named in UTF-8", receipts: "rec", net: true,
			stdout: "refused EACCES\n"},
		{name: "control: no net grant", receipts: "r\xe9c", stdout: "refused EACCES\n"},
		{name: "SSL_CERT_FILE a link to a file not UTF-8", cert: "c\xe9rt.pem", net: true,
			code: codes.E301, said: "leads to"},
		{name: "control: SSL_CERT_FILE a link to a file in UTF-8", cert: "cert.pem", net: true,
			stdout: content},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			var file string
			t.Setenv("SSL_CERT_FILE", "")
			t.Setenv("SSL_CERT_DIR", "")
			edit := func(*Run) {}
			if tc.receipts != "" {
				receipts := filepath.Join(work, tc.receipts)
				if err := os.Mkdir(receipts, 0o700); err != nil {
					t.Skipf("this file system takes no name %q: %v", tc.receipts, err)
				}
				file = writeFile(t, receipts, "a-receipt.json", content)
				t.Setenv("SSL_CERT_DIR", work)
				edit = func(r *Run) { r.Receipts, r.Guarded = receipts, []string{receipts} }
			} else {
				file = writeFile(t, work, tc.cert, content)
				link := filepath.Join(work, "roots.pem")
				if err := os.Symlink(tc.cert, link); err != nil {
					t.Fatal(err)
				}
				t.Setenv("SSL_CERT_FILE", link)
			}
			var allow []string
			if tc.net {
				allow = []string{"net:127.0.0.1:9"}
			}
			s := superviseRawRead(t, allow, file, edit)
			if tc.code != "" {
				wantCode(t, s, tc.code, tc.said)
				if strings.Contains(s.stdout, content) {
					t.Fatalf("stdout %q: the file was read", s.stdout)
				}
				return
			}
			if lvl := s.rec.RunParameters.Confinement; lvl != core.Full {
				t.Skipf("level %s (%s): the kernel holds no open here", lvl,
					s.rec.RunParameters.ConfinementReason)
			}
			if s.rec.Outcome.Status != receipt.StatusOK || s.stdout != tc.stdout {
				t.Fatalf("the control: outcome %+v, stdout %q; want %q", s.rec.Outcome, s.stdout,
					tc.stdout)
			}
		})
	}
}
