package darwin

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

const (
	testHome = "/Users/ana"
	testCwd  = "/Users/ana/job"
)

func TestDarwinProfileGolden(t *testing.T) {
	budgets := append(confinetest.PlanBudgets(), confinetest.PlanBudget{Name: "home",
		Allow: "io,fs:read:/Users/ana/job/data,fs:read:/Volumes/disk/set,fs:write:/Users/ana/job/out"})
	for _, tt := range budgets {
		t.Run(tt.Name, func(t *testing.T) {
			profile, err := Profile(confinetest.PolicyOf(tt.Allow, tt.Strict), confinetest.Needs(), testHome, testCwd)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := readSBPL(profile); err != nil {
				t.Fatalf("the profile does not parse: %v\n%s", err, profile)
			}
			golden(t, "darwin", tt.Name, []byte(";; allow "+tt.Allow+"\n"+profile))
		})
	}
}

func TestDarwinProfile(t *testing.T) {
	tests := []struct {
		name   string
		allow  string
		strict bool
		// wantRules are rules the profile must have, each as its head
		// and its strings: "allow file-write* /srv/out".
		wantRules []string
		// wantNoHeads are rule heads the profile must not have.
		wantNoHeads []string
	}{
		{
			name: "writes are allowed back beneath the grants and the needs", allow: "io,fs:write:/srv/out",
			wantRules:   []string{"deny file-write*", "allow file-write* /srv/out /dev/null /tmp/sabline-run"},
			wantNoHeads: []string{"allow file-read*"},
		},
		{
			name: "reads are refused under home and /Volumes but beneath a grant there", allow: "io,fs:read:/Users/ana/data",
			wantRules: []string{
				"deny file-read* /Users/ana /Volumes",
				"allow file-read* /Users/ana/data",
				"allow file-read-metadata /Users/ana /Users/ana/job",
			},
		},
		{
			name: "a write grant under home may be stat'ed, not read", allow: "io,fs:write:/Users/ana/out",
			wantRules: []string{
				"allow file-write* /Users/ana/out /dev/null /tmp/sabline-run",
				"allow file-read-metadata /Users/ana/out /Users/ana /Users/ana/job",
			},
			wantNoHeads: []string{"allow file-read*"},
		},
		{
			name: "a grant holding home allows it back", allow: "io,fs:read:/Users",
			wantRules: []string{"allow file-read* /Users"},
		},
		{
			name: "unrestricted files are not refused", allow: "io,fs",
			wantRules:   []string{"deny network*", "deny process-fork", "deny process-exec"},
			wantNoHeads: []string{"deny file-write*", "deny file-read*", "allow file-read*", "allow file-write*"},
		},
		{
			name: "a named host opens the network", allow: "io,net:example.org:443",
			wantNoHeads: []string{"deny network*"},
		},
		{
			name: "a widening module opens the network", allow: "io,ffi:socket",
			wantNoHeads: []string{"deny network*"},
		},
		{
			name: "strict keeps the network closed", allow: "io,ffi:socket", strict: true,
			wantRules: []string{"deny network*"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, err := Profile(confinetest.PolicyOf(tt.allow, tt.strict), confinetest.Needs(), testHome, testCwd)
			if err != nil {
				t.Fatal(err)
			}
			rules := profileRules(t, profile, sbplRules)
			hasRules(t, rules, tt.wantRules)
			for _, head := range tt.wantNoHeads {
				for _, r := range rules {
					if r == head || strings.HasPrefix(r, head+" ") {
						t.Errorf("unwanted rule %q", r)
					}
				}
			}
		})
	}
}

// TestDarwinProfileCwd: the working directory, and each directory above
// it up to the home directory or /Volumes, may be stat'ed, as the path
// resolves however it is written; one elsewhere needs nothing.
func TestDarwinProfileCwd(t *testing.T) {
	tests := []struct {
		name     string
		cwd      string
		wantStat string // the stat rule's words, "" for none
	}{
		{name: "under home", cwd: "/Users/ana/job", wantStat: "allow file-read-metadata /Users/ana /Users/ana/job"},
		{name: "under home, written with a trailing slash", cwd: "/Users/ana/job/",
			wantStat: "allow file-read-metadata /Users/ana /Users/ana/job"},
		{name: "under home, written with a dot", cwd: "/Users/ana/./job",
			wantStat: "allow file-read-metadata /Users/ana /Users/ana/job"},
		{name: "the home directory", cwd: "/Users/ana", wantStat: "allow file-read-metadata /Users/ana"},
		{name: "on another disk", cwd: "/Volumes/disk/work", wantStat: "allow file-read-metadata /Volumes /Volumes/disk /Volumes/disk/work"},
		{name: "elsewhere", cwd: "/srv/job"},
		{name: "above home", cwd: "/Users"},
		{name: "none", cwd: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, err := Profile(confinetest.PolicyOf("io", false), confinetest.Needs(), testHome, tt.cwd)
			if err != nil {
				t.Fatal(err)
			}
			forms, err := readSBPL(profile)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, r := range sbplRules(forms) {
				if strings.HasPrefix(r, "allow file-read-metadata") {
					got = r
				}
			}
			if got != tt.wantStat {
				t.Errorf("stat rule %q, want %q", got, tt.wantStat)
			}
		})
	}
}

