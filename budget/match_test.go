package budget_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

func read(path string) budget.Effect {
	return budget.Effect{Kind: budget.FS, Access: budget.Read, Path: path}
}

func write(path string) budget.Effect {
	return budget.Effect{Kind: budget.FS, Access: budget.Write, Path: path}
}

func dial(host string, port int) budget.Effect {
	return budget.Effect{Kind: budget.Net, Host: host, Port: port}
}

func datagram(host string, port int) budget.Effect {
	return budget.Effect{Kind: budget.Net, UDP: true, Host: host, Port: port}
}

func load(module string) budget.Effect {
	return budget.Effect{Kind: budget.FFI, Module: module}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		name string
		path string
		dir  string
		want bool
	}{
		{name: "the directory itself", path: "/data", dir: "/data", want: true},
		{name: "a child", path: "/data/x", dir: "/data", want: true},
		{name: "a grandchild", path: "/data/x/y", dir: "/data", want: true},
		{name: "a sibling sharing the prefix", path: "/database", dir: "/data", want: false},
		{name: "a sibling's child sharing the prefix", path: "/database/x", dir: "/data", want: false},
		{name: "a prefix of the directory", path: "/dat", dir: "/data", want: false},
		{name: "the parent", path: "/", dir: "/data", want: false},
		{name: "the same name elsewhere", path: "/srv/data", dir: "/data", want: false},
		{name: "root itself", path: "/", dir: "/", want: true},
		{name: "anything under root", path: "/etc/passwd", dir: "/", want: true},
		{name: "relative child", path: "data/x", dir: "data", want: true},
		{name: "relative sibling", path: "database", dir: "data", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := budget.Within(tc.path, tc.dir); got != tc.want {
				t.Errorf("Within(%q, %q) = %v, want %v", tc.path, tc.dir, got, tc.want)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		name   string
		item   string
		effect budget.Effect
		want   bool
	}{
		{name: "fs reads", item: "fs", effect: read("/etc/passwd"), want: true},
		{name: "fs writes", item: "fs", effect: write("/etc/passwd"), want: true},
		{name: "fs:read reads", item: "fs:read", effect: read("/etc/passwd"), want: true},
		{name: "fs:read does not write", item: "fs:read", effect: write("/tmp/x"), want: false},
		{name: "fs:write writes", item: "fs:write", effect: write("/tmp/x"), want: true},
		{name: "fs:write does not read", item: "fs:write", effect: read("/tmp/x"), want: false},
		{name: "the granted directory", item: "fs:read:/data", effect: read("/data"), want: true},
		{name: "beneath the granted directory", item: "fs:read:/data", effect: read("/data/in/x.csv"), want: true},
		{name: "a sibling sharing the prefix", item: "fs:read:/data", effect: read("/database"), want: false},
		{name: "a prefix of the granted directory", item: "fs:read:/data", effect: read("/dat"), want: false},
		{name: "the parent of the granted directory", item: "fs:read:/data", effect: read("/"), want: false},
		{name: "a read grant does not write beneath", item: "fs:read:/data", effect: write("/data/x"), want: false},
		{name: "a write grant does not read beneath", item: "fs:write:/data", effect: read("/data/x"), want: false},
		{name: "root grants everything beneath", item: "fs:write:/", effect: write("/srv/out/x"), want: true},
		{name: "fs does not connect", item: "fs", effect: dial("localhost", 80), want: false},

		{name: "net connects anywhere", item: "net", effect: dial("example.org", 443), want: true},
		{name: "host, any port", item: "net:example.org", effect: dial("example.org", 443), want: true},
		{name: "host in capitals", item: "net:example.org", effect: dial("EXAMPLE.Org", 80), want: true},
		{name: "item host in capitals", item: "net:EXAMPLE.org", effect: dial("example.org", 80), want: true},
		{name: "another host", item: "net:example.org", effect: dial("other.org", 443), want: false},
		// Unicode folds ſ to s and the Kelvin sign to k: a name the grant
		// would admit so is not the name the supervisor looks up.
		{name: "a host folded by Unicode", item: "net:localhost", effect: dial("localhoſt", 80), want: false},
		{name: "a Kelvin sign", item: "net:kiwi.example", effect: dial("Kiwi.example", 80), want: false},
		{name: "a subdomain", item: "net:example.org", effect: dial("api.example.org", 443), want: false},
		{name: "a longer name that begins with the host", item: "net:example.org",
			effect: dial("example.org.attacker.test", 443), want: false},
		{name: "a shorter name the host begins with", item: "net:example.org.attacker.test",
			effect: dial("example.org", 443), want: false},
		{name: "every letter in capitals", item: "net:a-z.zulu.example",
			effect: dial("A-Z.ZULU.EXAMPLE", 443), want: true},
		{name: "host and port", item: "net:example.org:443", effect: dial("example.org", 443), want: true},
		{name: "host and another port", item: "net:example.org:443", effect: dial("example.org", 80), want: false},
		{name: "ipv4", item: "net:127.0.0.1:5432", effect: dial("127.0.0.1", 5432), want: true},
		{name: "ipv6", item: "net:[::1]:8080", effect: dial("::1", 8080), want: true},
		{name: "ipv6 in brackets", item: "net:[::1]:8080", effect: dial("[::1]", 8080), want: true},
		{name: "ipv6 in brackets, any port", item: "net:[::1]", effect: dial("[::1]", 9), want: true},
		{name: "ipv6 another port", item: "net:[::1]:8080", effect: dial("::1", 8081), want: false},
		{name: "ipv6 another address", item: "net:[::1]", effect: dial("::2", 8080), want: false},
		{name: "ipv6 in capitals", item: "net:[fe80::1]", effect: dial("FE80::1", 22), want: true},
		{name: "net does not read", item: "net", effect: read("/etc/hosts"), want: false},

		{name: "udp sends anywhere", item: "net:udp", effect: datagram("example.org", 53), want: true},
		{name: "udp host and port", item: "net:udp:127.0.0.1:9", effect: datagram("127.0.0.1", 9), want: true},
		{name: "udp host and another port", item: "net:udp:127.0.0.1:9", effect: datagram("127.0.0.1", 10), want: false},
		{name: "udp ipv6 in brackets", item: "net:udp:[::1]", effect: datagram("[::1]", 53), want: true},
		{name: "a net grant sends no datagram", item: "net", effect: datagram("example.org", 53), want: false},
		{name: "a host and port grant sends no datagram there", item: "net:127.0.0.1:9", effect: datagram("127.0.0.1", 9), want: false},
		{name: "a udp grant connects nowhere", item: "net:udp", effect: dial("example.org", 443), want: false},
		{name: "a udp host and port grant does not connect there", item: "net:udp:127.0.0.1:9", effect: dial("127.0.0.1", 9), want: false},

		{name: "ffi loads any module", item: "ffi", effect: load("json"), want: true},
		{name: "the granted module", item: "ffi:json", effect: load("json"), want: true},
		{name: "another module", item: "ffi:json", effect: load("yaml"), want: false},
		{name: "module names are case sensitive", item: "ffi:json", effect: load("JSON"), want: false},
		{name: "a submodule", item: "ffi:json", effect: load("json.x"), want: false},

		{name: "rand", item: "rand", effect: budget.Effect{Kind: budget.Rand}, want: true},
		{name: "a count is aside", item: "rand@1", effect: budget.Effect{Kind: budget.Rand}, want: true},
		{name: "io is not env", item: "io", effect: budget.Effect{Kind: budget.Env}, want: false},
		{name: "clock", item: "clock", effect: budget.Effect{Kind: budget.Clock}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it, err := budget.ParseItem(tc.item, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := it.Covers(tc.effect); got != tc.want {
				t.Errorf("%s covers %s = %v, want %v", tc.item, tc.effect, got, tc.want)
			}
		})
	}
}

// TestMeterMostSpecific checks that among the grants covering an effect the
// narrowest is charged.
func TestMeterMostSpecific(t *testing.T) {
	fs := []string{"fs,fs:read,fs:write:/data", "fs:read:/data/in,fs:read:/data"}
	net := []string{"net:example.org:443,net,net:example.org"}
	ffi := []string{"ffi:json,ffi"}
	tests := []struct {
		name      string
		budget    []string
		effect    budget.Effect
		wantGrant string
	}{
		{name: "deepest directory", budget: fs, effect: read("/data/in/x.csv"), wantGrant: "fs:read:/data/in"},
		{name: "the deepest directory itself", budget: fs, effect: read("/data/in"), wantGrant: "fs:read:/data/in"},
		{name: "shallower directory", budget: fs, effect: read("/data/out/x"), wantGrant: "fs:read:/data"},
		{name: "sibling of the directory", budget: fs, effect: read("/database"), wantGrant: "fs:read"},
		{name: "read anywhere", budget: fs, effect: read("/etc/passwd"), wantGrant: "fs:read"},
		{name: "write directory", budget: fs, effect: write("/data/in/x"), wantGrant: "fs:write:/data"},
		{name: "write anywhere", budget: fs, effect: write("/tmp/x"), wantGrant: "fs"},
		{name: "access before any path", budget: []string{"fs,fs:read"}, effect: read("/x"), wantGrant: "fs:read"},
		{name: "host and port", budget: net, effect: dial("example.org", 443), wantGrant: "net:example.org:443"},
		{name: "host and port in capitals", budget: net, effect: dial("Example.ORG", 443), wantGrant: "net:example.org:443"},
		{name: "host", budget: net, effect: dial("example.org", 80), wantGrant: "net:example.org"},
		{name: "any host", budget: net, effect: dial("other.org", 443), wantGrant: "net"},
		{name: "module", budget: ffi, effect: load("json"), wantGrant: "ffi:json"},
		{name: "any module", budget: ffi, effect: load("yaml"), wantGrant: "ffi"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := budget.NewMeter(budget.MustParse("", tc.budget...), nil)
			g, err := m.Use(tc.effect)
			if err != nil {
				t.Fatalf("Use(%s): %v", tc.effect, err)
			}
			if got := g.String(); got != tc.wantGrant {
				t.Errorf("Use(%s) charged %s, want %s", tc.effect, got, tc.wantGrant)
			}
		})
	}
}

