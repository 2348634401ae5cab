package lang

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.starlark.net/starlark"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// symlink makes link point at target; systems without links for an
// unprivileged process skip the test.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		if goruntime.GOOS == "windows" {
			t.Skipf("symbolic links need a privilege here: %v", err)
		}
		t.Fatal(err)
	}
}

// ran is the result of one in-process run.
type ran struct {
	prog   string // absolute path of the program file
	stdout string
	err    error
	in     *Interp
}

// runSrc writes src as main.vel in a scratch directory of its own, then
// compiles and runs it in-process under c, with standard output captured.
// A program that does not compile fails the test.
func runSrc(t *testing.T, c Config, src string) ran {
	t.Helper()
	prog := filepath.Join(testkit.Scratch(t), "main.vel")
	testkit.WriteFile(t, prog, src)
	var out bytes.Buffer
	c.Stdout = &out
	if c.Stdin == nil {
		c.Stdin = strings.NewReader("")
	}
	in := NewInterp(c)
	compiled, err := in.Compile(prog, PredeclaredNames()) // as a job compiles and runs
	if err != nil {
		t.Fatalf("compile %q: %v", src, err)
	}
	err = in.Exec(compiled, in.PredeclaredFor(compiled))
	return ran{prog: prog, stdout: out.String(), err: err, in: in}
}

// callPos is the position a refusal of the call on line (1-based) of src
// reports: the line and the column of the call's opening parenthesis, the
// first one on the line.
func callPos(prog, src string, line int) string {
	l := strings.Split(src, "\n")[line-1]
	return fmt.Sprintf("%s:%d:%d", prog, line, strings.Index(l, "(")+1)
}

// usesOf is how often the grant written as item was used in the run.
func usesOf(t *testing.T, in *Interp, item string) int {
	t.Helper()
	for _, u := range in.Usage() {
		if u.Grant == item {
			return u.Uses
		}
	}
	t.Fatalf("no grant %q in the usage %+v", item, in.Usage())
	return 0
}

// snapshot maps every path under dir to its contents ("/" for a
// directory, "-> target" for a link).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[p] = "-> " + target
			return err
		case d.IsDir():
			out[p] = "/"
		default:
			data, err := os.ReadFile(p)
			out[p] = string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameSnapshot fails the test when two snapshots differ.
func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed: was %q, is %q", p, v, after[p])
		}
	}
	for p, v := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared (%q)", p, v)
		}
	}
}

// loopback starts a TCP listener on 127.0.0.1 that writes greeting to each
// connection and closes it. It returns the port and a channel that
// receives each accepted connection's remote address.
func loopback(t *testing.T, greeting string) (int, <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c.RemoteAddr().String()
			c.Write([]byte(greeting))
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, accepted
}

// udpEcho starts a UDP socket on 127.0.0.1 that answers each datagram
// with "echo " and the datagram, and returns its port.
func udpEcho(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				return
			}
			c.WriteTo(append([]byte("echo "), buf[:n]...), from)
		}
	}()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// TestEffects runs one call of every effect builtin twice: under a budget
