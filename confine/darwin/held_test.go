package darwin

import (
	"errors"
	"os"
	"os/user"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

// macLinks resolves paths as a Mac would: /tmp, /etc and /var are links
// into /private; what is in exists.
func macLinks(exists ...string) func(string) (string, error) {
	return func(p string) (string, error) {
		for _, l := range []string{"/tmp", "/etc", "/var"} {
			if p == l || strings.HasPrefix(p, l+"/") {
				p = "/private" + p
			}
		}
		if p == "/" || p == "/private" || slices.Contains(exists, p) {
			return p, nil
		}
		return "", errors.New("no such file or directory")
	}
}

func TestDarwinResolved(t *testing.T) {
	eval := macLinks("/private/tmp", "/private/etc", "/private/etc/hosts", "/Users", "/Users/ana", "/Users/ana/data")
	p := confinetest.PolicyOf("io,fs:read:/Users/ana/data,fs:write:/tmp/out/new", false)
	before := slices.Clone(p.Write.Paths)
	rp, rn := resolved(p, core.Needs{TempDir: "/tmp", Resolver: []string{"/etc/hosts"}, Executable: "relative"}, eval)
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{name: "a path that exists", got: rp.Read.Paths, want: []string{"/Users/ana/data"}},
		{name: "a path that does not exist yet, through its nearest directory", got: rp.Write.Paths, want: []string{"/private/tmp/out/new"}},
		{name: "a need through a link", got: []string{rn.TempDir}, want: []string{"/private/tmp"}},
		{name: "a need file", got: rn.Resolver, want: []string{"/private/etc/hosts"}},
		{name: "a relative path is left for the profile to refuse", got: []string{rn.Executable}, want: []string{"relative"}},
		{name: "the caller's policy is not changed", got: p.Write.Paths, want: before},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Fatalf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestDarwinNeeds(t *testing.T) {
	tests := []struct {
		name         string
		allow        string
		wantResolver bool
	}{
		{name: "no network, no resolver or roots", allow: "io,fs:read:/srv"},
		{name: "a net grant reads the resolver and the roots", allow: "io,net:example.org:443", wantResolver: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := needsOf(confinetest.PolicyOf(tt.allow, false), "/usr/local/bin/sabline", "/tmp/r")
			if got := n.Resolver != nil && n.TLSRoots != nil; got != tt.wantResolver {
				t.Fatalf("resolver and roots named %v, want %v (%+v)", got, tt.wantResolver, n)
			}
			if n.Executable != "/usr/local/bin/sabline" || n.TempDir != "/tmp/r" || len(n.TZData) == 0 {
				t.Fatalf("needs %+v lack the binary, the temporary directory or the time zones", n)
			}
		})
	}
}

func TestDarwinResult(t *testing.T) {
	closed := confinetest.PolicyOf("io,fs:read:/Users/ana/data", false)
	tests := []struct {
		name        string
		p           core.Policy
		profileErr  error
		limitErr    error
		wantLevel   core.Level
		wantLayers  []string
		wantReasons []string
	}{
		{
			name: "the profile applied is partial, and says Apple deprecated it", p: closed,
			wantLevel: core.Partial, wantLayers: []string{core.LayerSandboxProfile},
			wantReasons: []string{"Apple has deprecated sandbox profiles"},
		},
		{
			name: "a profile sandbox_init refused holds nothing, in its words", p: closed,
			profileErr: errors.New("sandbox_init returned -1: unbound variable: frobnicate"),
			wantLevel:  core.None, wantLayers: []string{},
			wantReasons: []string{"the sandbox profile was not applied", "unbound variable: frobnicate"},
		},
		{
			name: "a memory limit not set is said", p: closed, limitErr: errors.New("setrlimit(RLIMIT_AS): invalid argument"),
			wantLevel: core.Partial, wantLayers: []string{core.LayerSandboxProfile},
			wantReasons: []string{"Apple has deprecated", "the memory limit could not be set: setrlimit(RLIMIT_AS)"},
		},
		{
			name: "a policy that enforces nothing is none, whatever failed", p: confinetest.PolicyOf("ffi", false),
			profileErr: errors.New("x"), wantLevel: core.None, wantLayers: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := result(tt.p, tt.profileErr, tt.limitErr, nil)
			if r.Level != tt.wantLevel || !slices.Equal(r.Layers, tt.wantLayers) {
				t.Fatalf("Result = %+v; want level %s, layers %v", r, tt.wantLevel, tt.wantLayers)
			}
			for _, want := range tt.wantReasons {
				if !strings.Contains(r.Reason, want) {
					t.Errorf("reason %q lacks %q", r.Reason, want)
				}
			}
		})
	}
}

