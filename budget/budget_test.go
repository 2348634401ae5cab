package budget_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

// job is the working directory the tables take relative paths against.
const job = "/home/ana/job"

// validItems are well-formed items and the grant each one reads as. The
// round-trip and fuzz properties are checked on every one of them too.
// longestPath is an absolute path of 4,095 bytes, each name in it 200.
var longestPath = strings.Repeat("/"+strings.Repeat("p", 200), 20) + "/" + strings.Repeat("q", 74)

var validItems = []struct {
	name string
	s    string
	cwd  string
	want budget.Item
}{
	{name: "io", s: "io", want: budget.Item{Kind: budget.IO}},
	{name: "env", s: "env", want: budget.Item{Kind: budget.Env}},
	{name: "clock", s: "clock", want: budget.Item{Kind: budget.Clock}},
	{name: "rand", s: "rand", want: budget.Item{Kind: budget.Rand}},
	{name: "declassify", s: "declassify", want: budget.Item{Kind: budget.Declassify}},
	{name: "tool", s: "tool", want: budget.Item{Kind: budget.Tool}},
	{name: "fs", s: "fs", want: budget.Item{Kind: budget.FS}},
	{name: "net", s: "net", want: budget.Item{Kind: budget.Net}},
	{name: "ffi", s: "ffi", want: budget.Item{Kind: budget.FFI}},

	{name: "fs read any path", s: "fs:read", want: budget.Item{Kind: budget.FS, Access: budget.Read}},
	{name: "fs write any path", s: "fs:write", want: budget.Item{Kind: budget.FS, Access: budget.Write}},
	{name: "fs read path", s: "fs:read:/srv/in", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/in"}},
	{name: "fs write path", s: "fs:write:/srv/out", want: budget.Item{Kind: budget.FS, Access: budget.Write, Path: "/srv/out"}},
	{name: "root", s: "fs:read:/", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/"}},
	// The longest a path and a name in it may be: one byte more is
	// refused (TestParseItemErrors).
	{name: "a name of 255 bytes", s: "fs:write:/srv/" + strings.Repeat("n", 255),
		want: budget.Item{Kind: budget.FS, Access: budget.Write, Path: "/srv/" + strings.Repeat("n", 255)}},
	{name: "a path of 4095 bytes", s: "fs:read:" + longestPath,
		want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: longestPath}},
	{name: "absolute path ignores cwd", s: "fs:read:/srv/in", cwd: job, want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/in"}},
	{name: "absolute path with a relative cwd", s: "fs:read:/srv/in", cwd: "job", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/in"}},

	{name: "relative path against cwd", s: "fs:read:data", cwd: job, want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/home/ana/job/data"}},
	{name: "relative parent against cwd", s: "fs:write:../out", cwd: job, want: budget.Item{Kind: budget.FS, Access: budget.Write, Path: "/home/ana/out"}},
	{name: "dot is cwd", s: "fs:read:.", cwd: job, want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: job}},
	{name: "unclean cwd", s: "fs:read:data", cwd: "/home//ana/job/", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/home/ana/job/data"}},
	{name: "relative kept relative", s: "fs:read:data/", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "data"}},
	{name: "relative cleaned", s: "fs:write:./a/../b", want: budget.Item{Kind: budget.FS, Access: budget.Write, Path: "b"}},
	{name: "relative dot kept", s: "fs:read:.", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "."}},
	{name: "relative parent kept", s: "fs:read:../x", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "../x"}},

	{name: "dot dot cleaned", s: "fs:read:/srv/a/../b", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/b"}},
	{name: "trailing slash cleaned", s: "fs:write:/srv/out/", want: budget.Item{Kind: budget.FS, Access: budget.Write, Path: "/srv/out"}},
	{name: "double slashes cleaned", s: "fs:read://srv//in", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/in"}},
	{name: "dot cleaned", s: "fs:read:/srv/./in", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/in"}},
	{name: "above root is root", s: "fs:read:/..", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/"}},
	{name: "colon in path", s: "fs:read:/srv/a:b", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/a:b"}},
	{name: "newline in path", s: "fs:read:/srv/a\nb", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/a\nb"}},
	{name: "tilde inside path", s: "fs:read:/srv/~ana", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/~ana"}},
	{name: "at sign in path", s: "fs:read:/srv/a@b", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/a@b"}},
	{name: "at sign and digits inside path", s: "fs:read:/srv/v@2/x", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/v@2/x"}},
	{name: "at sign ending path", s: "fs:read:/srv/a@", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/a@"}},
	{name: "at sign in path and count", s: "fs:read:/srv/a@b@2", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/a@b", Limit: 2}},
	// A working directory with blanks, a colon, an equals sign and a tab
	// inside: its canonical text reads back whole.
	{name: "working directory with separators inside", s: "fs:read:.", cwd: "/srv/a b:c=d\te", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/a b:c=d\te"}},

	{name: "host", s: "net:localhost", want: budget.Item{Kind: budget.Net, Host: "localhost"}},
	{name: "host and port", s: "net:localhost:8080", want: budget.Item{Kind: budget.Net, Host: "localhost", Port: 8080}},
	{name: "host lower cased", s: "net:LocalHost:8080", want: budget.Item{Kind: budget.Net, Host: "localhost", Port: 8080}},
	{name: "dotted host", s: "net:api.example.org", want: budget.Item{Kind: budget.Net, Host: "api.example.org"}},
	{name: "fully qualified host", s: "net:example.org.", want: budget.Item{Kind: budget.Net, Host: "example.org."}},
	{name: "host with hyphen and underscore", s: "net:my_host-1.example", want: budget.Item{Kind: budget.Net, Host: "my_host-1.example"}},
	{name: "ipv4", s: "net:127.0.0.1", want: budget.Item{Kind: budget.Net, Host: "127.0.0.1"}},
	{name: "ipv4 and port", s: "net:127.0.0.1:5432", want: budget.Item{Kind: budget.Net, Host: "127.0.0.1", Port: 5432}},
	{name: "ipv6", s: "net:[::1]", want: budget.Item{Kind: budget.Net, Host: "::1"}},
	{name: "ipv6 and port", s: "net:[::1]:8080", want: budget.Item{Kind: budget.Net, Host: "::1", Port: 8080}},
	{name: "ipv6 lower cased", s: "net:[FE80::1]:443", want: budget.Item{Kind: budget.Net, Host: "fe80::1", Port: 443}},
	{name: "ipv4 mapped ipv6", s: "net:[::ffff:127.0.0.1]", want: budget.Item{Kind: budget.Net, Host: "::ffff:127.0.0.1"}},
	{name: "port 1", s: "net:localhost:1", want: budget.Item{Kind: budget.Net, Host: "localhost", Port: 1}},
	{name: "port 65535", s: "net:localhost:65535", want: budget.Item{Kind: budget.Net, Host: "localhost", Port: 65535}},
	{name: "port with leading zero", s: "net:localhost:080", want: budget.Item{Kind: budget.Net, Host: "localhost", Port: 80}},
	{name: "ipv6 port 65535", s: "net:[::1]:65535", want: budget.Item{Kind: budget.Net, Host: "::1", Port: 65535}},
	{name: "host named by digits and letters", s: "net:1e100.net", want: budget.Item{Kind: budget.Net, Host: "1e100.net"}},

	{name: "udp, any host", s: "net:udp", want: budget.Item{Kind: budget.Net, UDP: true}},
	{name: "udp host", s: "net:udp:ntp.example", want: budget.Item{Kind: budget.Net, UDP: true, Host: "ntp.example"}},
	{name: "udp host and port", s: "net:udp:10.0.0.2:514", want: budget.Item{Kind: budget.Net, UDP: true, Host: "10.0.0.2", Port: 514}},
	{name: "udp host lower cased", s: "net:udp:NTP.Example:123", want: budget.Item{Kind: budget.Net, UDP: true, Host: "ntp.example", Port: 123}},
	{name: "udp ipv6", s: "net:udp:[::1]", want: budget.Item{Kind: budget.Net, UDP: true, Host: "::1"}},
	{name: "udp ipv6 and port", s: "net:udp:[fe80::1]:53", want: budget.Item{Kind: budget.Net, UDP: true, Host: "fe80::1", Port: 53}},
	{name: "udp host whose name begins with udp", s: "net:udp.example:53", want: budget.Item{Kind: budget.Net, Host: "udp.example", Port: 53}},
	{name: "udp to a host whose name begins with udp", s: "net:udp:udp.example:53", want: budget.Item{Kind: budget.Net, UDP: true, Host: "udp.example", Port: 53}},

	{name: "module", s: "ffi:json", want: budget.Item{Kind: budget.FFI, Module: "json"}},
	{name: "dotted module", s: "ffi:encoding.csv", want: budget.Item{Kind: budget.FFI, Module: "encoding.csv"}},
	{name: "module with underscore first", s: "ffi:_priv", want: budget.Item{Kind: budget.FFI, Module: "_priv"}},
	{name: "module with digits and capitals", s: "ffi:Mod_2.sub3", want: budget.Item{Kind: budget.FFI, Module: "Mod_2.sub3"}},

	{name: "count 1", s: "rand@1", want: budget.Item{Kind: budget.Rand, Limit: 1}},
	{name: "count MaxLimit", s: "rand@" + strconv.Itoa(budget.MaxLimit), want: budget.Item{Kind: budget.Rand, Limit: budget.MaxLimit}},
	{name: "count with leading zeros", s: "rand@007", want: budget.Item{Kind: budget.Rand, Limit: 7}},
	{name: "count on io", s: "io@3", want: budget.Item{Kind: budget.IO, Limit: 3}},
	{name: "count on fs", s: "fs@2", want: budget.Item{Kind: budget.FS, Limit: 2}},
	{name: "count on fs read", s: "fs:read@2", want: budget.Item{Kind: budget.FS, Access: budget.Read, Limit: 2}},
	{name: "a path in UTF-8 beyond ASCII", s: "fs:read:/srv/café", want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/srv/café"}},
	{name: "count on fs path", s: "fs:write:/srv/out@5", want: budget.Item{Kind: budget.FS, Access: budget.Write, Path: "/srv/out", Limit: 5}},
	{name: "count on relative path", s: "fs:read:data@4", cwd: job, want: budget.Item{Kind: budget.FS, Access: budget.Read, Path: "/home/ana/job/data", Limit: 4}},
	{name: "count on host and port", s: "net:localhost:8080@4", want: budget.Item{Kind: budget.Net, Host: "localhost", Port: 8080, Limit: 4}},
	{name: "count on ipv6", s: "net:[::1]@2", want: budget.Item{Kind: budget.Net, Host: "::1", Limit: 2}},
	{name: "count on udp", s: "net:udp@2", want: budget.Item{Kind: budget.Net, UDP: true, Limit: 2}},
	{name: "count on udp host and port", s: "net:udp:[::1]:53@3", want: budget.Item{Kind: budget.Net, UDP: true, Host: "::1", Port: 53, Limit: 3}},
	{name: "count on module", s: "ffi:json@7", want: budget.Item{Kind: budget.FFI, Module: "json", Limit: 7}},
}

func TestParseItem(t *testing.T) {
	for _, tc := range validItems {
		t.Run(tc.name, func(t *testing.T) {
			got, err := budget.ParseItem(tc.s, tc.cwd)
			if err != nil {
				t.Fatalf("ParseItem(%q, %q): %v", tc.s, tc.cwd, err)
			}
			if got != tc.want {
				t.Errorf("ParseItem(%q, %q) = %#v, want %#v", tc.s, tc.cwd, got, tc.want)
			}
		})
	}
}

func TestParseItemErrors(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		name string
		s    string
		cwd  string
	}{
		{name: "empty", s: ""},
		{name: "colon only", s: ":"},
		{name: "count only", s: "@3"},
		{name: "at sign only", s: "@"},
		{name: "unknown word", s: "disk"},
		{name: "word in capitals", s: "IO"},
		{name: "word with a space", s: " io"},
		{name: "unknown word with qualifier", s: "disk:/dev/sda"},
		{name: "two counts", s: "rand@1@2"},

		{name: "qualifier on io", s: "io:stdout"},
		{name: "qualifier on env", s: "env:HOME"},
		{name: "qualifier on clock", s: "clock:utc"},
		{name: "qualifier on rand", s: "rand:1"},
		{name: "qualifier on declassify", s: "declassify:x"},
		{name: "qualifier on tool", s: "tool:ls"},
		{name: "empty qualifier", s: "io:"},
		{name: "qualifier and count", s: "env:HOME@2"},

		{name: "fs empty access", s: "fs:"},
		{name: "fs path without access", s: "fs:/data"},
		{name: "fs unknown access", s: "fs:rw:/data"},
		{name: "fs access in capitals", s: "fs:READ"},
		{name: "fs read empty path", s: "fs:read:"},
		{name: "fs write empty path", s: "fs:write:"},
		{name: "tilde", s: "fs:read:~"},
		{name: "tilde slash", s: "fs:read:~/notes"},
		{name: "tilde user", s: "fs:write:~ana/out"},
		// With a working directory, as every command line has one: ~ is
		// judged as written, not as cwd/~ (which a write grant would make).
		{name: "tilde with a cwd", s: "fs:read:~", cwd: "/srv/job"},
		{name: "tilde slash with a cwd", s: "fs:write:~/out", cwd: "/srv/job"},
		{name: "relative path cleaning to ~ with a cwd", s: "fs:read:a/../~x", cwd: "/srv/job"},
		{name: "relative path with relative cwd", s: "fs:read:data", cwd: "job"},
		{name: "NUL in path", s: "fs:read:/srv/a\x00b"},
		{name: "NUL in word", s: "io\x00"},
		{name: "NUL after count", s: "rand@1\x00"},
		{name: "a path not UTF-8", s: "fs:read:/srv/a\xffb"},
		{name: "a relative path in a working directory not UTF-8", s: "fs:read:data", cwd: "/srv/\xff"},
		{name: "a host not UTF-8", s: "net:\xc3"},
		// Paths the canonical text would not give back whole: a comma
		// separates items, and blanks around an item are trimmed.
		{name: "a path with a comma", s: "fs:read:/srv/a,b"},
		{name: "a relative path in a working directory with a comma", s: "fs:read:.", cwd: "/srv/q,fs"},
		{name: "a relative path in a working directory ending in a blank", s: "fs:write:.", cwd: "/srv/out "},
		{name: "a relative path in a working directory ending in a no-break space", s: "fs:write:.", cwd: "/srv/out\u00a0"},
		{name: "a relative path in a working directory ending in a newline", s: "fs:read:data/..", cwd: "/srv/out\n"},
		// Paths that can never exist.
		{name: "a name of 256 bytes", s: "fs:write:/srv/" + strings.Repeat("n", 256)},
		{name: "a path of 4096 bytes", s: "fs:read:" + longestPath + "q"},
		{name: "a relative path past 4095 bytes in its working directory", s: "fs:read:x",
			cwd: longestPath},

		{name: "net empty", s: "net:"},
		{name: "empty port", s: "net:localhost:"},
		{name: "port 0", s: "net:localhost:0"},
		{name: "port 65536", s: "net:localhost:65536"},
		{name: "port in letters", s: "net:localhost:http"},
		{name: "port with sign", s: "net:localhost:+80"},
		{name: "negative port", s: "net:localhost:-1"},
		{name: "port overflowing int", s: "net:localhost:99999999999999999999"},
		{name: "ipv6 without brackets", s: "net:::1"},
		{name: "ipv6 without brackets and port", s: "net:fe80::1:80"},
		{name: "host, port and more", s: "net:localhost:80:90"},
		{name: "unclosed bracket", s: "net:[::1"},
		{name: "text after bracket", s: "net:[::1]x"},
		{name: "two closing brackets", s: "net:[::1]]"},
		{name: "empty brackets", s: "net:[]"},
		{name: "name in brackets", s: "net:[localhost]"},
		{name: "ipv6 port 0", s: "net:[::1]:0"},
		{name: "ipv6 empty port", s: "net:[::1]:"},
		{name: "path ending in @ and digits", s: "fs:read:/srv/v@2/"},
		{name: "relative path cleaning to ~", s: "fs:read:a/../~x"},
		{name: "ipv6 port 65536", s: "net:[::1]:65536"},
		{name: "ipv6 port in letters", s: "net:[::1]:http"},
		{name: "empty label", s: "net:a..b"},
		{name: "dot only", s: "net:."},
		{name: "leading hyphen", s: "net:-a.example"},
		{name: "trailing hyphen", s: "net:a-.example"},
		{name: "space in host", s: "net:a b"},
		{name: "slash in host", s: "net:a/b"},
		{name: "at sign in host", s: "net:user@example.org"},
		{name: "label of 64", s: "net:" + long + ".example"},
		{name: "host over 253", s: "net:" + strings.Repeat("a.", 127) + "a"},
		{name: "a port alone", s: "net:8080"},
		{name: "a port alone with a count", s: "net:53@2"},

		{name: "udp empty host", s: "net:udp:"},
		{name: "udp port alone", s: "net:udp:53"},
		{name: "udp empty port", s: "net:udp:localhost:"},
		{name: "udp port 0", s: "net:udp:localhost:0"},
		{name: "udp ipv6 without brackets", s: "net:udp:::1:53"},
		{name: "udp twice", s: "net:udp:udp"},
		{name: "udp in capitals", s: "net:UDP:localhost:53"},
		{name: "udp in capitals alone", s: "net:Udp"},
		{name: "udp after the host", s: "net:localhost:53:udp"},
		{name: "tcp written out", s: "net:tcp:localhost:80"},
		{name: "tcp alone", s: "net:tcp"},
		{name: "tcp in capitals", s: "net:TCP:localhost"},

		{name: "ffi empty", s: "ffi:"},
		{name: "module starting with digit", s: "ffi:2x"},
		{name: "module starting with dot", s: "ffi:.json"},
		{name: "module ending with dot", s: "ffi:json."},
		{name: "module with empty part", s: "ffi:a..b"},
		{name: "module with hyphen", s: "ffi:a-b"},
		{name: "module with slash", s: "ffi:a/b"},
		{name: "module with space", s: "ffi:a b"},
		{name: "module with colon", s: "ffi:a:b"},

		{name: "count 0", s: "rand@0"},
		{name: "count MaxLimit+1", s: "rand@" + strconv.Itoa(budget.MaxLimit+1)},
		{name: "count overflowing int", s: "rand@99999999999999999999"},
		{name: "empty count", s: "rand@"},
		{name: "count in letters", s: "rand@x"},
		{name: "negative count", s: "rand@-1"},
		{name: "count with sign", s: "rand@+1"},
		{name: "fractional count", s: "rand@1.5"},
		{name: "count 0 on a path", s: "fs:read:/srv/in@0"},
		{name: "count MaxLimit+1 on a path", s: "fs:read:/srv/in@" + strconv.Itoa(budget.MaxLimit+1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := budget.ParseItem(tc.s, tc.cwd)
			checkItemError(t, err, tc.s)
			if got != (budget.Item{}) {
				t.Errorf("ParseItem(%q, %q) = %#v with an error, want the zero Item", tc.s, tc.cwd, got)
			}
		})
	}
}

// checkItemError fails unless err is an *ItemError for the item s as
// written, with a reason, and says so in its message.
func checkItemError(t *testing.T, err error, s string) {
	t.Helper()
	var ie *budget.ItemError
	if !errors.As(err, &ie) {
		t.Fatalf("item %q: error %v (%T), want an *ItemError", s, err, err)
	}
	if ie.Item != s {
		t.Errorf("item %q: ItemError.Item = %q, want the item as written", s, ie.Item)
	}
	if ie.Reason == "" {
		t.Errorf("item %q: ItemError.Reason is empty", s)
	}
	if msg := err.Error(); !strings.Contains(msg, strconv.Quote(s)) || !strings.Contains(msg, ie.Reason) {
		t.Errorf("item %q: message %q does not name the item and the reason", s, msg)
	}
}

func TestItemErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  budget.ItemError
		want string
	}{
		{
			name: "with hint",
			err:  budget.ItemError{Item: "fs:/x", Reason: "bad", Hint: "write it well"},
			want: `budget item "fs:/x": bad (write it well)`,
		},
		{
			name: "without hint",
			err:  budget.ItemError{Item: "rand@0", Reason: "bad"},
			want: `budget item "rand@0": bad`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		cwd    string
		want   []budget.Item
	}{
		{name: "no values", values: nil, want: nil},
		{name: "empty value", values: []string{""}, want: nil},
		{name: "only commas and blanks", values: []string{",, ,", " "}, want: nil},
		{name: "blanks around items", values: []string{"io, env ,  clock"}, want: []budget.Item{{Kind: budget.IO}, {Kind: budget.Env}, {Kind: budget.Clock}}},
		{
			name:   "one value, several items",
			values: []string{"io,rand@2"},
			want:   []budget.Item{{Kind: budget.IO}, {Kind: budget.Rand, Limit: 2}},
		},
		{
			name:   "several values and empty entries",
			values: []string{"io,,", "", ",net:localhost:8080"},
			want:   []budget.Item{{Kind: budget.IO}, {Kind: budget.Net, Host: "localhost", Port: 8080}},
		},
		{
			name:   "relative paths against cwd",
			values: []string{"fs:read:data,fs:write:out"},
			cwd:    job,
			want: []budget.Item{
				{Kind: budget.FS, Access: budget.Read, Path: "/home/ana/job/data"},
				{Kind: budget.FS, Access: budget.Write, Path: "/home/ana/job/out"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := budget.Parse(tc.values, tc.cwd)
			if err != nil {
				t.Fatalf("Parse(%q, %q): %v", tc.values, tc.cwd, err)
			}
			if !slices.Equal(got.Items, tc.want) {
				t.Errorf("Parse(%q, %q) = %#v, want %#v", tc.values, tc.cwd, got.Items, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		values   []string
		cwd      string
		wantItem string // the malformed item the error names
	}{
		{name: "one bad item", values: []string{"disk"}, wantItem: "disk"},
		{name: "bad item among good", values: []string{"io", "rand,fs:/x,net"}, wantItem: "fs:/x"},
		{name: "first bad item wins", values: []string{"io,rand@0", "net:"}, wantItem: "rand@0"},
		{name: "relative path with relative cwd", values: []string{"fs:read:data"}, cwd: "job", wantItem: "fs:read:data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := budget.Parse(tc.values, tc.cwd)
			checkItemError(t, err, tc.wantItem)
			if got.Items != nil {
				t.Errorf("Parse(%q) = %v with an error, want the zero Budget", tc.values, got)
			}
		})
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		err, ok := recover().(error)
		if !ok {
			t.Fatal("MustParse of a malformed item did not panic with an error")
		}
		checkItemError(t, err, "rand@0")
	}()
	budget.MustParse("", "io", "rand@0")
}

// TestRoundTrip checks that every valid item prints in a form that parses
// back to it, alone and in one budget with the others of its cwd.
func TestRoundTrip(t *testing.T) {
	byCwd := map[string][]budget.Item{}
	for _, tc := range validItems {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.want.String()
			got, err := budget.Parse([]string{s}, tc.cwd)
			if err != nil {
				t.Fatalf("Parse(%q, %q): %v", s, tc.cwd, err)
			}
			if want := []budget.Item{tc.want}; !slices.Equal(got.Items, want) {
				t.Errorf("Parse(%q, %q) = %#v, want %#v", s, tc.cwd, got.Items, want)
			}
		})
		byCwd[tc.cwd] = append(byCwd[tc.cwd], tc.want)
	}
	for cwd, items := range byCwd {
		t.Run("budget with cwd "+strconv.Quote(cwd), func(t *testing.T) {
			b := budget.Budget{}.With(items...)
			got, err := budget.Parse([]string{b.String()}, cwd)
			if err != nil {
				t.Fatalf("Parse(%q): %v", b.String(), err)
			}
			if !slices.Equal(got.Items, b.Items) {
				t.Errorf("Parse(%q) = %v, want %v", b.String(), got, b)
			}
		})
	}
}

// TestCanonical checks that every spelling of one budget prints the same.
func TestCanonical(t *testing.T) {
	tests := []struct {
		name      string
		cwd       string
		spellings [][]string
		want      string
	}{
		{
			name: "empty",
			spellings: [][]string{
				nil,
				{""},
				{",,", " "},
			},
			want: "",
		},
		{
			name: "ordered by kind",
			spellings: [][]string{
				{"ffi,net,fs,tool,declassify,rand,clock,env,io"},
				{"net", "io", "ffi", "env", "fs", "clock", "tool", "rand", "declassify"},
				{"io,env,clock,rand,declassify,tool,fs,net,ffi"},
			},
			want: "io,env,clock,rand,declassify,tool,fs,net,ffi",
		},
		{
			name: "duplicates dropped",
			spellings: [][]string{
				{"io,io,io"},
				{"io", "io"},
				{"io,,io", ",io"},
			},
			want: "io",
		},
		{
			name: "duplicates spelled differently dropped",
			spellings: [][]string{
				{"fs:read:/srv/in/,fs:read:/srv/in"},
				{"fs:read://srv/in", "fs:read:/srv/x/../in"},
			},
			want: "fs:read:/srv/in",
		},
		{
			name: "fs by access then path",
			spellings: [][]string{
				{"fs:write:/b,fs:read:/b,fs:read:/a,fs"},
				{"fs:read:/a", "fs", "fs:write:/b", "fs:read:/b"},
			},
			want: "fs,fs:read:/a,fs:read:/b,fs:write:/b",
		},
		{
			name: "one path, four spellings",
			cwd:  job,
			spellings: [][]string{
				{"fs:read:data/"},
				{"fs:read:./data"},
				{"fs:read:/home/ana/job/data"},
				{"fs:read://home/ana/job/x/../data"},
			},
			want: "fs:read:/home/ana/job/data",
		},
		{
			name: "net by host then port",
			spellings: [][]string{
				{"net:b.example:80,net:a.example:443,net:a.example:80,net"},
				{"net", "net:a.example:80", "net:b.example:80", "net:a.example:443"},
			},
			want: "net,net:a.example:80,net:a.example:443,net:b.example:80",
		},
		{
			name: "udp after tcp, each by host then port",
			spellings: [][]string{
				{"net:udp:b.example:53,net:b.example:53,net:udp,net:udp:a.example,net"},
				{"net", "net:udp:a.example", "net:udp", "net:b.example:53", "net:udp:b.example:053"},
			},
			want: "net,net:b.example:53,net:udp,net:udp:a.example,net:udp:b.example:53",
		},
		{
			name: "host case and port zeros",
			spellings: [][]string{
				{"net:LocalHost:08080"},
				{"net:localhost:8080"},
			},
			want: "net:localhost:8080",
		},
		{
			name: "ipv6 case and port zeros",
			spellings: [][]string{
				{"net:[FE80::1]:0443"},
				{"net:[fe80::1]:443"},
			},
			want: "net:[fe80::1]:443",
		},
		{
			name: "modules sorted",
			spellings: [][]string{
				{"ffi:yaml,ffi:json,ffi"},
				{"ffi", "ffi:json", "ffi:yaml"},
			},
			want: "ffi,ffi:json,ffi:yaml",
		},
		{
			name: "counts",
			spellings: [][]string{
				{"rand@007"},
				{"rand@7"},
			},
			want: "rand@7",
		},
		{
			name: "one scope, several counts kept",
			spellings: [][]string{
				{"rand@3,rand@2,rand"},
				{"rand", "rand@2", "rand@3"},
			},
			want: "rand,rand@2,rand@3",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, values := range tc.spellings {
				b, err := budget.Parse(values, tc.cwd)
				if err != nil {
					t.Fatalf("Parse(%q): %v", values, err)
				}
				if got := b.String(); got != tc.want {
					t.Errorf("Parse(%q).String() = %q, want %q", values, got, tc.want)
				}
			}
		})
	}
}

func TestHasOf(t *testing.T) {
	b := budget.MustParse("", "net:b.example,io,net:a.example:80")
	tests := []struct {
		name    string
		kind    budget.Kind
		wantHas bool
		wantOf  []budget.Item
	}{
		{name: "io", kind: budget.IO, wantHas: true, wantOf: []budget.Item{{Kind: budget.IO}}},
		{
			name: "net in canonical order", kind: budget.Net, wantHas: true,
			wantOf: []budget.Item{{Kind: budget.Net, Host: "a.example", Port: 80}, {Kind: budget.Net, Host: "b.example"}},
		},
		{name: "absent", kind: budget.FS, wantHas: false, wantOf: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := b.Has(tc.kind); got != tc.wantHas {
				t.Errorf("Has(%s) = %v, want %v", tc.kind, got, tc.wantHas)
			}
			if got := b.Of(tc.kind); !slices.Equal(got, tc.wantOf) {
				t.Errorf("Of(%s) = %v, want %v", tc.kind, got, tc.wantOf)
			}
		})
	}
}

func TestWith(t *testing.T) {
	b := budget.MustParse("", "rand,net")
	before := slices.Clone(b.Items)
	got := b.With(budget.Item{Kind: budget.IO}, budget.Item{Kind: budget.Rand})
	if want := "io,rand,net"; got.String() != want {
		t.Errorf("With(io, rand) = %q, want %q", got, want)
	}
	if !slices.Equal(b.Items, before) {
		t.Errorf("With changed its receiver: %v, was %v", b, before)
	}
}

func TestScope(t *testing.T) {
	it := budget.Item{Kind: budget.Net, Host: "localhost", Port: 8080, Limit: 3}
	want := budget.Item{Kind: budget.Net, Host: "localhost", Port: 8080}
	if got := it.Scope(); got != want {
		t.Errorf("Scope() = %#v, want %#v", got, want)
	}
	if it.Limit != 3 {
		t.Errorf("Scope changed its receiver's Limit to %d", it.Limit)
	}
}