// that does not cover it (E302 naming the item to add, at the call's
// position, with nothing done) and under the grant that does (it works,
// and that grant is charged once).
//
// In the table, $DIR is the row's scratch data directory (in.txt holds
// "hello\n", sub/ holds a.txt and b.txt), $PORT a loopback listener that
// greets with "hi", $UDPPORT a loopback UDP socket that echoes, $URL an
// HTTP server answering "pong" and $HTTPPORT its port.
func TestEffects(t *testing.T) {
	port, _ := loopback(t, "hi")
	udpPort := udpEcho(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "pong")
	}))
	t.Cleanup(srv.Close)
	_, httpPort, err := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SABLINE_TEST_VALUE", "x1")

	tests := []struct {
		name     string
		stmt     string // line 2 of the program: the effect call
		then     string // lines after it that check its result with fail()
		stdin    string
		near     string // a budget that comes close but does not cover the call
		grant    string // the item that covers the call
		wantNeed string // the item the refusal says to add
		wantOut  string // standard output of the allowed run
		after    func(t *testing.T, dir string)
	}{
		{name: "io.print", stmt: `io.print("hi", 2)`, grant: "io", wantNeed: "add io", wantOut: "hi 2\n"},
		{name: "print", stmt: `print("hi", 2, sep="-")`, grant: "io", wantNeed: "add io", wantOut: "hi-2\n"},
		{name: "io.read_line", stmt: `v = io.read_line()`, then: `if v != "one": fail(v)`,
			stdin: "one\r\ntwo\n", grant: "io", wantNeed: "add io"},
		{name: "io.read_all", stmt: `v = io.read_all()`, then: `if v != "one\ntwo\n": fail(v)`,
			stdin: "one\ntwo\n", grant: "io", wantNeed: "add io"},
		{name: "declassify", stmt: `v = declassify("s")`, then: `if v != "s": fail(v)`,
			near: "io", grant: "declassify", wantNeed: "add declassify"},
		{name: "fs.read", stmt: `v = fs.read("$DIR/in.txt")`, then: `if v != "hello\n": fail(v)`,
			near: "fs:write:$DIR,fs:read:$DIR/sub", grant: "fs:read:$DIR", wantNeed: "add fs:read:$DIR/in.txt"},
		{name: "fs.write", stmt: `fs.write("$DIR/out.txt", "new")`,
			near: "fs:read:$DIR", grant: "fs:write:$DIR", wantNeed: "add fs:write:$DIR/out.txt",
			after: wantFile("out.txt", "new")},
		{name: "fs.write truncates", stmt: `fs.write("$DIR/in.txt", b"x")`,
			near: "fs:read", grant: "fs:write:$DIR/in.txt", wantNeed: "add fs:write:$DIR/in.txt",
			after: wantFile("in.txt", "x")},
		{name: "fs.append", stmt: `fs.append("$DIR/in.txt", "more")`,
			near: "fs:read:$DIR", grant: "fs:write:$DIR", wantNeed: "add fs:write:$DIR/in.txt",
			after: wantFile("in.txt", "hello\nmore")},
		{name: "fs.list", stmt: `v = fs.list("$DIR/sub")`, then: `if v != ["a.txt", "b.txt"]: fail(v)`,
			near: "fs:write", grant: "fs:read:$DIR", wantNeed: "add fs:read:$DIR/sub"},
		{name: "fs.exists", stmt: `v = fs.exists("$DIR/in.txt")`, then: `if v != True: fail(v)`,
			near: "fs:read:$DIR/sub", grant: "fs:read:$DIR", wantNeed: "add fs:read:$DIR/in.txt"},
		{name: "fs.exists of a missing file", stmt: `v = fs.exists("$DIR/none")`, then: `if v != False: fail(v)`,
			near: "fs:write:$DIR", grant: "fs:read:$DIR", wantNeed: "add fs:read:$DIR/none"},
		{name: "fs.remove", stmt: `fs.remove("$DIR/in.txt")`,
			near: "fs:read:$DIR", grant: "fs:write:$DIR", wantNeed: "add fs:write:$DIR/in.txt",
			after: wantNoFile("in.txt")},
		{name: "fs.mkdir", stmt: `fs.mkdir("$DIR/new/deep")`,
			near: "fs:read", grant: "fs:write:$DIR", wantNeed: "add fs:write:$DIR/new",
			after: wantDir("new/deep")},
		{name: "fs grant of any direction", stmt: `fs.write("$DIR/out.txt", "new")`,
			near: "fs:read", grant: "fs", wantNeed: "add fs:write:$DIR/out.txt",
			after: wantFile("out.txt", "new")},
		{name: "net.connect", stmt: `c = net.connect("127.0.0.1", $PORT)`,
			then: "v = c.recv(100)\nc.close()\nif v != \"hi\": fail(v)",
			near: "net:127.0.0.1:1,net:localhost,net:udp:127.0.0.1:$PORT", grant: "net:127.0.0.1:$PORT", wantNeed: "add net:127.0.0.1:$PORT"},
		{name: "net.udp", stmt: `c = net.udp("127.0.0.1", $UDPPORT)`,
			then: "c.send(\"ping\")\nv = c.recv(100)\nc.close()\nif v != \"echo ping\": fail(v)",
			near: "net:127.0.0.1:$UDPPORT,net,net:udp:127.0.0.1:1,net:udp:localhost", grant: "net:udp:127.0.0.1:$UDPPORT",
			wantNeed: "add net:udp:127.0.0.1:$UDPPORT"},
		{name: "net.udp to any host", stmt: `c = net.udp("127.0.0.1", $UDPPORT)`,
			then: "c.send(b\"\\x00ping\")\nv = c.recv(5)\nif v != \"echo \": fail(v)",
			near: "net", grant: "net:udp", wantNeed: "add net:udp:127.0.0.1:$UDPPORT"},
		{name: "net.connect any port of a host", stmt: `c = net.connect("127.0.0.1", $PORT)`,
			then: "v = c.recv(100)\nif v != \"hi\": fail(v)",
			near: "net:localhost", grant: "net:127.0.0.1", wantNeed: "add net:127.0.0.1:$PORT"},
		{name: "net.http_get", stmt: `r = net.http_get("$URL/ping")`,
			then: "if r.status != 200 or r.body != \"pong\": fail(r)",
			near: "net:localhost:$HTTPPORT", grant: "net:127.0.0.1:$HTTPPORT", wantNeed: "add net:127.0.0.1:$HTTPPORT"},
		{name: "env.get", stmt: `v = env.get("SABLINE_TEST_VALUE")`, then: `if v != "x1": fail(v)`,
			near: "io", grant: "env", wantNeed: "add env"},
		{name: "env.get default", stmt: `v = env.get("SABLINE_TEST_UNSET", "d")`, then: `if v != "d": fail(v)`,
			grant: "env", wantNeed: "add env"},
		{name: "clock.now", stmt: `v = clock.now()`, then: `if type(v) != "float" or v < 1e9: fail(v)`,
			near: "rand", grant: "clock", wantNeed: "add clock"},
		{name: "rand.int", stmt: `v = rand.int(10)`, then: `if v < 0 or v >= 10: fail(v)`,
			near: "clock", grant: "rand", wantNeed: "add rand"},
		{name: "rand.bytes", stmt: `v = rand.bytes(4)`, then: `if type(v) != "bytes" or len(v) != 4: fail(v)`,
			near: "clock", grant: "rand", wantNeed: "add rand"},
		{name: "tool.call", stmt: `v = tool.call("lookup", {"q": [1, "two"]})`,
			then:  `if v != {"answer": [1, 2.5, None, True]}: fail(v)`,
			stdin: `{"answer": [1, 2.5, null, true]}` + "\n", near: "io", grant: "tool", wantNeed: "add tool",
			wantOut: `{"args":{"q":[1,"two"]},"tool":"lookup"}` + "\n"},
		{name: "ffi.module", stmt: `m = ffi.module("json")`, then: `if m.encode([1]) != "[1]": fail(m)`,
			near: "ffi:math", grant: "ffi:json", wantNeed: "add ffi:json"},
		{name: "ffi.module of any module", stmt: `m = ffi.module("hashlib")`,
			then: `if len(m.sha256("")) != 64: fail(m)`,
			near: "ffi:json", grant: "ffi", wantNeed: "add ffi:hashlib"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			testkit.WriteFile(t, filepath.Join(dir, "in.txt"), "hello\n")
			testkit.WriteFile(t, filepath.Join(dir, "sub", "a.txt"), "a")
			testkit.WriteFile(t, filepath.Join(dir, "sub", "b.txt"), "b")
			fill := strings.NewReplacer("$DIR", dir, "$PORT", strconv.Itoa(port), "$UDPPORT", strconv.Itoa(udpPort),
				"$URL", srv.URL, "$HTTPPORT", httpPort).Replace
			src := "x = 1\n" + fill(tt.stmt) + "\n" + fill(tt.then) + "\n"

			t.Run("denied", func(t *testing.T) {
				before := snapshot(t, dir)
				r := runSrc(t, Config{Budget: budget.MustParse(dir, fill(tt.near)), Cwd: dir,
					Stdin: strings.NewReader(tt.stdin)}, src)
				testkit.WantError(t, r.err, codes.E302, callPos(r.prog, src, 2), fill(tt.wantNeed), "not granted")
				if r.stdout != "" {
					t.Errorf("a refused run wrote %q", r.stdout)
				}
				sameSnapshot(t, before, snapshot(t, dir))
			})
			t.Run("allowed", func(t *testing.T) {
				grant := fill(tt.grant)
				r := runSrc(t, Config{Budget: budget.MustParse(dir, grant), Cwd: dir,
					Stdin: strings.NewReader(tt.stdin)}, src)
				if r.err != nil {
					t.Fatalf("run under %s: %v", grant, r.err)
				}
				if r.stdout != tt.wantOut {
					t.Errorf("stdout %q, want %q", r.stdout, tt.wantOut)
				}
				if n := usesOf(t, r.in, grant); n != 1 {
					t.Errorf("%s used %d times, want 1", grant, n)
				}
				if tt.after != nil {
					tt.after(t, dir)
				}
			})
		})
	}
}