// noHOME is os.UserHomeDir in a worker started without the env grant:
// its supervisor keeps no HOME in the environment it makes for it.
func noHOME() (string, error) { return "", errors.New("$HOME is not defined") }

// userWithHome is a user database naming home as the user's home
// directory.
func userWithHome(home string) func() (string, error) {
	return func() (string, error) { return home, nil }
}

// TestDarwinProfileOnAWorkerWithoutHOME builds the profile as Apply does
// on a Mac, in the environment a worker gets: without the env grant it
// has no HOME, and the profile was refused for its empty home directory,
// so sandbox_init was never called and no run was held. The profile must
// refuse reads under the home the user database names, and allow back
// the read grant beneath it (the control).
func TestDarwinProfileOnAWorkerWithoutHOME(t *testing.T) {
	p := confinetest.PolicyOf("io,fs:read:/Users/ana/data", false)
	eval := macLinks("/private/tmp", "/Users", "/Users/ana", "/Users/ana/data", "/Users/bob")
	tests := []struct {
		name     string
		home     func() (string, error)
		db       func() (string, error)
		wantHome string // "" for a profile refused
		wantErr  string
	}{
		{name: "no HOME, as a worker without env starts: the user database's home", home: noHOME,
			db: userWithHome("/Users/ana"), wantHome: "/Users/ana"},
		{name: "HOME set, as a worker with env starts: HOME wins",
			home: func() (string, error) { return "/Users/ana", nil }, db: userWithHome("/Users/bob"),
			wantHome: "/Users/ana"},
		{name: "neither: no profile", home: noHOME,
			db:      func() (string, error) { return "", errors.New("unknown userid 501") },
			wantErr: "the home directory: $HOME is not defined, and the user database: unknown userid 501"},
		{name: "the database names no home: no profile", home: noHOME, db: userWithHome(""),
			wantErr: "the user database names none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, err := profileOn(p, "/tmp/sabline-run", machine{Exe: "/usr/local/bin/sabline",
				Cwd: "/Users/ana/data", Home: tt.home, User: tt.db, Eval: eval})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || profile != "" {
					t.Fatalf("profileOn = %q, %v; want no profile and an error with %q", profile, err,
						tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("no profile for a worker to apply: %v", err)
			}
			hasRules(t, profileRules(t, profile, sbplRules), []string{
				"deny file-read* " + tt.wantHome + " /Volumes",
				"allow file-read* /Users/ana/data", // the control: the grant is read
			})
		})
	}
	t.Run("this machine, HOME unset", func(t *testing.T) {
		t.Setenv("HOME", "")
		u, err := user.Current()
		if err != nil || u.HomeDir == "" || !strings.HasPrefix(u.HomeDir, "/") {
			t.Skipf("the user database names no home here: %v", err)
		}
		dbHome := func() (string, error) { return u.HomeDir, nil } // as userHome, on macOS
		profile, err := profileOn(p, "/tmp/sabline-run", machine{Cwd: "/", Home: os.UserHomeDir,
			User: dbHome, Eval: func(s string) (string, error) { return s, nil }})
		if err != nil {
			t.Fatalf("no profile for a worker with no HOME: %v", err)
		}
		want := "(deny file-read*\n    (subpath " + sbplString(u.HomeDir) + ")"
		if !strings.Contains(profile, want) {
			t.Errorf("the profile does not refuse reads under %s:\n%s", u.HomeDir, profile)
		}
	})
}

