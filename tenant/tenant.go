// Package tenant reads the tenants file of sabline serve: the clients
// of a server, each a name, the SHA-256 of its bearer token (the file
// holds no token), and its own limits: the ceiling of the budget its
// runs may ask for, the runs it may start a second, the runs it may
// have at once, the requests of every kind it may send a second, and the
// connections it may hold; and whether its token is the operator's own,
// which reads what the server tells its operator alone. The file is
// JSON, read strictly (an unknown field, a field named in another case or
// given twice in one entry, a value of the wrong type, a duplicate name or
// token, a value out of its bounds is refused with the line that says so)
// and bounded in size, in tenants and in each value:
// it is a parser at the server's trust boundary, and it is fuzzed.
//
//	{"tenants": [
//	  {"name": "acme", "token_sha256": "9f86d08...", "allow": ["io"],
//	   "rate": 20, "burst": 40, "concurrency": 4, "connections": 16},
//	  {"name": "platform", "token_sha256": "fcde2b2...", "operator": true}
//	]}
package tenant

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	goruntime "runtime"
	"strings"
	"syscall"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
)

// Bounds of a tenants file.
const (
	MaxFileBytes   = 256 << 10
	MaxTenants     = 1000
	MaxNameBytes   = 64
	MaxAllowItems  = 64
	MaxRate        = 1e6 // runs a second
	MaxBurst       = 1e6
	MaxConcurrency = 1e4
	MaxConnections = 1e5
	// RequestsPerRun and MinRequests make a tenant's bound of requests
	// when the file gives none and the tenant has a Rate of runs.
	RequestsPerRun = 10
	MinRequests    = 10
)

// Tenant is one client of the server, as the file names it.
type Tenant struct {
	// Name names the tenant in receipts and logs: 1 to MaxNameBytes
	// lower-case letters, digits, '-', '_' and '.'.
	Name string `json:"name"`
	// TokenSHA256 is the SHA-256 of the tenant's bearer token, 64
	// lower-case hexadecimal digits.
	TokenSHA256 string `json:"token_sha256"`
	// Allow is the ceiling of the tenant's runs, budget items within the
	// operator's --allow; absent, the operator's ceiling itself.
	Allow []string `json:"allow,omitempty"`
	// Rate is how many runs a second the tenant may start, on average;
	// Burst how many at once past that. 0: no limit of the tenant's own.
	Rate  float64 `json:"rate,omitempty"`
	Burst int     `json:"burst,omitempty"`
	// Concurrency is how many runs the tenant may have running, queued
	// or still being answered at once; 0: no limit of its own, but on a
	// door of more than one tenant its share, half the door's places
	// (workers and queue), so that no one tenant takes them all. It
	// bounds the tenant's receipt lookups that read the store at once
	// too (0: half of those the door reads at once, beside other
	// tenants).
	Concurrency int `json:"concurrency,omitempty"`
	// Requests is how many requests of every kind (runs, audits, receipt
	// lookups, health, MCP messages) the tenant may send a second, on
	// average, and RequestBurst how many at once past that. 0: a tenant
	// with a Rate may send RequestsPerRun requests per run it may start
	// (at least MinRequests a second), one without a Rate has no bound.
	Requests     float64 `json:"requests,omitempty"`
	RequestBurst int     `json:"request_burst,omitempty"`
	// Connections is how many connections that carried the tenant's
	// token it may hold at once; 0: no bound of its own (the server's
	// slots hold, shared fairly among tenants).
	Connections int `json:"connections,omitempty"`
	// Operator marks the operator's own token: its holder reads on
	// /v1/health what the server tells its operator alone (its bounds,
	// its load, and what lies behind a reason it is not ready), which a
	// tenant without it does not. It widens no budget and lifts no limit:
	// the tenant's own hold as for any other. Absent: false.
	Operator bool `json:"operator,omitempty"`
	// Ceiling is Allow as a budget, within the server's: set by
	// Scope.Hold (Load calls it), never read from the file. A tenant
	// whose Allow is set and Ceiling is not was never held to a scope,
	// and a door refuses it.
	Ceiling *budget.Budget `json:"-"`
}

// Scope is what the tenants' allow lists are read against: the server's
// own ceiling, which no tenant's may exceed.
type Scope struct {
	Cwd     string        // relative paths in an allow list are made absolute from here
	Ceiling budget.Budget // the operator's --allow
	// Check, when set, is one more check of each tenant's ceiling (that
	// the host modules it grants are registered in this build).
	Check func(budget.Budget) error
}

