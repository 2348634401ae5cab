package core

import (
	"bytes"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit/budgetgen"
)

// randomItems draws up to n items from budgetgen's pool.
func randomItems(r *rand.Rand, n int) []budget.Item { return budgetgen.Items(r, n) }

// netRank orders network modes from closed to open.
var netRank = map[string]int{NetClosed: 0, NetHosts: 1, NetOpen: 2}

// wider reports whether policy a allows at least what b allows: a
// direction, the network and the interpreter's needs at least as wide,
// and a policy that enforces nothing wider than any.
func wider(a, b Policy) bool {
	if !a.Enforced {
		return true
	}
	if !b.Enforced {
		return false
	}
	return widerDirection(a.Read, b.Read) && widerDirection(a.Write, b.Write) &&
		widerNetwork(a.Network, b.Network) &&
		!slices.ContainsFunc(b.Interpreter, func(n string) bool { return !slices.Contains(a.Interpreter, n) })
}

func widerDirection(a, b Direction) bool {
	if a.Unrestricted {
		return true
	}
	if b.Unrestricted {
		return false
	}
	for _, q := range b.Paths {
		if !slices.ContainsFunc(a.Paths, func(p string) bool { return budget.Within(q, p) }) {
			return false
		}
	}
	return true
}

func widerNetwork(a, b Network) bool {
	if !widerEndpoints(a.UDP, b.UDP) {
		return false
	}
	if netRank[a.Mode] != netRank[b.Mode] || a.Mode != NetHosts {
		return netRank[a.Mode] >= netRank[b.Mode]
	}
	return widerEndpoints(a.Hosts, b.Hosts)
}

// widerEndpoints reports whether the endpoints a cover those of b: each
// of b's by a's any host, or its host with any port or its own.
func widerEndpoints(a, b []Endpoint) bool {
	for _, e := range b {
		if !slices.ContainsFunc(a, func(f Endpoint) bool {
			return f.Host == "" || f.Host == e.Host && (f.Port == 0 || f.Port == e.Port)
		}) {
			return false
		}
	}
	return true
}

