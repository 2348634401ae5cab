package door

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
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

// resolve is schema, a schema of the spec's (or a $ref to one), made one
// JSON Schema 2020-12 a validator takes: the spec's component schemas are
// its $defs, and each $ref to one points there.
func (s spec) resolve(t *testing.T, schema map[string]any) *jsonschema.Resolved {
	t.Helper()
	defs, err := json.Marshal(at(map[string]any(s), "components", "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"#/components/schemas/`), []byte(`"#/$defs/`))
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(rewrite(root), &js); err != nil {
		t.Fatalf("a schema of docs/openapi.yaml: %v", err)
	}
	if err := json.Unmarshal(rewrite(defs), &js.Defs); err != nil {
		t.Fatalf("the schemas of docs/openapi.yaml: %v", err)
	}
	r, err := js.Resolve(nil)
	if err != nil {
		t.Fatalf("a schema of docs/openapi.yaml: %v", err)
	}
	return r
}

// response is the spec's response of op (its path's, for the method op
// names) with status, a reference to components followed; nil for none.
func (s spec) response(op string, status int) map[string]any {
	method, path, _ := strings.Cut(op, " ")
	r := at(map[string]any(s), "paths", path, strings.ToLower(method), "responses",
		strconv.Itoa(status))
	if ref, ok := r["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/responses/")
		r = at(map[string]any(s), "components", "responses", name)
	}
	return r
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

// TestOpenAPIRequests: a request body the spec's schema takes is one the
// door's decoder takes, and one the schema refuses (a null, an empty
// program, a wrong type, a list past its bound, a field it does not name)
// the decoder refuses, E301. "Exactly one of source and path" and the
// bounds the schema cannot say (bytes, budget items) are the decoder's
// alone, and are not among these bodies.
func TestOpenAPIRequests(t *testing.T) {
	sp := loadSpec(t)
	schemas := at(map[string]any(sp), "components", "schemas")
	decoders := map[string]func([]byte) error{
		"RunRequest": func(b []byte) error { _, err := decodeRunRequest(b); return err },
		"AuditRequest": func(b []byte) error {
			_, err := decodeAuditRequest(b)
			return err
		},
	}
	list := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	bodies := map[string][]string{
		"RunRequest": {
			`{"source":"print(1)"}`,
			`{"path":"a.vel","args":["a",""],"stdin":"","allow":["io","fs:read:/x"]}`,
			`{"source":"print(1)","args":` + list(maxArgs, `"a"`) + `}`,
			`{"source":"print(1)","args":` + list(maxArgs+1, `"a"`) + `}`,
			`{"source":"print(1)","allow":` + list(maxAllow, `"io"`) + `}`,
			`{"source":"print(1)","allow":` + list(maxAllow+1, `"io"`) + `}`,
			`{"source":"print(1)","args":[null]}`,
			`{"source":"print(1)","args":["a",null]}`,
			`{"source":"print(1)","allow":[null]}`,
			`{"source":"print(1)","allow":["io",null]}`,
			`{"source":"print(1)","args":[1]}`,
			`{"source":"print(1)","args":"a"}`,
			`{"source":"print(1)","allow":"io"}`,
			`{"source":"print(1)","stdin":1}`,
			`{"source":"print(1)","stdin":null}`,
			`{"source":null,"path":"a.vel"}`,
			`{"source":""}`,
			`{"path":""}`,
			`{"Source":"print(1)"}`,
			`{"source":"print(1)","x":1}`,
			`[]`,
		},
		"AuditRequest": {
			`{"source":"print(1)"}`,
			`{"path":"a.vel"}`,
			`{"source":""}`,
			`{"path":""}`,
			`{"source":"print(1)","args":[]}`,
			`{"path":null,"source":"print(1)"}`,
			`{"source":1}`,
		},
	}
	for name, list := range bodies {
		r := sp.resolve(t, schemas[name].(map[string]any))
		for _, body := range list {
			var v any
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Fatal(err)
			}
			docErr, doorErr := r.Validate(v), decoders[name]([]byte(body))
			if (docErr == nil) != (doorErr == nil) {
				t.Errorf("%s %.80s: docs/openapi.yaml says %v, the door %v", name, body,
					orTaken(docErr), orTaken(doorErr))
			}
			if doorErr != nil && codes.CodeOf(doorErr) != codes.E301 {
				t.Errorf("%s %.80s: the door refused it %v, not E301", name, body, doorErr)
			}
		}
	}
}

// orTaken is err, or "taken" for none.
func orTaken(err error) any {
	if err == nil {
		return "taken"
	}
	return err
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
				status := probe(t, sp, op, c)
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
// run that makes the receipt op may ask for, checks the reply against
// what the spec says of op's reply with its status (checkReply), and
// returns the status.
func probe(t *testing.T, sp spec, op string, c condition) int {
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
	send := func(tr *http.Transport, method, path, body string, h http.Header) (int, http.Header,
		[]byte) {
		req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = h
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return resp.StatusCode, resp.Header, data
	}
	// The first run's connection, which sent the token, stays open: with
	// one slot, it holds it.
	first := &http.Transport{}
	defer first.CloseIdleConnections()
	st, _, _ := send(first, http.MethodPost, "/v1/run", `{"source":"print(1)"}`,
		http.Header{"Authorization": {bearer}})
	if st != 200 {
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
	status, header, reply := send(tr, method, path, body, h)
	if err := checkReply(t, sp, op, status, header, reply); err != nil {
		t.Errorf("%s (%s): %d: %v", op, c.name, status, err)
	}
	return status
}

// checkReply checks a reply of op with status against the spec: every
// header the spec gives the reply is there; its Content-Type is a media
// type the spec gives it (and no body where it gives none); a JSON body
// is valid under the spec's schema; an error's code is an E3xx code or
// one ErrorDetail.code names. A receipt is not checked: the fake
// Runner's are not whole.
func checkReply(t *testing.T, sp spec, op string, status int, header http.Header,
	body []byte) error {
	t.Helper()
	r := sp.response(op, status)
	if r == nil {
		return nil // TestOpenAPIStatuses says so
	}
	for name := range at(r, "headers") {
		if header.Get(name) == "" {
			return fmt.Errorf("no %s header, which docs/openapi.yaml gives the reply", name)
		}
	}
	content := at(r, "content")
	if content == nil {
		if len(body) > 0 {
			return fmt.Errorf("a body (%.80q), where docs/openapi.yaml gives none", body)
		}
		return nil
	}
	media, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil || content[media] == nil {
		return fmt.Errorf("Content-Type %q, not one docs/openapi.yaml gives", header.Get("Content-Type"))
	}
	schema := at(content, media, "schema")
	if media != "application/json" || schema["$ref"] == "#/components/schemas/Receipt" {
		return nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("the body is not JSON: %v", err)
	}
	if err := sp.resolve(t, schema).Validate(v); err != nil {
		return fmt.Errorf("the body %.200s: %v", body, err)
	}
	code, _ := at(v, "error")["code"].(string)
	named := at(map[string]any(sp), "components", "schemas", "ErrorDetail", "properties",
		"code")["description"].(string)
	_, e3xx := codes.Info(codes.Code(code))
	if code != "" && !e3xx && !slices.Contains(wordsOf(named), code) {
		return fmt.Errorf("the error code %q is no E3xx code, nor one ErrorDetail.code names", code)
	}
	return nil
}

// wordsOf is the words of s, split at spaces, commas and brackets.
func wordsOf(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" ,()\n.:", r) })
}