func wantFile(name, content string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(data) != content {
			t.Errorf("%s holds %q (%v), want %q", name, data, err, content)
		}
	}
}

func wantNoFile(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there (%v)", name, err)
		}
	}
}

func wantDir(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.IsDir() {
			t.Errorf("%s is not a directory (%v)", name, err)
		}
	}
}

// TestCounts checks @N: a count used up is E303 at the call that passed
// it, and a wider grant takes over when a narrower one is used up.
func TestCounts(t *testing.T) {
	tests := []struct {
		name      string
		grants    string
		src       string
		wantLine  int    // the line of the refused call; 0 for a run that ends normally
		wantOut   string // standard output, of a refused run too
		wantUsage map[string]int
	}{
		{
			name:      "rand@2 used three times",
			grants:    "rand@2",
			src:       "a = rand.int(5)\nb = rand.int(5)\nc = rand.int(5)\n",
			wantLine:  3,
			wantUsage: map[string]int{"rand@2": 2},
		},
		{
			name:      "io@1 prints once",
			grants:    "io@1",
			src:       "print(\"one\")\nprint(\"two\")\n",
			wantLine:  2,
			wantOut:   "one\n",
			wantUsage: map[string]int{"io@1": 1},
		},
		{
			name:      "narrow fs@1 alone",
			grants:    "fs:read:$DIR/sub@1",
			src:       "a = fs.read(\"$DIR/sub/a.txt\")\nb = fs.read(\"$DIR/sub/a.txt\")\n",
			wantLine:  2,
			wantUsage: map[string]int{"fs:read:$DIR/sub@1": 1},
		},
		{
			name:      "narrow fs@1 then the wider grant",
			grants:    "fs:read:$DIR/sub@1,fs:read:$DIR",
			src:       "a = fs.read(\"$DIR/sub/a.txt\")\nb = fs.read(\"$DIR/sub/a.txt\")\nc = fs.read(\"$DIR/sub/a.txt\")\n",
			wantUsage: map[string]int{"fs:read:$DIR/sub@1": 1, "fs:read:$DIR": 2},
		},
		{
			name:      "both counted and both used up",
			grants:    "fs:read:$DIR/sub@1,fs:read:$DIR@1",
			src:       "a = fs.read(\"$DIR/sub/a.txt\")\nb = fs.read(\"$DIR/sub/a.txt\")\nc = fs.read(\"$DIR/sub/a.txt\")\n",
			wantLine:  3,
			wantUsage: map[string]int{"fs:read:$DIR/sub@1": 1, "fs:read:$DIR@1": 1},
		},
		{
			name:      "net@1 then the wider grant",
			grants:    "net:127.0.0.1:$PORT@1,net:127.0.0.1",
			src:       "a = net.connect(\"127.0.0.1\", $PORT)\nb = net.connect(\"127.0.0.1\", $PORT)\n",
			wantUsage: map[string]int{"net:127.0.0.1:$PORT@1": 1, "net:127.0.0.1": 1},
		},
	}
	port, _ := loopback(t, "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			testkit.WriteFile(t, filepath.Join(dir, "sub", "a.txt"), "a")
			fill := strings.NewReplacer("$DIR", dir, "$PORT", strconv.Itoa(port)).Replace
			src := fill(tt.src)
			r := runSrc(t, Config{Budget: budget.MustParse(dir, fill(tt.grants)), Cwd: dir}, src)
			if tt.wantLine == 0 {
				if r.err != nil {
					t.Fatalf("run: %v", r.err)
				}
			} else {
				testkit.WantError(t, r.err, codes.E303, callPos(r.prog, src, tt.wantLine), "count used up")
			}
			if r.stdout != tt.wantOut {
				t.Errorf("stdout %q, want %q", r.stdout, tt.wantOut)
			}
			for grant, n := range tt.wantUsage {
				if got := usesOf(t, r.in, fill(grant)); got != n {
					t.Errorf("%s used %d times, want %d", fill(grant), got, n)
				}
			}
		})
	}
}