// TestDarwinProfileShape checks, for every budget, that the profile
// starts as SBPL must, allows by default first, and has no rule without
// a filter but those it means to.
func TestDarwinProfileShape(t *testing.T) {
	noFilter := map[string]bool{"version 1": true, "allow default": true, "deny file-write*": true,
		"deny network*": true, "deny process-fork": true, "deny process-exec": true}
	for _, tt := range confinetest.PlanBudgets() {
		t.Run(tt.Name, func(t *testing.T) {
			profile, err := Profile(confinetest.PolicyOf(tt.Allow, tt.Strict), confinetest.Needs(), testHome, testCwd)
			if err != nil {
				t.Fatal(err)
			}
			forms, err := readSBPL(profile)
			if err != nil {
				t.Fatal(err)
			}
			rules := sbplRules(forms)
			if len(rules) < 2 || rules[0] != "version 1" || rules[1] != "allow default" {
				t.Fatalf("the profile starts %q", rules[:min(2, len(rules))])
			}
			for i, form := range forms {
				list := form.([]any)
				if len(list) == 2 && !noFilter[rules[i]] {
					t.Errorf("rule %q has no filter", rules[i])
				}
			}
		})
	}
	t.Run("no interpreter need and no write grant", func(t *testing.T) {
		p := confinetest.PolicyOf("io", false)
		p.Interpreter = nil
		profile, err := Profile(p, core.Needs{}, testHome, "")
		if err != nil {
			t.Fatal(err)
		}
		forms, err := readSBPL(profile)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range sbplRules(forms) {
			if strings.HasPrefix(r, "allow file-") {
				t.Errorf("rule %q allows back what nothing grants", r)
			}
		}
	})
}

// TestDarwinProfileInjection gives grants whose paths try to end their
// string and add rules, and checks that the profile reads as the same
// rules as for a plain path, with each path back whole.
func TestDarwinProfileInjection(t *testing.T) {
	tests := []struct {
		name string
		path string
	}{
		{name: "quote and parenthesis", path: `/Users/ana/a")(allow default)`},
		{name: "allow default", path: `/Users/ana/(allow default)`},
		{name: "newline", path: "/Users/ana/x\n(allow file-read* (subpath \"/\"))"},
		{name: "carriage return and tab", path: "/Users/ana/x\r\t(deny default)"},
		{name: "backslash before a quote", path: `/Users/ana/x\")(allow default)(x "`},
		{name: "semicolon", path: "/Users/ana/x;\")"},
		{name: "control characters", path: "/Users/ana/\x01\x1b\x7f"},
	}
	shape := func(path string) ([]string, []string) {
		t.Helper()
		p := confinetest.PolicyOf("io,fs:read:"+path+",fs:write:"+path, false)
		profile, err := Profile(p, confinetest.Needs(), testHome, testCwd)
		if err != nil {
			t.Fatal(err)
		}
		forms, err := readSBPL(profile)
		if err != nil {
			t.Fatalf("the profile does not parse: %v\n%s", err, profile)
		}
		var heads, strs []string
		for _, form := range forms {
			list := form.([]any)
			heads = append(heads, sbplHead(list))
			strs = append(strs, sbplStrings(list)...)
		}
		return heads, strs
	}
	plainHeads, _ := shape("/Users/ana/plain")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			heads, strs := shape(tt.path)
			if !slices.Equal(heads, plainHeads) {
				t.Errorf("rules %q, want %q", heads, plainHeads)
			}
			if n := strings.Count(strings.Join(strs, "\x00"), tt.path); n != 3 {
				t.Errorf("the path is whole in %d filters, want 3 (read, write, stat)", n)
			}
		})
	}
}

