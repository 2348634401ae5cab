package door

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// challengeParam is one auth-param of a WWW-Authenticate challenge
// (RFC 9110 section 11.2), its value a quoted string.
var challengeParam = regexp.MustCompile(`^\s*([a-z_]+)="([^"\\]*)"\s*$`)

// parseChallenge splits a Bearer challenge into its parameters, failing
// the test where it is not `Bearer k="v", k="v"...`.
func parseChallenge(t *testing.T, h string) map[string]string {
	t.Helper()
	scheme, rest, _ := strings.Cut(h, " ")
	if scheme != "Bearer" {
		t.Fatalf("WWW-Authenticate %q: want the scheme Bearer", h)
	}
	params := map[string]string{}
	for _, p := range strings.Split(rest, ",") {
		m := challengeParam.FindStringSubmatch(p)
		if m == nil {
			t.Fatalf("WWW-Authenticate %q: %q is no auth-param", h, p)
		}
		if _, dup := params[m[1]]; dup {
			t.Fatalf("WWW-Authenticate %q: %s twice", h, m[1])
		}
		params[m[1]] = m[2]
	}
	return params
}

// TestMCPUnauthorized sends an MCP initialize to /mcp of a token-protected
// door without a token, with a wrong one, with another scheme, and with
// the right one. Each refusal is 401 with an RFC 6750 challenge: realm
// "sabline", error="invalid_token" for a wrong token, "invalid_request"
// for another scheme, no error for no token; its body's code is
// unauthorized and its do says how an MCP client sends the token. The
// right token gets 200 and the initialize result.
func TestMCPUnauthorized(t *testing.T) {
	_, ts := newTestServer(t, Config{Runner: &fakeRunner{}})
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` +
		`"protocolVersion":"2025-06-18","capabilities":{},` +
		`"clientInfo":{"name":"door-test","version":"1"}}}`
	for _, tc := range []struct {
		name, auth, wantError string
	}{
		{"no token", "", ""},
		{"wrong token", "Bearer nope", "invalid_token"},
		{"lower-case scheme, wrong token", "bearer " + testToken + "x", "invalid_token"},
		{"basic", "Basic " + testToken, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := postMCP(t, ts.URL, tc.auth, initialize)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", resp.StatusCode, body)
			}
			h := resp.Header.Get("WWW-Authenticate")
			p := parseChallenge(t, h)
			if p["realm"] != "sabline" || p["error"] != tc.wantError {
				t.Errorf("WWW-Authenticate %q: want realm=\"sabline\" and error=%q", h, tc.wantError)
			}
			if tc.wantError != "" && p["error_description"] == "" {
				t.Errorf("WWW-Authenticate %q: an error without error_description", h)
			}
			var v struct {
				Error errorDetail `json:"error"`
			}
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatalf("401 body %q: %v", body, err)
			}
			for _, want := range []string{
				"Authorization: Bearer TOKEN", "--header", "requestInit", "docs/mcp.md",
			} {
				if !strings.Contains(v.Error.Do, want) {
					t.Errorf("401 do %q: want it to say %q", v.Error.Do, want)
				}
			}
			if v.Error.Code != CodeUnauthorized || v.Error.Message == "" {
				t.Errorf("401 error %+v: want code %s and a message", v.Error, CodeUnauthorized)
			}
			t.Logf("%s: WWW-Authenticate: %s; %s", tc.name, h, body)
		})
	}
	t.Run("right token", func(t *testing.T) {
		resp, body := postMCP(t, ts.URL, bearer, initialize)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("WWW-Authenticate") != "" {
			t.Fatalf("status %d, WWW-Authenticate %q: want 200 and none: %s",
				resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
		var v struct {
			ID     int `json:"id"`
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &v); err != nil || v.ID != 1 || v.Result.ProtocolVersion == "" {
			t.Fatalf("initialize answered %q (%v): want its result", body, err)
		}
		t.Logf("right token: %d, server %s, protocol %s", resp.StatusCode,
			v.Result.ServerInfo.Name, v.Result.ProtocolVersion)
	})
	t.Run("v1 without token", func(t *testing.T) {
		resp, v := do(t, ts, http.MethodPost, "/v1/run", "", `{"source":"print(1)"}`)
		p := parseChallenge(t, resp.Header.Get("WWW-Authenticate"))
		do, _ := v["error"].(map[string]any)["do"].(string)
		if resp.StatusCode != 401 || p["realm"] != "sabline" || strings.Contains(do, "MCP") {
			t.Errorf("/v1/run: %d, %v, do %q: want 401, realm sabline, no MCP advice",
				resp.StatusCode, p, do)
		}
	})
}

// postMCP posts one JSON-RPC message to /mcp and returns the answer.
func postMCP(t *testing.T, url, auth, msg string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}