// Hold sets each tenant's Ceiling from its Allow, and refuses the whole
// list, naming the tenant, when one is malformed or wider than the
// server's. A tenant with no Allow keeps a nil Ceiling: the server's.
func (s Scope) Hold(ts []Tenant) error {
	for i := range ts {
		t := &ts[i]
		if t.Allow == nil {
			continue
		}
		b, err := budget.Parse(t.Allow, s.Cwd)
		if err != nil {
			return fmt.Errorf("tenant %s: allow: %w", t.Name, err)
		}
		if s.Check != nil {
			if err := s.Check(b); err != nil {
				return fmt.Errorf("tenant %s: %w", t.Name, err)
			}
		}
		if err := b.Beneath(s.Ceiling); err != nil {
			return fmt.Errorf("tenant %s's ceiling is wider than the server's (--allow): %v",
				t.Name, err)
		}
		t.Ceiling = &b
	}
	return nil
}

// RequestLimit is the tenant's bound of requests: a second, on average,
// and at once past that; a rate of 0 for none.
func (t Tenant) RequestLimit() (perSecond float64, burst int) {
	perSecond, burst = t.Requests, t.RequestBurst
	if perSecond == 0 && t.Rate > 0 {
		perSecond = max(MinRequests, RequestsPerRun*t.Rate)
	}
	if perSecond > 0 && burst == 0 {
		burst = max(RequestsPerRun*t.Burst, int(math.Ceil(perSecond)))
	}
	return perSecond, burst
}

// Digest is the tenant's token digest as bytes.
func (t Tenant) Digest() [sha256.Size]byte {
	var d [sha256.Size]byte
	hex.Decode(d[:], []byte(t.TokenSHA256))
	return d
}

// file is the file's top level.
type file struct {
	Tenants []Tenant `json:"tenants"`
}

// Parse reads a tenants file's bytes.
func Parse(data []byte) ([]Tenant, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("tenants: larger than %d bytes", MaxFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("tenants: %s", describe(data, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("tenants: more than one JSON value in the file")
	}
	if err := exactFields(data); err != nil {
		return nil, fmt.Errorf("tenants: %w", err)
	}
	if f.Tenants == nil {
		return nil, errors.New(`tenants: no "tenants" list`)
	}
	if len(f.Tenants) > MaxTenants {
		return nil, fmt.Errorf("tenants: %d tenants, at most %d", len(f.Tenants), MaxTenants)
	}
	names, digests := map[string]bool{}, map[string]string{}
	for i, t := range f.Tenants {
		if err := t.Check(); err != nil {
			return nil, fmt.Errorf("tenants: entry %d: %w", i+1, err)
		}
		if names[t.Name] {
			return nil, fmt.Errorf("tenants: entry %d: the name %q is given twice", i+1, t.Name)
		}
		if other, ok := digests[t.TokenSHA256]; ok {
			return nil, fmt.Errorf("tenants: entry %d (%s): the same token as %s", i+1, t.Name, other)
		}
		names[t.Name], digests[t.TokenSHA256] = true, t.Name
	}
	return f.Tenants, nil
}

// Check holds one tenant to the bounds of a tenants file entry: a
// tenants file's entries are checked as they are read, and a door checks
// each tenant it is given.
func (t Tenant) Check() error {
	if !validName(t.Name) {
		return fmt.Errorf("name %q: want 1 to %d lower-case letters, digits, '-', '_' and '.'",
			clip(t.Name), MaxNameBytes)
	}
	if len(t.TokenSHA256) != 64 || strings.Trim(t.TokenSHA256, "0123456789abcdef") != "" {
		return fmt.Errorf("%s: token_sha256: want the SHA-256 of the token, 64 lower-case "+
			"hexadecimal digits (sha256sum prints it)", t.Name)
	}
	if len(t.Allow) > MaxAllowItems {
		return fmt.Errorf("%s: allow: %d items, at most %d", t.Name, len(t.Allow), MaxAllowItems)
	}
	for _, item := range t.Allow {
		if item == "" || len(item) > 4096 {
			return fmt.Errorf("%s: allow: an item of %d bytes", t.Name, len(item))
		}
	}
	if math.IsNaN(t.Rate) || t.Rate < 0 || t.Rate > MaxRate {
		return fmt.Errorf("%s: rate %v: want 0 (no limit) to %g runs a second", t.Name, t.Rate,
			float64(MaxRate))
	}
	if t.Burst < 0 || t.Burst > MaxBurst || (t.Burst > 0 && t.Rate == 0) {
		return fmt.Errorf("%s: burst %d: want 0 to %d, with a rate", t.Name, t.Burst, int(MaxBurst))
	}
	if t.Concurrency < 0 || t.Concurrency > MaxConcurrency {
		return fmt.Errorf("%s: concurrency %d: want 0 (no limit) to %d", t.Name, t.Concurrency,
			int(MaxConcurrency))
	}
	if math.IsNaN(t.Requests) || t.Requests < 0 || t.Requests > MaxRate {
		return fmt.Errorf("%s: requests %v: want 0 (the default) to %g a second", t.Name,
			t.Requests, float64(MaxRate))
	}
	if t.RequestBurst < 0 || t.RequestBurst > MaxBurst || (t.RequestBurst > 0 && t.Requests == 0) {
		return fmt.Errorf("%s: request_burst %d: want 0 to %d, with requests", t.Name,
			t.RequestBurst, int(MaxBurst))
	}
	if t.Connections < 0 || t.Connections > MaxConnections {
		return fmt.Errorf("%s: connections %d: want 0 (no bound of its own) to %d", t.Name,
			t.Connections, int(MaxConnections))
	}
	return nil
}

// fieldNames are the names of the fields of a tenants file, as its
// reader takes them: exactly, in this case.
var fieldNames = func() map[string]bool {
	names := map[string]bool{}
	for _, t := range []reflect.Type{reflect.TypeFor[file](), reflect.TypeFor[Tenant]()} {
		for f := range t.Fields() {
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				names[name] = true
			}
		}
	}
	return names
}()

// exactFields refuses what encoding/json reads without a word, so that the
// file means to the server what it says to the one who reads it: a field
// given twice in one object (the last would count: "operator": false, then
// "operator": true) and a field named in another case than its own
// ("Operator": the decoder matches names without case, so that "operator":
// false, "OPERATOR": true made an operator). data is one JSON value, which
// the decoder has read.
func exactFields(data []byte) error {
	type frame struct {
		object, wantKey bool
		keys            map[string]bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	line := func() int { return bytes.Count(data[:dec.InputOffset()], []byte("\n")) + 1 }
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				stack = append(stack, &frame{object: d == '{', wantKey: d == '{',
					keys: map[string]bool{}})
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				top = stack[len(stack)-1]
			} else {
				top = nil
			}
		} else if top != nil && top.wantKey {
			key, _ := tok.(string)
			switch {
			case !fieldNames[key]:
				return fmt.Errorf("line %d: unknown field %q (a field's name is read exactly, in "+
					"lower case)", line(), clip(key))
			case top.keys[key]:
				return fmt.Errorf("line %d: the field %q is given twice in one entry", line(), key)
			}
			top.keys[key], top.wantKey = true, false
			continue
		}
		// A value has ended: in an object, a key comes next.
		if top != nil && top.object {
			top.wantKey = true
		}
	}
}