// TestLinksAndTraversal checks that a file effect is judged on the path it
// reaches: links are followed and .. is taken out before the check. A
// refusal names the path as written, never where a link led. $G is the
// granted directory, $O a directory outside it holding secret.txt.
func TestLinksAndTraversal(t *testing.T) {
	tests := []struct {
		name     string
		grant    string
		cwd      string // "" for $G
		stmt     string
		wantCode codes.Code // "" for allowed
		wantNeed string     // what a refusal says: the item to add, or that the path leads outside
	}{
		{name: "link inside to a file outside", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/out")`, wantCode: codes.E302, wantNeed: "it lies in fs:read:$G as written, and leads outside every grant"},
		{name: "link inside to a directory outside", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/outdir/secret.txt")`, wantCode: codes.E302, wantNeed: "it lies in fs:read:$G as written, and leads outside every grant"},
		{name: "list through a link to a directory outside", grant: "fs:read:$G",
			stmt: `v = fs.list("$G/outdir")`, wantCode: codes.E302, wantNeed: "it lies in fs:read:$G as written, and leads outside every grant"},
		{name: "write through a link to a file outside", grant: "fs:write:$G",
			stmt: `fs.write("$G/out", "x")`, wantCode: codes.E302, wantNeed: "it lies in fs:write:$G as written, and leads outside every grant"},
		{name: "write through a dangling link to outside", grant: "fs:write:$G",
			stmt: `fs.write("$G/dangling", "x")`, wantCode: codes.E302, wantNeed: "it lies in fs:write:$G as written, and leads outside every grant"},
		{name: "append through a dangling link to outside", grant: "fs:write:$G",
			stmt: `fs.append("$G/dangling", "x")`, wantCode: codes.E302, wantNeed: "it lies in fs:write:$G as written, and leads outside every grant"},
		{name: "remove through a link to a directory outside", grant: "fs:write:$G",
			stmt: `fs.remove("$G/outdir/secret.txt")`, wantCode: codes.E302, wantNeed: "it lies in fs:write:$G as written, and leads outside every grant"},
		{name: "link inside to a file inside", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/in")`},
		{name: "link inside to a directory inside", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/indir/real.txt")`},
		{name: "dot dot out of the grant", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/../o/secret.txt")`, wantCode: codes.E302, wantNeed: "add fs:read:$O/secret.txt"},
		{name: "dot dot out and back in", grant: "fs:read:$G",
			stmt: `v = fs.read("$G/../g/real.txt")`},
		{name: "relative dot dot out of the working directory", grant: "fs:read:$G",
			stmt: `v = fs.read("../o/secret.txt")`, wantCode: codes.E302, wantNeed: "add fs:read:$O/secret.txt"},
		{name: "relative path inside the working directory", grant: "fs:read:$G",
			stmt: `v = fs.read("real.txt")`},
		{name: "a granted directory named through a link", grant: "fs:read:$ROOT/glink",
			stmt: `v = fs.read("$G/real.txt")`},
		{name: "a link to the grant reaches no further", grant: "fs:read:$ROOT/glink",
			stmt: `v = fs.read("$ROOT/glink/../o/secret.txt")`, wantCode: codes.E302, wantNeed: "add fs:read:$O/secret.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testkit.Scratch(t)
			g, o := filepath.Join(root, "g"), filepath.Join(root, "o")
			testkit.WriteFile(t, filepath.Join(g, "real.txt"), "real")
			testkit.WriteFile(t, filepath.Join(o, "secret.txt"), "secret")
			symlink(t, filepath.Join(o, "secret.txt"), filepath.Join(g, "out"))
			symlink(t, o, filepath.Join(g, "outdir"))
			symlink(t, filepath.Join(o, "new.txt"), filepath.Join(g, "dangling"))
			symlink(t, "real.txt", filepath.Join(g, "in"))
			symlink(t, ".", filepath.Join(g, "indir"))
			symlink(t, g, filepath.Join(root, "glink"))
			fill := strings.NewReplacer("$ROOT", root, "$G", g, "$O", o).Replace
			src := "x = 1\n" + fill(tt.stmt) + "\n"
			if tt.wantCode == "" { // every allowed row reads $G/real.txt
				src += "if v != \"real\": fail(v)\n"
			}
			before := snapshot(t, o)
			r := runSrc(t, Config{Budget: budget.MustParse(g, fill(tt.grant)), Cwd: g}, src)
			if tt.wantCode == "" {
				if r.err != nil {
					t.Fatalf("run under %s: %v", fill(tt.grant), r.err)
				}
				return
			}
			sameSnapshot(t, before, snapshot(t, o))
			testkit.WantError(t, r.err, tt.wantCode, callPos(r.prog, src, 2), fill(tt.wantNeed))
		})
	}
}

// TestAnswers checks the failures of effects the budget allowed: a tool
// with no usable answer, an unregistered host module, a file the system
// does not have, a refused connection, and an error the program raises.
func TestAnswers(t *testing.T) {
	closedPort := func(t *testing.T) int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		return p
	}(t)
	reg := NewRegistry()
	reg.Register("echo", func() starlark.Value { return starlark.String("echo") })
	reg.Register("alpha", func() starlark.Value { return starlark.String("alpha") })
	tests := []struct {
		name     string
		grant    string
		stmt     string
		stdin    string
		wantCode codes.Code
		wantMsg  string
		wantIs   error // an error the *Error wraps; nil to not check
	}{
		{name: "tool with no answer", grant: "tool", stmt: `v = tool.call("t")`,
			wantCode: codes.E313, wantMsg: "tool t: no answer"},
		{name: "tool with a blank answer", grant: "tool", stmt: `v = tool.call("t")`, stdin: "\n",
			wantCode: codes.E313, wantMsg: "no answer"},
		{name: "tool with an answer that is not JSON", grant: "tool", stmt: `v = tool.call("t")`, stdin: "yes\n",
			wantCode: codes.E313, wantMsg: "not one line of JSON"},
		{name: "unregistered host module", grant: "ffi", stmt: `m = ffi.module("nope")`,
			wantCode: codes.E312, wantMsg: `no host module "nope" is registered; registered: alpha, echo`},
		{name: "missing file", grant: "fs:read:$DIR", stmt: `v = fs.read("$DIR/none")`,
			wantCode: codes.E314, wantMsg: "fs.read $DIR/none", wantIs: fs.ErrNotExist},
		{name: "refused connection", grant: "net:127.0.0.1", stmt: `c = net.connect("127.0.0.1", $CLOSED)`,
			wantCode: codes.E315, wantMsg: "net.connect 127.0.0.1:$CLOSED"},
		{name: "the program's own error", grant: "", stmt: `v = 1 // 0`,
			wantCode: codes.E305, wantMsg: "division by zero"},
		{name: "fail()", grant: "", stmt: `fail("stop", 2)`,
			wantCode: codes.E305, wantMsg: "stop 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			fill := strings.NewReplacer("$DIR", dir, "$CLOSED", strconv.Itoa(closedPort)).Replace
			src := "x = 1\n" + fill(tt.stmt) + "\n"
			r := runSrc(t, Config{Budget: budget.MustParse(dir, fill(tt.grant)), Cwd: dir,
				Stdin: strings.NewReader(tt.stdin), Registry: reg}, src)
			pos := callPos(r.prog, src, 2)
			if !strings.Contains(tt.stmt, "(") { // an operator, not a call: its own column
				pos = fmt.Sprintf("%s:2:%d", r.prog, strings.Index(tt.stmt, "//")+1)
			}
			testkit.WantError(t, r.err, tt.wantCode, pos, fill(tt.wantMsg))
			if tt.wantIs != nil && !errors.Is(r.err, tt.wantIs) {
				t.Errorf("%v does not wrap %v", r.err, tt.wantIs)
			}
		})
	}
}

// TestInputShared: in a program's own process (no tool channel given),
// io.read_line, tool.call and io.read_all read one standard input, in
// turn and whichever comes first, through one buffer made at the first
// read: each reads the line the one before left. A program that reads
// nothing makes none, and nor does one whose tool calls go to a channel
// its Config gave (the control: its standard input left whole).
func TestInputShared(t *testing.T) {
	dir := testkit.Scratch(t)
	b := budget.MustParse(dir, "io,tool")
	const request = `{"args":null,"tool":"t"}` + "\n"
	tests := []struct {
		name       string
		src, stdin string
		tool       *bytes.Buffer // the channel's answers, when Config gives one
		wantOut    string
		wantBuffer bool // a buffer of the standard input was made
		wantLeft   string
	}{
		{name: "a line first", src: "a = io.read_line()\nb = tool.call(\"t\")\nc = io.read_all()\n" +
			"print(a, b, c)\n", stdin: "first\n{\"answer\": 2}\nthe rest\n",
			wantOut: request + `first {"answer": 2} the rest` + "\n\n", wantBuffer: true},
		{name: "a tool's answer first", src: "b = tool.call(\"t\")\na = io.read_line()\nprint(b, a)\n",
			stdin: "{\"answer\": 2}\nnext\n", wantOut: request + `{"answer": 2} next` + "\n",
			wantBuffer: true},
		{name: "nothing read", src: "print(1)\n", stdin: "left\n", wantOut: "1\n", wantLeft: "left\n"},
		{name: "the tool a channel of its own", src: "b = tool.call(\"t\")\nprint(b)\n",
			stdin: "left\n", tool: bytes.NewBufferString("{\"answer\": 3}\n"),
			wantOut: `{"answer": 3}` + "\n", wantLeft: "left\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin := strings.NewReader(tt.stdin)
			c := Config{Budget: b, Cwd: dir, Stdin: stdin}
			if tt.tool != nil {
				c.Tool = NewToolChannel(tt.tool)
			}
			r := runSrc(t, c, tt.src)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.stdout != tt.wantOut {
				t.Errorf("stdout %q, want %q", r.stdout, tt.wantOut)
			}
			if made := r.in.stdin != nil; made != tt.wantBuffer {
				t.Errorf("a buffer of the standard input made: %v, want %v", made, tt.wantBuffer)
			}
			if tt.wantLeft != "" {
				if left, _ := io.ReadAll(stdin); string(left) != tt.wantLeft {
					t.Errorf("the standard input left %q, want %q", left, tt.wantLeft)
				}
			}
		})
	}
}

// TestNetTargets checks the host and port a network call is judged on,
// and the calls refused before any check for a malformed target. Nothing
// here reaches the network: every call is refused.
func TestNetTargets(t *testing.T) {
	tests := []struct {
		name     string
		stmt     string
		wantCode codes.Code
		wantMsg  string
	}{
		{name: "http without a port is port 80", stmt: `r = net.http_get("http://127.0.0.1/x")`,
			wantCode: codes.E302, wantMsg: "add net:127.0.0.1:80"},
		{name: "https without a port is port 443", stmt: `r = net.http_get("https://127.0.0.1/x")`,
			wantCode: codes.E302, wantMsg: "add net:127.0.0.1:443"},
		{name: "an explicit port", stmt: `r = net.http_get("https://127.0.0.1:8443/x")`,
			wantCode: codes.E302, wantMsg: "add net:127.0.0.1:8443"},
		{name: "a host in upper case", stmt: `r = net.http_get("http://LOCALHOST:8080/")`,
			wantCode: codes.E302, wantMsg: "add net:localhost:8080"},
		{name: "an IPv6 host", stmt: `c = net.connect("::1", 8080)`,
			wantCode: codes.E302, wantMsg: "add net:[::1]:8080"},
		{name: "not http", stmt: `r = net.http_get("ftp://127.0.0.1/x")`,
			wantCode: codes.E305, wantMsg: "want an http:// or https:// URL"},
		{name: "no host", stmt: `r = net.http_get("http:///x")`,
			wantCode: codes.E305, wantMsg: "want an http:// or https:// URL"},
		{name: "port 0", stmt: `c = net.connect("127.0.0.1", 0)`,
			wantCode: codes.E305, wantMsg: "port must be from 1 to 65535"},
		{name: "port too large", stmt: `c = net.connect("127.0.0.1", 65536)`,
			wantCode: codes.E305, wantMsg: "port must be from 1 to 65535"},
		// Refused before the budget is asked, as net.connect's: no grant
		// is charged for a connection no port can make.
		{name: "a URL's port too large", stmt: `r = net.http_get("http://127.0.0.1:70000/")`,
			wantCode: codes.E305, wantMsg: "port must be from 1 to 65535, got 70000"},
		{name: "a URL's port 0", stmt: `r = net.http_get("http://127.0.0.1:0/")`,
			wantCode: codes.E305, wantMsg: "port must be from 1 to 65535, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "x = 1\n" + tt.stmt + "\n"
			r := runSrc(t, Config{Budget: budget.MustParse("/", "io")}, src)
			testkit.WantError(t, r.err, tt.wantCode, callPos(r.prog, src, 2), tt.wantMsg)
		})
	}
}