// TestDarwinGuardedBeneath: a run's reason names the guarded locations a
// grant's allowance reaches, since the profile holds everything beneath
// a granted directory and carves nothing out, as Linux's Landlock does:
// a grant of the home, or of a link or a spelling of it that APFS takes
// for it, reaches its dot-entries and the credentials in them, a lent
// one too. The controls: a grant beside them, and one naming the lent
// credential, reach none.
func TestDarwinGuardedBeneath(t *testing.T) {
	carveOuts := []guard.CarveOut{
		{Path: "/Users/José", Expand: true, Dots: true},
		{Path: "/Users/ana", Expand: true, Dots: true},
		{Path: "/Users/ana/.ssh"},
		{Path: "/Users/ana/.aws", Named: true},
		{Path: "/private/var/tmp/sabline-runs-501"},
		{Path: "/private/etc/ssh/ssh_host_ed25519_key"},
	}
	links := func(p string) (string, error) {
		if rest, ok := strings.CutPrefix(p, "/Users/link"); ok {
			return "/Users/ana" + rest, nil
		}
		return macLinks("/Users", "/Users/ana", "/Users/ana/src", "/Users/ana/.aws", "/Users/José",
			"/private/var", "/private/var/tmp")(p)
	}
	home := []string{"the dot-entries of /Users/ana", "/Users/ana/.ssh", "/Users/ana/.aws"}
	for _, tt := range []struct {
		name, allow string
		want        []string
	}{
		{name: "the home granted", allow: "io,fs:read:/Users/ana", want: home},
		{name: "the home by a link", allow: "io,fs:write:/Users/link", want: home},
		{name: "the home in other cases", allow: "io,fs:read:/users/ANA", want: home},
		{name: "a home named in another form", allow: "io,fs:read:/Users/Jose\u0301",
			want: []string{"the dot-entries of /Users/José"}},
		{name: "the runs directory through /var", allow: "io,fs:read:/var/tmp",
			want: []string{"/private/var/tmp/sabline-runs-501"}},
		// APFS folds ß to ss (guard.APFSName): /private/etc/ßh is /private/etc/ssh.
		{name: "a directory named with a letter APFS folds to two",
			allow: "io,fs:read:/private/etc/ßh",
			want:  []string{"/private/etc/ssh/ssh_host_ed25519_key"}},
		{name: "a directory beside them, the control", allow: "io,fs:read:/Users/ana/src"},
		{name: "a directory beside them by one s, the control",
			allow: "io,fs:read:/private/etc/sh"},
		{name: "a lent credential named, the control", allow: "io,fs:read:/Users/ana/.aws"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := guardedBeneath(confinetest.PolicyOf(tt.allow, false), carveOuts, links)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("guardedBeneath = %q, want %q", got, tt.want)
			}
			r := result(confinetest.PolicyOf(tt.allow, false), nil, nil, got)
			if says := strings.Contains(r.Reason, "are held by the language alone: the profile's "+
				"allowance"); says != (len(tt.want) > 0) {
				t.Errorf("reason %q: names the guarded locations %v, want %v", r.Reason, says,
					len(tt.want) > 0)
			}
		})
	}
}

// TestDarwinProfileHomeThroughALink: the sandbox matches a path once its
// links are resolved, so a home directory reached through a link (HOME
// under /var, which is /private/var) has its reads refused where the
// link leads; a refusal of the path as written would match no file. The
// control is a home that is no link, refused as it is written.
func TestDarwinProfileHomeThroughALink(t *testing.T) {
	tests := []struct {
		name      string
		home      string
		allow     string
		wantRules []string
	}{
		{
			name: "HOME through a link: refused where it leads", home: "/var/users/ana",
			allow: "io,fs:read:/var/users/ana/data",
			wantRules: []string{
				"deny file-read* /private/var/users/ana /Volumes",
				"allow file-read* /private/var/users/ana/data",
			},
		},
		{
			name: "HOME as it is", home: "/Users/ana", allow: "io,fs:read:/Users/ana/data",
			wantRules: []string{"deny file-read* /Users/ana /Volumes", "allow file-read* /Users/ana/data"},
		},
	}
	eval := macLinks("/private/tmp", "/private/var", "/private/var/users", "/private/var/users/ana",
		"/private/var/users/ana/data", "/Users", "/Users/ana", "/Users/ana/data")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, err := profileOn(confinetest.PolicyOf(tt.allow, false), "/tmp/sabline-run",
				machine{Exe: "/usr/local/bin/sabline", Home: userWithHome(tt.home),
					User: userWithHome(""), Eval: eval})
			if err != nil {
				t.Fatalf("no profile: %v", err)
			}
			rules := profileRules(t, profile, sbplRules)
			hasRules(t, rules, tt.wantRules)
		})
	}
}