func TestWider(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		want bool
	}{
		{name: "same", a: "io,fs:read:/srv", b: "io,fs:read:/srv", want: true},
		{name: "a parent directory", a: "fs:read:/srv", b: "fs:read:/srv/data", want: true},
		{name: "a child directory", a: "fs:read:/srv/data", b: "fs:read:/srv", want: false},
		{name: "a sibling", a: "fs:read:/srv/a", b: "fs:read:/srv/b", want: false},
		{name: "any path", a: "fs:write", b: "fs:write:/srv", want: true},
		{name: "another direction", a: "fs:write:/srv", b: "fs:read:/srv", want: false},
		{name: "a host over none", a: "net:example.org", b: "io", want: true},
		{name: "none over a host", a: "io", b: "net:example.org", want: false},
		{name: "any port over one", a: "net:example.org", b: "net:example.org:443", want: true},
		{name: "one port over any", a: "net:example.org:443", b: "net:example.org", want: false},
		{name: "another host", a: "net:example.org", b: "net:localhost", want: false},
		{name: "open over hosts", a: "net", b: "net:example.org:443", want: true},
		{name: "TCP to any host is not UDP", a: "net", b: "net:udp:example.org:53", want: false},
		{name: "UDP to any host is not TCP", a: "net:udp", b: "net:example.org", want: false},
		{name: "UDP to any host over one", a: "net:udp,net:example.org", b: "net:udp:localhost:53,net:example.org:443", want: true},
		{name: "UDP to one port over any", a: "net:udp:example.org:53", b: "net:udp:example.org", want: false},
		{name: "off over everything", a: "ffi:os", b: "fs,net", want: true},
		{name: "everything over off", a: "fs,net", b: "ffi:os", want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wider(policyOf(tc.a, false), policyOf(tc.b, false)); got != tc.want {
				t.Errorf("wider(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestGrantsOnlyWiden: adding a grant to a budget never narrows its
// policy, and taking one away never widens it.
func TestGrantsOnlyWiden(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	cases, strictlyWider := 0, 0
	for range 5000 {
		items := randomItems(r, 8)
		if len(items) == 0 {
			continue
		}
		strict := r.Intn(3) == 0
		full := OSPolicy(budget.Budget{}.With(items...), Options{Mode: modeOf(strict)})
		i := r.Intn(len(items))
		less := OSPolicy(budget.Budget{}.With(slices.Delete(slices.Clone(items), i, i+1)...), Options{Mode: modeOf(strict)})
		if !wider(full, less) {
			t.Fatalf("adding %s narrowed the policy:\nwithout %s\nwith    %s", items[i], less.JSON(), full.JSON())
		}
		added := budgetgen.One(r)
		more := OSPolicy(budget.Budget{}.With(append(items, added)...), Options{Mode: modeOf(strict)})
		if !wider(more, full) {
			t.Fatalf("adding %s narrowed the policy:\nwithout %s\nwith    %s", added, full.JSON(), more.JSON())
		}
		if !wider(less, full) {
			strictlyWider++
		}
		cases++
	}
	if strictlyWider == 0 {
		t.Error("no generated grant widened a policy: the generator tests nothing")
	}
	t.Logf("checked %d budgets, %d of whose items widened the policy", cases, strictlyWider)
}

// TestStrictNeverWider: --confine strict never allows more than the same
// budget without it, and is enforced whatever modules are granted.
func TestStrictNeverWider(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	narrower := 0
	for range 5000 {
		b := budget.Budget{}.With(randomItems(r, 8)...)
		loose, strict := OSPolicy(b, Options{}), OSPolicy(b, Options{Mode: modeOf(true)})
		if !wider(loose, strict) {
			t.Fatalf("%s: strict %s is wider than %s", b, strict.JSON(), loose.JSON())
		}
		if !strict.Enforced || len(strict.WidenedBy) > 0 {
			t.Fatalf("%s: strict policy %s is widened", b, strict.JSON())
		}
		if !wider(strict, loose) {
			narrower++
		}
	}
	if narrower == 0 {
		t.Error("strict narrowed no generated budget: the generator tests nothing")
	}
	t.Logf("strict narrowed %d of 5000 budgets", narrower)
}

// TestDigestFollowsDocument: two policies have the same digest exactly
// when they have the same canonical document.
func TestDigestFollowsDocument(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var policies []Policy
	for range 400 {
		items := randomItems(r, 5)
		strict := r.Intn(2) == 0
		policies = append(policies, OSPolicy(budget.Budget{}.With(items...), Options{Mode: modeOf(strict)}))
		// The same items shuffled and repeated: the same document.
		r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		policies = append(policies, OSPolicy(budget.Budget{}.With(append(items, items...)...), Options{Mode: modeOf(strict)}))
	}
	docs, digests := make([][]byte, len(policies)), make([]string, len(policies))
	for i, p := range policies {
		docs[i], digests[i] = p.JSON(), p.SHA256()
	}
	same, differ := 0, 0
	for i := range policies {
		for j := i + 1; j < len(policies); j++ {
			sameDoc := bytes.Equal(docs[i], docs[j])
			if sameDigest := digests[i] == digests[j]; sameDoc != sameDigest {
				t.Fatalf("documents equal %v, digests equal %v:\n%s\n%s", sameDoc, sameDigest, docs[i], docs[j])
			}
			if sameDoc {
				same++
			} else {
				differ++
			}
		}
	}
	if same == 0 || differ == 0 {
		t.Errorf("%d equal and %d different pairs: both must occur", same, differ)
	}
	t.Logf("checked %d pairs: %d equal, %d different", same+differ, same, differ)
}

func TestOSPolicy(t *testing.T) {
	base := []string{NeedExecutable, NeedDevNull, NeedURandom, NeedTZData, NeedTemp}
	withNet := append(slices.Clone(base), NeedResolver, NeedTLSRoots)
	for _, tc := range []struct {
		name          string
		allow         string
		strict        bool
		wantRead      string // "*" for unrestricted, else paths joined by ","; " named ", Named
		wantWrite     string
		wantNetwork   string
		wantHosts     []Endpoint
		wantUDP       []Endpoint
		wantEnforced  bool
		wantWidenedBy string // module:widening, joined by ","
		wantNeeds     []string
	}{
		{name: "nothing", allow: "", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "io", allow: "io,env,clock,rand@2,declassify,tool", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "a read grant", allow: "io,fs:read:/srv/data", wantRead: "/srv/data", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "a write grant", allow: "fs:write:/srv/out", wantWrite: "/srv/out", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "one path both ways", allow: "fs:read:/a,fs:write:/a,fs:read:/b", wantRead: "/a,/b", wantWrite: "/a", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "nested grants: the outer, the inner named", allow: "fs:read:/srv/data/in,fs:read:/srv,fs:read:/srv2", wantRead: "/srv,/srv2 named /srv/data/in", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "any path", allow: "fs,fs:read:/srv", wantRead: "* named /srv", wantWrite: "*", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "reads anywhere", allow: "fs:read,fs:write:/out", wantRead: "*", wantWrite: "/out", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "named hosts", allow: "net:localhost:8080,net:example.org,net:[::1]:53", wantNetwork: NetHosts,
			wantHosts: []Endpoint{{"::1", 53}, {"example.org", 0}, {"localhost", 8080}}, wantEnforced: true, wantNeeds: withNet},
		{name: "one host on several ports, by port",
			allow:       "net:example.org:8080,net:example.org:443,net:example.org:80",
			wantNetwork: NetHosts,
			wantHosts: []Endpoint{
				{"example.org", 80}, {"example.org", 443}, {"example.org", 8080}},
			wantEnforced: true, wantNeeds: withNet},
		{name: "any host", allow: "net,net:example.org", wantNetwork: NetOpen, wantEnforced: true, wantNeeds: withNet},
		{name: "UDP alone: TCP to no host but the resolver's", allow: "net:udp:10.0.0.2:514,net:udp:[::1]", wantNetwork: NetHosts,
			wantUDP: []Endpoint{{"10.0.0.2", 514}, {"::1", 0}}, wantEnforced: true, wantNeeds: withNet},
		{name: "UDP beside TCP to the same port", allow: "net:localhost:53,net:udp:localhost:53", wantNetwork: NetHosts,
			wantHosts: []Endpoint{{"localhost", 53}}, wantUDP: []Endpoint{{"localhost", 53}}, wantEnforced: true, wantNeeds: withNet},
		{name: "UDP to any host beside TCP to any", allow: "net:udp,net", wantNetwork: NetOpen,
			wantUDP: []Endpoint{{"", 0}}, wantEnforced: true, wantNeeds: withNet},
		{name: "a module that reaches any host reaches no UDP", allow: "ffi:socket", wantNetwork: NetOpen,
			wantEnforced: true, wantWidenedBy: "socket:any host", wantNeeds: withNet},
		{name: "a module that widens nothing", allow: "io,ffi:json", wantNetwork: NetClosed, wantEnforced: true, wantNeeds: base},
		{name: "a module that reaches any path", allow: "ffi:pathlib,fs:read:/srv", wantRead: "* named /srv", wantWrite: "*", wantNetwork: NetClosed,
			wantEnforced: true, wantWidenedBy: "pathlib:any path", wantNeeds: base},
		{name: "a module that reaches any host", allow: "ffi:socket,net:example.org", wantNetwork: NetOpen,
			wantEnforced: true, wantWidenedBy: "socket:any host", wantNeeds: withNet},
		{name: "a module that reaches both", allow: "ffi:requests", wantRead: "*", wantWrite: "*", wantNetwork: NetOpen,
			wantEnforced: true, wantWidenedBy: "requests:any path and any host", wantNeeds: withNet},
		{name: "a module that turns the layer off", allow: "ffi:os,ffi:json", wantRead: "*", wantWrite: "*", wantNetwork: NetOpen,
			wantWidenedBy: "os:nothing enforced", wantNeeds: withNet},
		{name: "a module not in the table", allow: "ffi:nosuchmodule", wantRead: "*", wantWrite: "*", wantNetwork: NetOpen,
			wantWidenedBy: "nosuchmodule:nothing enforced", wantNeeds: withNet},
		{name: "plain ffi", allow: "ffi", wantRead: "*", wantWrite: "*", wantNetwork: NetOpen,
			wantWidenedBy: ":nothing enforced", wantNeeds: withNet},
		{name: "strict", allow: "ffi,ffi:requests,fs:read:/srv", strict: true, wantRead: "/srv", wantNetwork: NetClosed,
			wantEnforced: true, wantNeeds: base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := policyOf(tc.allow, tc.strict)
			Direction := func(d Direction) string {
				s := strings.Join(d.Paths, ",")
				if d.Unrestricted {
					s = "*"
				}
				if len(d.Named) > 0 {
					s += " named " + strings.Join(d.Named, ",")
				}
				return s
			}
			var widened []string
			for _, w := range p.WidenedBy {
				widened = append(widened, w.Module+":"+string(w.To))
			}
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"read", Direction(p.Read), tc.wantRead},
				{"write", Direction(p.Write), tc.wantWrite},
				{"network", p.Network.Mode, tc.wantNetwork},
				{"enforced", p.Enforced, tc.wantEnforced},
				{"widened_by", strings.Join(widened, ","), tc.wantWidenedBy},
				{"strict", p.Strict, tc.strict},
			} {
				if c.got != c.want {
					t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
				}
			}
			if !slices.Equal(p.Network.Hosts, tc.wantHosts) {
				t.Errorf("hosts: %v, want %v", p.Network.Hosts, tc.wantHosts)
			}
			if !slices.Equal(p.Network.UDP, tc.wantUDP) {
				t.Errorf("udp: %v, want %v", p.Network.UDP, tc.wantUDP)
			}
			if !slices.Equal(p.Interpreter, tc.wantNeeds) {
				t.Errorf("interpreter: %v, want %v", p.Interpreter, tc.wantNeeds)
			}
		})
	}
}

// policyOf derives the policy of an --allow text, paths taken from /.
func policyOf(allow string, strict bool) Policy {
	return OSPolicy(budget.MustParse("/", allow), Options{Mode: modeOf(strict)})
}

// modeOf is ModeStrict when strict, else ModeDefault.
func modeOf(strict bool) Mode {
	if strict {
		return ModeStrict
	}
	return ModeDefault
}