// TestArgs checks that the program sees its arguments as ARGS.
func TestArgs(t *testing.T) {
	r := runSrc(t, Config{Budget: budget.MustParse("/", "io"), Args: []string{"a b", "-c"}}, "print(ARGS)\n")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if want := "[\"a b\", \"-c\"]\n"; r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
}

// linuxLike is a Refusal as a Linux worker's names the layers of this
// test (see run's refusal, which reads confine's table): EACCES is
// Landlock's, EPERM Landlock's or seccomp's.
func linuxLike(err error, applied []string) (string, []string) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return "", nil
	}
	var layers []string
	for _, l := range applied {
		if (errno == syscall.EACCES && l == "landlock-abi7") || (errno == syscall.EPERM && (l == "landlock-abi7" || l == "seccomp")) {
			layers = append(layers, l)
		}
	}
	return ErrnoName(errno), layers
}

// TestOSErrorClassification checks how an error the system returned for
// an allowed effect is told apart: an errno that one of the applied layers
// answers with is E319 naming that layer; anything else keeps the
// effect's own code.
func TestOSErrorClassification(t *testing.T) {
	tests := []struct {
		name     string
		layers   []string
		err      error
		wantCode codes.Code
		wantMsg  string
	}{
		{name: "EACCES under landlock and seccomp", layers: []string{"landlock-abi7", "seccomp"},
			err:      &fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES},
			wantCode: codes.E319, wantMsg: "fs.read /x: the kernel refused it (EACCES); refused by: landlock-abi7"},
		{name: "EPERM under seccomp wrapped twice", layers: []string{"landlock-abi7", "seccomp"},
			err:      fmt.Errorf("dial: %w", os.NewSyscallError("socket", syscall.EPERM)),
			wantCode: codes.E319, wantMsg: "(EPERM); refused by: one of landlock-abi7, seccomp; the errno does not tell which"},
		{name: "EACCES with no layer", layers: nil,
			err: &fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, wantCode: codes.E314, wantMsg: "fs.read /x: open /x:"},
		{name: "EACCES under seccomp alone", layers: []string{"seccomp"},
			err: &fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, wantCode: codes.E314, wantMsg: "fs.read /x: open /x:"},
		{name: "ENOENT under landlock", layers: []string{"landlock-abi7"},
			err: &fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, wantCode: codes.E314, wantMsg: "fs.read /x: open /x:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := NewInterp(Config{Layers: tt.layers, Refusal: linuxLike})
			err := in.osError(codes.E314, "fs.read /x", tt.err)
			testkit.WantError(t, err, tt.wantCode, "", tt.wantMsg)
			if !errors.Is(err, tt.err) {
				t.Errorf("%v does not wrap %v", err, tt.err)
			}
		})
	}
}