// step is one Meter.Use and what it should give: the grant charged, or an
// error that is wantErr.
type step struct {
	effect    budget.Effect
	wantGrant string
	wantErr   error
}

func TestMeterCounts(t *testing.T) {
	tests := []struct {
		name      string
		budget    []string
		steps     []step
		wantUsage []budget.Usage
	}{
		{
			name:   "count runs out",
			budget: []string{"rand@2"},
			steps: []step{
				{effect: budget.Effect{Kind: budget.Rand}, wantGrant: "rand@2"},
				{effect: budget.Effect{Kind: budget.Rand}, wantGrant: "rand@2"},
				{effect: budget.Effect{Kind: budget.Rand}, wantErr: budget.ErrUsedUp},
				{effect: budget.Effect{Kind: budget.Rand}, wantErr: budget.ErrUsedUp},
			},
			wantUsage: []budget.Usage{{Grant: "rand@2", Uses: 2, Limit: 2}},
		},
		{
			name:   "counted directory, then the wider grant",
			budget: []string{"fs:read:/data,fs:read:/data/in@2"},
			steps: []step{
				{effect: read("/data/in/a"), wantGrant: "fs:read:/data/in@2"},
				{effect: read("/data/out/a"), wantGrant: "fs:read:/data"},
				{effect: read("/data/in/b"), wantGrant: "fs:read:/data/in@2"},
				{effect: read("/data/in/c"), wantGrant: "fs:read:/data"},
				{effect: read("/data/in/d"), wantGrant: "fs:read:/data"},
			},
			wantUsage: []budget.Usage{
				{Grant: "fs:read:/data", Uses: 3},
				{Grant: "fs:read:/data/in@2", Uses: 2, Limit: 2},
			},
		},
		{
			name:   "counted port, then counted host, then used up",
			budget: []string{"net:example.org@1,net:example.org:443@1"},
			steps: []step{
				{effect: dial("example.org", 443), wantGrant: "net:example.org:443@1"},
				{effect: dial("example.org", 443), wantGrant: "net:example.org@1"},
				{effect: dial("example.org", 443), wantErr: budget.ErrUsedUp},
				{effect: dial("other.org", 443), wantErr: budget.ErrNotGranted},
			},
			wantUsage: []budget.Usage{
				{Grant: "net:example.org@1", Uses: 1, Limit: 1},
				{Grant: "net:example.org:443@1", Uses: 1, Limit: 1},
			},
		},
		{
			name:   "one count per grant, not per kind",
			budget: []string{"ffi:json@1,ffi:yaml@1"},
			steps: []step{
				{effect: load("json"), wantGrant: "ffi:json@1"},
				{effect: load("yaml"), wantGrant: "ffi:yaml@1"},
				{effect: load("json"), wantErr: budget.ErrUsedUp},
				{effect: load("csv"), wantErr: budget.ErrNotGranted},
			},
			wantUsage: []budget.Usage{
				{Grant: "ffi:json@1", Uses: 1, Limit: 1},
				{Grant: "ffi:yaml@1", Uses: 1, Limit: 1},
			},
		},
		{
			name:   "refusals are not counted",
			budget: []string{"fs:read:/data,io"},
			steps: []step{
				{effect: write("/data/x"), wantErr: budget.ErrNotGranted},
				{effect: budget.Effect{Kind: budget.Env}, wantErr: budget.ErrNotGranted},
				{effect: budget.Effect{Kind: budget.IO}, wantGrant: "io"},
			},
			wantUsage: []budget.Usage{
				{Grant: "io", Uses: 1},
				{Grant: "fs:read:/data", Uses: 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := budget.NewMeter(budget.MustParse("", tc.budget...), nil)
			for i, s := range tc.steps {
				g, err := m.Use(s.effect)
				switch {
				case s.wantErr != nil && !errors.Is(err, s.wantErr):
					t.Fatalf("step %d: Use(%s) = %s, %v; want error %v", i, s.effect, g, err, s.wantErr)
				case s.wantErr == nil && err != nil:
					t.Fatalf("step %d: Use(%s): %v", i, s.effect, err)
				case g.String() != s.wantGrant:
					t.Fatalf("step %d: Use(%s) charged %q, want %q", i, s.effect, g, s.wantGrant)
				}
			}
			if got := m.Usage(); !slices.Equal(got, tc.wantUsage) {
				t.Errorf("Usage() = %+v, want %+v", got, tc.wantUsage)
			}
		})
	}
}

// TestNotGranted checks that a refusal names an item that parses and, once
// added to the budget, grants the effect.
func TestNotGranted(t *testing.T) {
	tests := []struct {
		name    string
		budget  []string
		effect  budget.Effect
		wantAdd string
	}{
		{name: "read on an empty budget", effect: read("/etc/passwd"), wantAdd: "fs:read:/etc/passwd"},
		{name: "write on a read budget", budget: []string{"fs:read"}, effect: write("/srv/out/x"), wantAdd: "fs:write:/srv/out/x"},
		{name: "read beside the grant", budget: []string{"fs:read:/data"}, effect: read("/database"), wantAdd: "fs:read:/database"},
		{name: "host in capitals", effect: dial("Example.ORG", 443), wantAdd: "net:example.org:443"},
		{name: "another port", budget: []string{"net:example.org:80"}, effect: dial("example.org", 443), wantAdd: "net:example.org:443"},
		{name: "ipv6", effect: dial("::1", 8080), wantAdd: "net:[::1]:8080"},
		{name: "ipv6 in brackets", effect: dial("[::1]", 8080), wantAdd: "net:[::1]:8080"},
		{name: "a datagram under a tcp grant of its port", budget: []string{"net:127.0.0.1:9"}, effect: datagram("127.0.0.1", 9), wantAdd: "net:udp:127.0.0.1:9"},
		{name: "a datagram to ipv6", effect: datagram("[::1]", 53), wantAdd: "net:udp:[::1]:53"},
		{name: "a connection under a udp grant of its port", budget: []string{"net:udp:127.0.0.1:9"}, effect: dial("127.0.0.1", 9), wantAdd: "net:127.0.0.1:9"},
		{name: "module", budget: []string{"ffi:yaml"}, effect: load("json"), wantAdd: "ffi:json"},
		{name: "rand", budget: []string{"io,clock"}, effect: budget.Effect{Kind: budget.Rand}, wantAdd: "rand"},
		{name: "tool", effect: budget.Effect{Kind: budget.Tool}, wantAdd: "tool"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := budget.MustParse("", tc.budget...)
			_, err := budget.NewMeter(b, nil).Use(tc.effect)
			if !errors.Is(err, budget.ErrNotGranted) || errors.Is(err, budget.ErrUsedUp) {
				t.Fatalf("Use(%s) = %v, want ErrNotGranted", tc.effect, err)
			}
			if !strings.Contains(err.Error(), "add "+tc.wantAdd+" ") {
				t.Errorf("error %q does not say to add %s", err, tc.wantAdd)
			}
			need := tc.effect.Need()
			add, perr := budget.ParseItem(tc.wantAdd, "")
			if perr != nil || add != need {
				t.Fatalf("ParseItem(%q) = %#v, %v; want Need() = %#v", tc.wantAdd, add, perr, need)
			}
			if _, err := budget.NewMeter(b.With(need), nil).Use(tc.effect); err != nil {
				t.Errorf("with %s added, Use(%s): %v", need, tc.effect, err)
			}
		})
	}
}

