package budget

import (
	"strings"
	"testing"
)

// TestBeneath checks which budgets a ceiling holds, each wider one beside
// a narrower one that passes.
func TestBeneath(t *testing.T) {
	tests := []struct {
		name    string
		ceiling string
		b       string
		wantErr string // "" when b is beneath the ceiling
	}{
		{name: "the ceiling itself", ceiling: "io,fs:read:/srv", b: "io,fs:read:/srv"},
		{name: "nothing", ceiling: "io", b: ""},
		{name: "a subdirectory", ceiling: "fs:read:/srv", b: "fs:read:/srv/data"},
		{name: "a sibling", ceiling: "fs:read:/srv", b: "fs:read:/srvx", wantErr: "fs:read:/srvx is not within"},
		{name: "read within plain fs", ceiling: "fs", b: "fs:read:/srv/a"},
		{name: "write beyond read", ceiling: "fs:read:/srv", b: "fs:write:/srv/a", wantErr: "fs:write:/srv/a"},
		{name: "any path beyond one", ceiling: "fs:read:/srv", b: "fs:read", wantErr: "fs:read is not within"},
		{name: "a port of a host", ceiling: "net:example.org", b: "net:example.org:443"},
		{name: "another port", ceiling: "net:example.org:443", b: "net:example.org:80", wantErr: "net:example.org:80"},
		{name: "any host beyond one", ceiling: "net:example.org", b: "net", wantErr: "net is not within"},
		{name: "udp of a udp host", ceiling: "net:udp:example.org", b: "net:udp:example.org:53"},
		{name: "udp beyond any tcp", ceiling: "net", b: "net:udp:example.org:53", wantErr: "net:udp:example.org:53 is not within"},
		{name: "tcp beyond any udp", ceiling: "net:udp", b: "net:example.org", wantErr: "net:example.org is not within"},
		{name: "one module of all", ceiling: "ffi", b: "ffi:json"},
		{name: "another module", ceiling: "ffi:json", b: "ffi:os", wantErr: "ffi:os"},
		{name: "every module beyond one", ceiling: "ffi:json", b: "ffi", wantErr: "ffi is not within"},
		{name: "the one module of the ceiling", ceiling: "ffi:json", b: "ffi:json"},
		{name: "another kind", ceiling: "io", b: "env", wantErr: "env is not within"},
		{name: "a smaller count", ceiling: "rand@3", b: "rand@2"},
		{name: "a larger count", ceiling: "rand@3", b: "rand@4", wantErr: "past the ceiling's 3"},
		{name: "no count under a counted ceiling", ceiling: "rand@3", b: "rand", wantErr: "has no count"},
		{name: "counts adding up past it", ceiling: "fs:read:/srv@3", b: "fs:read:/srv/a@2,fs:read:/srv/b@2", wantErr: "past the ceiling's 3"},
		{name: "a count under no count", ceiling: "rand", b: "rand@9"},
		{name: "the ceiling's count exactly", ceiling: "rand@3", b: "rand@3"},
		{name: "counts adding up to it", ceiling: "fs:read:/srv@3",
			b: "fs:read:/srv/a@1,fs:read:/srv/b@2"},
		{name: "the narrower of two holds its count", ceiling: "fs:read,fs:read:/srv@2",
			b: "fs:read:/srv/x", wantErr: "has no count, and the ceiling's fs:read:/srv@2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var items []string
			if tt.b != "" {
				items = []string{tt.b}
			}
			err := MustParse("/", items...).Beneath(MustParse("/", tt.ceiling))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Beneath: %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Beneath: %v, want an error naming %q", err, tt.wantErr)
			}
		})
	}
}

// TestBeneathAs: a path beneath the ceiling's as written that leads out
// of it (a link, as resolve says) is not within it, since a grant is held
// where its path leads; the controls: a path that leads within, the
// ceiling's own path leading elsewhere with it, and no resolve.
func TestBeneathAs(t *testing.T) {
	links := map[string]string{ // what resolve says each path leads to
		"/srv/data/out":  "/etc",
		"/srv/data/in":   "/srv/data/in",
		"/srv/data":      "/srv/data",
		"/mnt/data":      "/disk/data",
		"/mnt/data/sub":  "/disk/data/sub",
		"/srv/data/back": "/srv/data",
	}
	resolve := func(p string) string {
		if r, ok := links[p]; ok {
			return r
		}
		return p
	}
	tests := []struct {
		name    string
		ceiling string
		b       string
		resolve func(string) string
		wantErr string
	}{
		{name: "a link out of the ceiling", ceiling: "io,fs:read:/srv/data", b: "fs:read:/srv/data/out",
			resolve: resolve, wantErr: "fs:read:/srv/data/out leads to /etc, which is not within"},
		{name: "a write through a link out", ceiling: "fs:write:/srv/data", b: "fs:write:/srv/data/out",
			resolve: resolve, wantErr: "leads to /etc"},
		{name: "a directory within", ceiling: "fs:read:/srv/data", b: "fs:read:/srv/data/in",
			resolve: resolve},
		{name: "a link back within", ceiling: "fs:read:/srv/data", b: "fs:read:/srv/data/back",
			resolve: resolve},
		{name: "the ceiling itself a link", ceiling: "fs:read:/mnt/data", b: "fs:read:/mnt/data/sub",
			resolve: resolve},
		{name: "any path holds every link", ceiling: "fs:read", b: "fs:read:/srv/data/out",
			resolve: resolve},
		{name: "wider as written", ceiling: "fs:read:/srv/data", b: "fs:read:/etc", resolve: resolve,
			wantErr: "fs:read:/etc is not within"},
		{name: "no resolve: as written", ceiling: "fs:read:/srv/data", b: "fs:read:/srv/data/out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := MustParse("/", tt.b).BeneathAs(MustParse("/", tt.ceiling), tt.resolve)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("BeneathAs: %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("BeneathAs: %v, want an error naming %q", err, tt.wantErr)
			}
		})
	}
}

// TestBeneathAsResolvesOnlyWhatItMust: a budget that is its ceiling's
// own items, as a pooled run or a tenant's given the ceiling is, resolves
// no path (each run would pay for it); one item of another path resolves
// that path and each of the ceiling's once, and a link out among them is
// still refused (the control).
func TestBeneathAsResolvesOnlyWhatItMust(t *testing.T) {
	ceiling := MustParse("/", "io,fs:read:/srv/data,fs:write:/srv/out")
	tests := []struct {
		name      string
		b         string
		wantCalls int
		wantErr   bool
	}{
		{name: "the ceiling itself", b: "io,fs:read:/srv/data,fs:write:/srv/out"},
		{name: "one of its items, counted", b: "fs:read:/srv/data@3"},
		{name: "a path beneath", b: "fs:read:/srv/data/in", wantCalls: 3},
		{name: "a link out beneath", b: "fs:read:/srv/data/up", wantCalls: 3, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			resolve := func(p string) string {
				calls++
				if p == "/srv/data/up" {
					return "/etc"
				}
				return p
			}
			err := MustParse("/", tt.b).BeneathAs(ceiling, resolve)
			if calls != tt.wantCalls || (err != nil) != tt.wantErr {
				t.Errorf("BeneathAs: %d paths resolved, %v; want %d, an error %v", calls, err,
					tt.wantCalls, tt.wantErr)
			}
		})
	}
}