func TestDarwinProfileErrors(t *testing.T) {
	tests := []struct {
		name       string
		policy     core.Policy
		home, cwd  string
		wantErr    string
		wantNoText bool
	}{
		{name: "nothing enforced", policy: confinetest.PolicyOf("io,ffi:os", false), home: testHome, wantErr: "enforces nothing"},
		{name: "relative home", policy: confinetest.PolicyOf("io", false), home: "ana", wantErr: `"ana" is not an absolute path`},
		{name: "no home", policy: confinetest.PolicyOf("io", false), home: "", wantErr: `"" is not an absolute path`},
		{name: "relative cwd", policy: confinetest.PolicyOf("io", false), home: testHome, cwd: "job", wantErr: `"job" is not an absolute path`},
		{name: "relative grant", policy: core.OSPolicy(budget.MustParse("", "fs:read:data"), core.Options{}), home: testHome, wantErr: `"data" is not an absolute path`},
		{name: "NUL in a grant", policy: func() core.Policy {
			p := confinetest.PolicyOf("io", false)
			p.Read.Paths = []string{"/Users/ana/a\x00b"}
			return p
		}(), home: testHome, wantErr: "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, err := Profile(tt.policy, confinetest.Needs(), tt.home, tt.cwd)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || profile != "" {
				t.Errorf("Profile = %q, %v; want no profile and an error containing %q", profile, err, tt.wantErr)
			}
		})
	}
}

