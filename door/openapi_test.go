package door

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/tenant"
)

// spec is docs/openapi.yaml, decoded.
type spec map[string]any

func loadSpec(t *testing.T) spec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := yaml.Unmarshal(data, &s); err != nil || len(s) == 0 {
		t.Fatalf("docs/openapi.yaml: %v (%d keys)", err, len(s))
	}
	return spec(s)
}

// at follows keys from v.
func at(v any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	m, _ := v.(map[string]any)
	return m
}

// operations are the spec's "METHOD path" keys.
func (s spec) operations() []string {
	var ops []string
	for path, item := range at(map[string]any(s), "paths") {
		for method := range item.(map[string]any) {
			ops = append(ops, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(ops)
	return ops
}

// statuses are the statuses the spec gives op.
func (s spec) statuses(op string) []int {
	method, path, _ := strings.Cut(op, " ")
	var out []int
	for code := range at(map[string]any(s), "paths", path, strings.ToLower(method), "responses") {
		n, _ := strconv.Atoi(code)
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// jsonFields are the JSON names of a struct type's fields, embedded ones
// flattened, and those that are required (no omitempty, and not in a
// struct embedded by a pointer, whose fields a nil one leaves out).
func jsonFields(t reflect.Type) (all, required []string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			if f.Type.Kind() == reflect.Pointer {
				a, _ := jsonFields(f.Type.Elem())
				all = append(all, a...)
				continue
			}
			a, r := jsonFields(f.Type)
			all, required = append(all, a...), append(required, r...)
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		all = append(all, name)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	sort.Strings(all)
	sort.Strings(required)
	return all, required
}

// TestOpenAPIPaths: the spec's operations are the door's routes, and the
// reverse. The MCP transport answers POST (stateless, it refuses the
// other methods itself).
func TestOpenAPIPaths(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, rt := range s.routes() {
		method := rt.method
		if method == "" {
			method = http.MethodPost
		}
		routes = append(routes, method+" "+rt.path)
	}
	sort.Strings(routes)
	if ops := loadSpec(t).operations(); !slices.Equal(ops, routes) {
		t.Errorf("docs/openapi.yaml has the operations %v, the door the routes %v", ops, routes)
	}
}

// TestOpenAPISchemas: each schema the spec gives a body of the door's has
// the JSON fields of the Go type the door reads or writes, no more and no
// fewer, and requires those the type always writes. The request schemas
// are the decoder's fields.
func TestOpenAPISchemas(t *testing.T) {
	sp := loadSpec(t)
	schemas := at(map[string]any(sp), "components", "schemas")
	types := map[string]reflect.Type{
		"RunReply":    reflect.TypeFor[runJSON](),
		"AuditReply":  reflect.TypeFor[AuditOutput](),
		"Health":      reflect.TypeFor[healthJSON](),
		"Error":       reflect.TypeFor[errorBody](),
		"ErrorDetail": reflect.TypeFor[errorDetail](),
		"Receipt":     reflect.TypeFor[receipt.Receipt](),
		"Probe":       reflect.TypeFor[probeJSON](),
	}
	requests := map[string][]string{"RunRequest": runFields, "AuditRequest": auditFields}
	notOurs := map[string]bool{"JSONRPCMessage": true} // the MCP SDK's
	for name, v := range schemas {
		schema := v.(map[string]any)
		var props, required []string
		for p := range at(schema, "properties") {
			props = append(props, p)
		}
		list, _ := schema["required"].([]any)
		for _, r := range list {
			required = append(required, r.(string))
		}
		sort.Strings(props)
		sort.Strings(required)
		switch {
		case types[name] != nil:
			all, req := jsonFields(types[name])
			if !slices.Equal(props, all) || !slices.Equal(required, req) {
				t.Errorf("schema %s: properties %v, required %v; %s has %v, always writes %v", name, props, required, types[name], all, req)
			}
		case requests[name] != nil:
			want := slices.Sorted(slices.Values(requests[name]))
			if !slices.Equal(props, want) || schema["additionalProperties"] != false {
				t.Errorf("schema %s: properties %v, additionalProperties %v; the decoder takes %v and nothing else", name, props, schema["additionalProperties"], want)
			}
		case !notOurs[name]:
			t.Errorf("schema %s is no body of the door's", name)
		}
	}
	for name := range types {
		if schemas[name] == nil {
			t.Errorf("no schema %s", name)
		}
	}
}

// condition is a state of the server or a way of sending a request, under
// which the door answers with a status of its own.
type condition struct {
	name      string
	config    func(*Config)                          // before the server is made
	before    func(*testing.T, *Server, *fakeRunner) // once it serves, and has run one program
	method    func(string) string                    // the request's method, from op's
	path      func(string) string                    // the request's path, from op's
	body      func(string) string                    // the request's body, from op's ("" for none)
	header    http.Header                            // headers set over op's
	dropToken bool
}

// probeRequest is op's request when all is well: a run, an audit, the
// receipt of the run made first, the health, an MCP ping.
func probeRequest(op, id string) (method, path, body string, h http.Header) {
	method, path, _ = strings.Cut(op, " ")
	h = http.Header{"Authorization": {bearer}}
	switch path {
	case "/v1/run", "/v1/audit":
		body = `{"source":"print(1)"}`
	case "/v1/receipts/{id}":
		path = "/v1/receipts/" + id
	case "/mcp":
		body = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
	}
	return method, path, body, h
}

// conditions are every condition the door answers with a status of its
// own: each op is sent under each, and the statuses seen must be those
// the spec gives it.
var conditions = []condition{
	{name: "all well"},
	{name: "no token", dropToken: true},
	{name: "a foreign origin", header: http.Header{"Origin": {"http://evil.example.com"}}},
	{name: "malformed",
		path: func(p string) string {
			if strings.HasPrefix(p, "/v1/receipts/") {
				return "/v1/receipts/not-a-run-id"
			}
			return p
		},
		body: func(b string) string {
			if b != "" {
				return "{"
			}
			return b
		}},
	{name: "too large", config: func(c *Config) { c.MaxBodyBytes = 512 },
		body: func(b string) string {
			if b != "" {
				return b[:len(b)-1] + `,"x":"` + strings.Repeat("#", 600) + `"}`
			}
			return b
		}},
	{name: "refused by the runner", before: func(_ *testing.T, _ *Server, f *fakeRunner) {
		f.refuse = codes.Errorf(codes.E328, "wider than the ceiling")
	}},
	{name: "a fault of the runner", before: func(_ *testing.T, _ *Server, f *fakeRunner) {
		f.refuse = codes.Errorf(codes.E317, "the receipts cannot be written")
		f.storeErr = codes.Errorf(codes.E317, "the receipts cannot be read")
	}},
	{name: "every worker busy", config: func(c *Config) { c.Workers, c.Queue = 1, 0 },
		before: func(t *testing.T, s *Server, f *fakeRunner) {
			f.block = make(chan struct{})
			t.Cleanup(func() { close(f.block) })
			go func() { _, _ = s.run(context.Background(), "test", "busy", nil, RunRequest{Source: "print(1)"}) }()
			waitFor(t, func() bool { running, _ := s.gate.load(); return running == 1 })
		}},
	{name: "every connection slot held", config: func(c *Config) { c.MaxConns = 1 }},
	{name: "stopping", before: func(_ *testing.T, s *Server, _ *fakeRunner) { s.Stop() }},
	{name: "not ready", config: func(c *Config) {
		c.Ready = func() error { return errors.New("the receipts reach the shared store 40s late, past 30s") }
	}},
	{name: "past the tenant's rate", config: func(c *Config) {
		c.Token, c.Tenants = "", []tenant.Tenant{{Name: "t", TokenSHA256: tenant.DigestOf(testToken), Rate: 0.001, Burst: 1}}
	}},
	{name: "past the tenant's runs at once", config: func(c *Config) {
		c.Token, c.Tenants = "", []tenant.Tenant{{Name: "t", TokenSHA256: tenant.DigestOf(testToken), Concurrency: 1}}
	}, before: func(t *testing.T, s *Server, f *fakeRunner) {
		f.block = make(chan struct{})
		t.Cleanup(func() { close(f.block) })
		go func() {
			_, _ = s.run(context.Background(), "test", "t", s.tenants.Load().list[0], RunRequest{Source: "print(1)"})
		}()
		waitFor(t, func() bool { running, _ := s.gate.load(); return running == 1 })
	}},
	{name: "no such run", path: func(p string) string {
		if strings.HasPrefix(p, "/v1/receipts/") {
			return "/v1/receipts/ffffffffffffffff"
		}
		return p
	}},
	{name: "a notification", body: func(b string) string {
		if strings.Contains(b, `"jsonrpc"`) {
			return `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		}
		return b
	}},
	{name: "not JSON's media type", header: http.Header{"Content-Type": {"text/plain"}}},
	{name: "another method", method: func(m string) string {
		if m == http.MethodGet {
			return http.MethodPost
		}
		return http.MethodPut
	}},
}

// TestOpenAPIStatuses: each operation sent under every condition answers
// only statuses the spec gives it, and every status the spec gives it is
// answered under some condition.
func TestOpenAPIStatuses(t *testing.T) {
	sp := loadSpec(t)
	for _, op := range sp.operations() {
		t.Run(op, func(t *testing.T) {
			seen := map[int][]string{}
			for _, c := range conditions {
				status := probe(t, op, c)
				seen[status] = append(seen[status], c.name)
			}
			want := sp.statuses(op)
			for status, why := range seen {
				if !slices.Contains(want, status) {
					t.Errorf("%s answered %d (%s), which docs/openapi.yaml does not give it", op, status, strings.Join(why, ", "))
				}
			}
			for _, status := range want {
				if seen[status] == nil {
					t.Errorf("docs/openapi.yaml gives %s the status %d, which no condition brought", op, status)
				}
			}
		})
	}
}

// probe sends op under c to a server of its own, through Serve, after a
// run that makes the receipt op may ask for, and returns the status.
func probe(t *testing.T, op string, c condition) int {
	t.Helper()
	fake := &fakeRunner{bare: true} // a receipt is read from the Runner
	cfg := Config{Runner: fake, Token: testToken}
	if c.config != nil {
		c.config(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	send := func(tr *http.Transport, method, path, body string, h http.Header) int {
		req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = h
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	// The first run's connection, which sent the token, stays open: with
	// one slot, it holds it.
	first := &http.Transport{}
	defer first.CloseIdleConnections()
	if st := send(first, http.MethodPost, "/v1/run", `{"source":"print(1)"}`, http.Header{"Authorization": {bearer}}); st != 200 {
		t.Fatalf("the first run: %d", st)
	}
	if c.before != nil {
		c.before(t, s, fake)
	}
	method, path, body, h := probeRequest(op, fakeRunID)
	if c.method != nil {
		method = c.method(method)
	}
	if c.path != nil {
		path = c.path(path)
	}
	if c.body != nil {
		body = c.body(body)
	}
	for k, v := range c.header {
		h[k] = v
	}
	if c.dropToken {
		h.Del("Authorization")
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	return send(tr, method, path, body, h)
}