func validName(s string) bool {
	if s == "" || len(s) > MaxNameBytes {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// clip is s, of a name's length at most, for a refusal to quote, saying
// how much it left out (codes.Clip).
func clip(s string) string { return codes.Clip(s, MaxNameBytes) }

// maxDescribeBytes bounds what describe says of a decoding error: one
// that quotes the file (an unknown field's name) quotes at most this.
const maxDescribeBytes = 512

// describe is a decoding error with the line it happened on, at most
// maxDescribeBytes of it; a value of the wrong type names its field
// (the file, for its top level) and what the field takes.
func describe(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if want := takes[te.Type.Kind()]; want != "" {
			field := te.Field
			if field == "" {
				field = "the file"
			}
			err = fmt.Errorf("%s: want %s, not a JSON %s", field, want, clip(te.Value))
		}
	}
	msg := codes.Clip(err.Error(), maxDescribeBytes)
	if off < 0 || off > int64(len(data)) {
		return msg
	}
	return fmt.Sprintf("line %d: %s", bytes.Count(data[:off], []byte("\n"))+1, msg)
}

// takes is what a field of each kind takes, as a refusal of a value of
// another type says it.
var takes = map[reflect.Kind]string{
	reflect.Bool:    "true or false",
	reflect.Int:     "a whole number",
	reflect.Float64: "a number",
	reflect.String:  "a string",
	reflect.Slice:   "a list",
	reflect.Struct:  "an object",
}

// Load reads the tenants file at path: a regular file that only its
// owner can change (it says who may use the server), owned by the user
// running Sabline or by root (guard.OwnedByAnother), of at most
// MaxFileBytes. It holds no token, only their digests, so others may
// read it (a Kubernetes Secret mounted for a group is readable by it).
// Each tenant's ceiling is held to scope (Scope.Hold).
func Load(path string, scope Scope) ([]Tenant, error) {
	// A named pipe at the name is refused below, not waited on.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("tenants file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("tenants file %s: not a regular file", path)
	}
	if goruntime.GOOS != "windows" && fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("tenants file %s has mode %s: others can change who may use the "+
			"server; chmod go-w it", path, fi.Mode().Perm())
	}
	if uid, another := guard.OwnedByAnother(fi); another {
		return nil, fmt.Errorf("tenants file %s is owned by uid %d, neither you (uid %d) nor root: "+
			"its owner can change who may use the server; name a file you or root own", path, uid,
			os.Geteuid())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("tenants file %s: %w", path, err)
	}
	ts, err := Parse(data)
	if err == nil {
		err = scope.Hold(ts)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ts, nil
}

// DigestOf is the token_sha256 of token, as a tenants file names it.
func DigestOf(token string) string {
	d := sha256.Sum256([]byte(token))
	return hex.EncodeToString(d[:])
}