func TestSBPLString(t *testing.T) {
	var every strings.Builder
	for c := 1; c < 256; c++ {
		every.WriteByte(byte(c))
	}
	tests := []struct {
		name string
		in   string
	}{
		{name: "plain", in: "/srv/data"},
		{name: "quote and backslash", in: `a"b\c\"`},
		{name: "ends in a backslash", in: `a\`},
		{name: "escape-like text", in: `\x41\n`},
		{name: "hex digits after a control character", in: "\x01ff"},
		{name: "utf-8", in: "/Users/anaïs/données"},
		{name: "every byte but NUL", in: every.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lit := sbplString(tt.in)
			if strings.ContainsAny(lit, "\n\r") {
				t.Errorf("%q spans lines", lit)
			}
			forms, err := readSBPL("(f " + lit + ")")
			if err != nil {
				t.Fatalf("%q does not read: %v", lit, err)
			}
			if got := forms[0].([]any)[1]; got != tt.in {
				t.Errorf("%q reads back as %q", lit, got)
			}
		})
	}
}

// sbplSymbol is a symbol of a profile, as opposed to a string.
type sbplSymbol string

// readSBPL reads a profile's top-level forms: lists ([]any) of symbols
// (sbplSymbol), strings (string) and lists. It understands ; comments and
// the string escapes \\ \" \n \r \t \xHH, and refuses a raw control
// character in a string.
func readSBPL(src string) ([]any, error) {
	r := sbplReader{s: src}
	var forms []any
	for {
		f, err := r.form()
		if err == io.EOF {
			return forms, nil
		}
		if err != nil {
			return nil, fmt.Errorf("at byte %d: %w", r.i, err)
		}
		forms = append(forms, f)
	}
}

type sbplReader struct {
	s string
	i int
}

func (r *sbplReader) skip() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\r', '\n':
			r.i++
		case ';':
			for r.i < len(r.s) && r.s[r.i] != '\n' {
				r.i++
			}
		default:
			return
		}
	}
}

func (r *sbplReader) form() (any, error) {
	r.skip()
	if r.i >= len(r.s) {
		return nil, io.EOF
	}
	switch r.s[r.i] {
	case '(':
		r.i++
		list := []any{}
		for {
			r.skip()
			if r.i >= len(r.s) {
				return nil, errors.New("unclosed (")
			}
			if r.s[r.i] == ')' {
				r.i++
				return list, nil
			}
			f, err := r.form()
			if err != nil {
				return nil, err
			}
			list = append(list, f)
		}
	case ')':
		return nil, errors.New("unexpected )")
	case '"':
		return r.str()
	}
	start := r.i
	for r.i < len(r.s) && !strings.ContainsRune(" \t\r\n()\";", rune(r.s[r.i])) {
		r.i++
	}
	return sbplSymbol(r.s[start:r.i]), nil
}

func (r *sbplReader) str() (string, error) {
	r.i++ // the opening quote
	var b strings.Builder
	for r.i < len(r.s) {
		c := r.s[r.i]
		r.i++
		switch {
		case c == '"':
			return b.String(), nil
		case c < 0x20 || c == 0x7f:
			return "", fmt.Errorf("raw control character %#x in a string", c)
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		if r.i >= len(r.s) {
			break
		}
		e := r.s[r.i]
		r.i++
		switch e {
		case '\\', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x':
			if r.i+2 > len(r.s) {
				return "", errors.New(`short \x escape`)
			}
			v, err := strconv.ParseUint(r.s[r.i:r.i+2], 16, 8)
			if err != nil {
				return "", fmt.Errorf(`bad \x escape: %w`, err)
			}
			b.WriteByte(byte(v))
			r.i += 2
		default:
			return "", fmt.Errorf(`unknown escape \%c`, e)
		}
	}
	return "", errors.New("unclosed string")
}

// sbplRules prints each top-level form as its words: its head (the
// action and the operation) and the strings of its filters,
// "allow file-write* /srv/out /dev/null".
func sbplRules(forms []any) []string {
	out := make([]string, len(forms))
	for i, f := range forms {
		list := f.([]any)
		out[i] = strings.Join(append([]string{sbplHead(list)}, sbplStrings(list[min(2, len(list)):])...), " ")
	}
	return out
}

// sbplHead prints a form's first two words, "allow file-write*".
func sbplHead(list []any) string {
	words := []string{}
	for _, x := range list[:min(2, len(list))] {
		words = append(words, fmt.Sprint(x))
	}
	return strings.Join(words, " ")
}

// sbplStrings returns the strings within forms, depth first.
func sbplStrings(forms []any) []string {
	var out []string
	for _, x := range forms {
		switch x := x.(type) {
		case string:
			out = append(out, x)
		case []any:
			out = append(out, sbplStrings(x)...)
		}
	}
	return out
}

// TestDarwinProfileFilters: each rule's filters are of the kind its
// decision needs. The directories above a grant, and the working
// directory's chain, may be stat'ed by their own path alone (literal):
// a subpath there would let every file under the home directory be
// stat'ed. A grant's own directory is a subpath, and so is a write grant
// stat'ed; a need that is a file is its path alone.
func TestDarwinProfileFilters(t *testing.T) {
	tests := []struct {
		name      string
		allow     string
		wantRules []string // each as its head and its filters: "allow file-read* subpath:/srv"
	}{
		{
			name:  "the directories above a read grant are stat'ed alone",
			allow: "io,fs:read:/Users/ana/data",
			wantRules: []string{
				"deny file-read* subpath:/Users/ana subpath:/Volumes",
				"allow file-read* subpath:/Users/ana/data",
				"allow file-read-metadata literal:/Users/ana literal:/Users/ana/job",
			},
		},
		{
			name:  "a write grant is stat'ed beneath, the directories above it alone",
			allow: "io,fs:write:/Users/ana/out",
			wantRules: []string{
				"allow file-write* subpath:/Users/ana/out literal:/dev/null subpath:/tmp/sabline-run",
				"allow file-read-metadata subpath:/Users/ana/out literal:/Users/ana literal:/Users/ana/job",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile, err := Profile(confinetest.PolicyOf(tt.allow, false), confinetest.Needs(),
				testHome, testCwd)
			if err != nil {
				t.Fatal(err)
			}
			rules := profileRules(t, profile, sbplFilterRules)
			hasRules(t, rules, tt.wantRules)
		})
	}
}

// sbplFilterRules prints each top-level form as its head and its filters,
// each as its kind and its path: "allow file-read* subpath:/srv".
func sbplFilterRules(forms []any) []string {
	out := make([]string, len(forms))
	for i, f := range forms {
		list := f.([]any)
		words := []string{sbplHead(list)}
		for _, x := range list[min(2, len(list)):] {
			filter, ok := x.([]any)
			if !ok || len(filter) != 2 {
				words = append(words, fmt.Sprint(x))
				continue
			}
			words = append(words, fmt.Sprintf("%v:%v", filter[0], filter[1]))
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

// profileRules reads profile and prints its rules with print (sbplRules,
// sbplFilterRules); a profile that does not parse fails t.
func profileRules(t *testing.T, profile string, print func([]any) []string) []string {
	t.Helper()
	forms, err := readSBPL(profile)
	if err != nil {
		t.Fatalf("the profile does not parse: %v\n%s", err, profile)
	}
	return print(forms)
}

// hasRules fails t for each rule of want that rules does not hold.
func hasRules(t *testing.T, rules, want []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(rules, w) {
			t.Errorf("no rule %q in\n%s", w, strings.Join(rules, "\n"))
		}
	}
}