// TestHTTPBodyPastTheBound: a body longer than maxBody is an E315, not a
// body cut short that the program would take for the whole; a body of
// maxBody bytes, the control, comes whole. Both through net.http_get and
// a host module's download.
func TestHTTPBodyPastTheBound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := maxBody
		if r.URL.Path == "/long" {
			n++
		}
		w.Write(bytes.Repeat([]byte("a"), n))
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	dir := testkit.Scratch(t)
	for _, tc := range []struct{ name, src string }{
		{"net.http_get", `print(len(net.http_get("` + srv.URL + `$PATH").body))`},
		{"urllib", `print(len(ffi.module("urllib").urlopen("` + srv.URL + `$PATH")))`},
	} {
		for _, path := range []string{"/whole", "/long"} {
			r := runSrc(t, Config{Budget: budget.MustParse(dir, "io", "net:127.0.0.1:"+port, "ffi:urllib"), Cwd: dir},
				strings.ReplaceAll(tc.src, "$PATH", path))
			if path == "/whole" {
				if r.err != nil || r.stdout != strconv.Itoa(maxBody)+"\n" {
					t.Errorf("%s %s: %v, %q; want the body whole", tc.name, path, r.err, r.stdout)
				}
				continue
			}
			if r.err == nil || !strings.Contains(r.err.Error(), "longer than") {
				t.Errorf("%s %s: %v, printed %q; want an error saying the body is too long", tc.name, path, r.err, r.stdout)
			}
		}
	}
}