func TestFindDoesNotCharge(t *testing.T) {
	m := budget.NewMeter(budget.MustParse("", "io,rand@1"), nil)
	e := budget.Effect{Kind: budget.Rand}
	i, err := m.Find(e)
	if err != nil {
		t.Fatalf("Find(%s): %v", e, err)
	}
	if j, err := m.Find(e); err != nil || j != i {
		t.Fatalf("second Find(%s) = %d, %v; want %d, nil", e, j, err, i)
	}
	if got := m.Usage()[i].Uses; got != 0 {
		t.Errorf("after Find, %s has %d uses, want 0", m.Budget().Items[i], got)
	}
	if got := m.Charge(i).String(); got != "rand@1" {
		t.Errorf("Charge(%d) = %s, want rand@1", i, got)
	}
	if _, err := m.Find(e); !errors.Is(err, budget.ErrUsedUp) {
		t.Errorf("Find after Charge = %v, want ErrUsedUp", err)
	}
}

// TestNewMeterResolve checks that effects are matched against the resolved
// paths while the meter names the grants as written.
func TestNewMeterResolve(t *testing.T) {
	b := budget.MustParse("", "fs:read:/link/in,fs:write:/out,fs:write,net")
	links := map[string]string{"/link/in": "/real/in"}
	var asked []string
	m := budget.NewMeter(b, func(p string) string {
		asked = append(asked, p)
		if r, ok := links[p]; ok {
			return r
		}
		return p
	})
	if want := []string{"/link/in", "/out"}; !slices.Equal(asked, want) {
		t.Errorf("resolve was asked %q, want each fs grant's path once: %q", asked, want)
	}
	if got := m.Budget(); !slices.Equal(got.Items, b.Items) {
		t.Errorf("Budget() = %v, want %v", got, b)
	}

	g, err := m.Use(read("/real/in/x"))
	if err != nil {
		t.Fatalf("read beneath the resolved path: %v", err)
	}
	if want := "fs:read:/link/in"; g.String() != want {
		t.Errorf("read beneath the resolved path charged %s, want %s as written", g, want)
	}
	if _, err := m.Use(read("/link/in/x")); !errors.Is(err, budget.ErrNotGranted) {
		t.Errorf("read beneath the link = %v, want ErrNotGranted", err)
	}

	i := slices.Index(b.Items, g)
	if got := m.Matched(i).Path; got != "/real/in" {
		t.Errorf("Matched(%d).Path = %q, want /real/in", i, got)
	}
	if got := m.Usage()[i]; got != (budget.Usage{Grant: "fs:read:/link/in", Uses: 1}) {
		t.Errorf("Usage()[%d] = %+v, want the grant as written with 1 use", i, got)
	}
}

func TestNewMeterNilResolve(t *testing.T) {
	b := budget.MustParse("/home/ana/job", "fs:read:data,net")
	m := budget.NewMeter(b, nil)
	for i, it := range b.Items {
		if got := m.Matched(i); got != it {
			t.Errorf("Matched(%d) = %v, want %v", i, got, it)
		}
	}
}
