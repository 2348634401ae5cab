package door

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestMethodRefused: a request with a method its endpoint does not take
// is 405 with the Allow header, and its reply carries code, message and
// what to do, as every other error reply of the door.
func TestMethodRefused(t *testing.T) {
	s, ts := newTestServer(t, Config{Runner: &fakeRunner{}})
	for _, rt := range s.routes() {
		if rt.method == "" {
			continue // /mcp: its transport answers each method itself
		}
		other := http.MethodPut
		if rt.method == http.MethodPut {
			other = http.MethodPost
		}
		path := strings.Replace(rt.path, "{id}", fakeRunID, 1)
		resp, v := do(t, ts, other, path, bearer, "")
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != rt.method {
			t.Errorf("%s %s: %d, Allow %q; want 405, Allow %s", other, path, resp.StatusCode,
				resp.Header.Get("Allow"), rt.method)
		}
		e, _ := v["error"].(map[string]any)
		var keys []string
		for k := range e {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"code", "do", "message"}) {
			t.Errorf("%s %s: the error has %v, want code, do and message: %v", other, path, keys, v)
		}
		if e["code"] != CodeMethod || e["do"] != fmt.Sprintf(methodDo, rt.method) {
			t.Errorf("%s %s: %v, want the code %s and what to do", other, path, e, CodeMethod)
		}
	}
}

// TestAllowedOrigins: --allow-origin takes http:// and https:// origins,
// as docs/serve.md says and deploy/kubernetes gives, and nothing else.
func TestAllowedOrigins(t *testing.T) {
	for _, o := range []string{"http://sabline", "https://runs.example.com", "http://h:8080/"} {
		if _, err := parseOrigins([]string{o}); err != nil {
			t.Errorf("origin %s: %v, want it taken", o, err)
		}
	}
	for _, o := range []string{"ftp://h", "runs.example.com", "https://h/path", "https://h?q"} {
		if _, err := parseOrigins([]string{o}); err == nil {
			t.Errorf("origin %s taken, want it refused", o)
		}
	}
}
