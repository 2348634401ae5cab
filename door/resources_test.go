package door

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/tenant"
)

// withToken sends every request with a bearer token.
type withToken string

func (tok withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(tok))
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects an SDK client to the door's /mcp with token.
func connectHTTP(t *testing.T, ts *httptest.Server, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: withToken(token)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// runMCP runs a program through the tool run and returns its run id.
func runMCP(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"source": "print(1)"}})
	if err != nil || res.IsError {
		t.Fatalf("run: %v %v", err, res)
	}
	var out RunOutput
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil || out.RunID == "" {
		t.Fatalf("run: %s %v", data, err)
	}
	return out.RunID
}

// listed are the run ids resources/list names.
func listed(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res.Resources {
		id, ok := strings.CutPrefix(r.URI, ReceiptURIPrefix)
		if !ok || r.MIMEType != "application/json" {
			t.Errorf("resource %+v: want a receipt, application/json", r)
		}
		ids = append(ids, id)
	}
	return ids
}

// readReceipt reads a run's receipt as a resource.
func readReceipt(cs *mcp.ClientSession, id string) (string, error) {
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: ReceiptURIPrefix + id})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		return "", fmt.Errorf("%d contents, want 1", len(res.Contents))
	}
	return res.Contents[0].Text, nil
}

// TestReceiptsPerClient: a client reads the receipts of the runs it asked
// for, over HTTP and as MCP resources, the same receipt both ways, and
// never another client's, which is not found as a run that never was.
// Clients: two servers' tokens over one store, and an MCP session of
// its own beside the token. Each refusal is beside its control, the
// owner reading the same run.
func TestReceiptsPerClient(t *testing.T) {
	fake := &fakeRunner{}
	const tokenB = "1f1e2d3c4b5a69788796a5b4c3d2e1f0"
	a, tsA := newTestServer(t, Config{Runner: fake})
	_, tsB := newTestServer(t, Config{Runner: fake, Token: tokenB})

	_, v := do(t, tsA, "POST", "/v1/run", bearer, `{"source":"print(1)"}`)
	idA, _ := v["run_id"].(string)
	_, v = do(t, tsB, "POST", "/v1/run", "Bearer "+tokenB, `{"source":"print(1)"}`)
	idB, _ := v["run_id"].(string)
	if idA == "" || idB == "" || idA == idB {
		t.Fatalf("run ids %q and %q", idA, idB)
	}
	for _, tt := range []struct {
		name       string
		ts         *httptest.Server
		auth, id   string
		wantStatus int
	}{
		{"A's run, by A", tsA, bearer, idA, 200},
		{"B's run, by A", tsA, bearer, idB, 404},
		{"B's run, by B", tsB, "Bearer " + tokenB, idB, 200},
		{"A's run, by B", tsB, "Bearer " + tokenB, idA, 404},
	} {
		resp, v := do(t, tt.ts, "GET", "/v1/receipts/"+tt.id, tt.auth, "")
		if resp.StatusCode != tt.wantStatus || (tt.wantStatus == 200 && v["run_id"] != tt.id) {
			t.Errorf("%s: GET %d %v, want %d", tt.name, resp.StatusCode, v, tt.wantStatus)
		}
	}

	// MCP over HTTP is the token's client too: A's /mcp lists A's run.
	httpA := connectHTTP(t, tsA, testToken)
	if got := listed(t, httpA); !slices.Equal(got, []string{idA}) {
		t.Errorf("A over /mcp lists %v, want [%s]", got, idA)
	}
	resp, err := tsA.Client().Do(func() *http.Request {
		r, _ := http.NewRequest("GET", tsA.URL+"/v1/receipts/"+idA, nil)
		r.Header.Set("Authorization", bearer)
		return r
	}())
	if err != nil {
		t.Fatal(err)
	}
	var overHTTP json.RawMessage
	json.NewDecoder(resp.Body).Decode(&overHTTP)
	resp.Body.Close()
	if text, err := readReceipt(httpA, idA); err != nil || text != string(overHTTP) {
		t.Errorf("A reads its run as a resource: %q, %v; want what GET answers, %s", text, err, overHTTP)
	}
	if _, err := readReceipt(httpA, idB); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("A reads B's run as a resource: %v, want not found", err)
	}

	// A session on another transport is a client of its own.
	s1, s2 := connectMemory(t, a), connectMemory(t, a)
	id1 := runMCP(t, s1)
	if got := listed(t, s1); !slices.Equal(got, []string{id1}) {
		t.Errorf("session 1 lists %v, want [%s]", got, id1)
	}
	if got := listed(t, s2); len(got) != 0 {
		t.Errorf("session 2 lists %v, want none", got)
	}
	if text, err := readReceipt(s1, id1); err != nil || !strings.Contains(text, `"run_id":"`+id1+`"`) {
		t.Errorf("session 1 reads its run: %q, %v", text, err)
	}
	for _, tt := range []struct {
		name string
		cs   *mcp.ClientSession
		id   string
	}{{"session 2, session 1's run", s2, id1}, {"session 1, A's token's run", s1, idA}, {"A's token, session 1's run", httpA, id1}} {
		if _, err := readReceipt(tt.cs, tt.id); err == nil {
			t.Errorf("%s: read, want not found", tt.name)
		}
	}
	comp, err := s1.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: ReceiptURIPrefix + "{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: id1[:4]},
	})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{id1}) {
		t.Errorf("completion of %q for session 1: %+v, %v; want [%s]", id1[:4], comp, err, id1)
	}
	// A tenant's run is read from the store only when the ledger does not
	// hold it (another replica's, say): the four reads of another
	// tenant's run above, which the store, too, answers not found. The
	// owners' reads, and every session's, are answered from memory.
	if n := fake.receipts.Load(); n != 4 {
		t.Errorf("%d reads of the store, want 4 (another tenant's run, four times)", n)
	}
}

// TestReceiptFromTheStore: a receipt the door does not keep in memory (a
// reply without one) is read from the Runner, once per read, and still
// only for its own client.
func TestReceiptFromTheStore(t *testing.T) {
	fake := &fakeRunner{bare: true}
	_, ts := newTestServer(t, Config{Runner: fake})
	_, v := do(t, ts, "POST", "/v1/run", bearer, `{"source":"print(1)"}`)
	id, _ := v["run_id"].(string)
	resp, v := do(t, ts, "GET", "/v1/receipts/"+id, bearer, "")
	if resp.StatusCode != 200 || v["run_id"] != id || fake.receipts.Load() != 1 {
		t.Errorf("GET %d %v, %d reads of the store: want 200, the receipt, 1 read", resp.StatusCode, v, fake.receipts.Load())
	}
}

// TestLedgerBounds: the ledger keeps at most MaxClientRuns runs of a
// client (the oldest forgotten), at most maxClients clients (the least
// recently used forgotten), and receipts within maxLedgerBytes (the
// oldest dropped, their runs still the client's).
func TestLedgerBounds(t *testing.T) {
	l := newLedger()
	id := func(n int) string { return fmt.Sprintf("%016x", n) }
	for n := range MaxClientRuns + 10 {
		l.add("c", false, RunReply{RunID: id(n), Receipt: json.RawMessage(`{}`)})
	}
	if got := len(l.runs("c")); got != MaxClientRuns {
		t.Errorf("%d runs kept, want %d", got, MaxClientRuns)
	}
	if _, ours := l.get("c", id(9)); ours {
		t.Errorf("run 9 of %d still kept", MaxClientRuns+10)
	}
	if _, ours := l.get("c", id(10)); !ours {
		t.Errorf("run 10 of %d forgotten", MaxClientRuns+10)
	}
	big := json.RawMessage(`"` + strings.Repeat("x", maxLedgerRecord-2) + `"`)
	for n := range 20 {
		l.add("big", false, RunReply{RunID: id(n), Receipt: big})
	}
	if l.bytes > maxLedgerBytes {
		t.Errorf("%d bytes of receipts kept, more than %d", l.bytes, maxLedgerBytes)
	}
	if rec, ours := l.get("big", id(0)); !ours || rec != nil {
		t.Errorf("the oldest big receipt: kept %v, ours %v; want its bytes dropped, the run still ours", rec != nil, ours)
	}
	if rec, ours := l.get("big", id(19)); !ours || rec == nil {
		t.Errorf("the newest big receipt: kept %v, ours %v; want it kept", rec != nil, ours)
	}
	for n := range maxClients {
		l.add(fmt.Sprint("client ", n), false, RunReply{RunID: id(n)})
	}
	if _, ours := l.get("c", id(10)); ours {
		t.Errorf("client c, least recently used of %d, still remembered", maxClients+2)
	}
	if _, ours := l.get(fmt.Sprint("client ", maxClients-1), id(maxClients-1)); !ours {
		t.Error("the newest client forgotten")
	}
}

// BenchmarkReceiptOf: a client's recent receipt answered from the ledger,
// as GET /v1/receipts/{id} and resources/read answer it; beside
// receipt.BenchmarkFindReceipt, which reads one from a store of 19,000.
func BenchmarkReceiptOf(b *testing.B) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	reply, _ := s.cfg.Runner.Run(context.Background(), RunRequest{Source: "print(1)"})
	s.ledger.add("c", false, reply)
	for b.Loop() {
		if rec, err := s.receiptOf(context.Background(), "mcp", "c", nil, reply.RunID); err != nil || rec == nil {
			b.Fatal(err)
		}
	}
}

// TestListedReceiptEnded: resources/list says how each run ended, its
// status and, when it ended with one, its code.
func TestListedReceiptEnded(t *testing.T) {
	s, ts := newTestServer(t, Config{Runner: &fakeRunner{}})
	client := (&tenantState{Tenant: tokenTenant(testToken)}).client()
	tests := []struct {
		name      string
		reply     RunReply
		wantEnded string
	}{
		{"ok, no code", RunReply{RunID: "00000000000000a1", Status: "ok", Level: "full"}, "ok"},
		{"a timeout, E307",
			RunReply{RunID: "00000000000000a2", Status: "timeout", Code: "E307", Level: "full"},
			"timeout E307"},
	}
	for _, tt := range tests {
		s.ledger.add(client, false, tt.reply)
	}
	res, err := connectHTTP(t, ts, testToken).ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	described := map[string]string{}
	for _, r := range res.Resources {
		described[r.Name] = r.Description
	}
	for _, tt := range tests {
		got := described[tt.reply.RunID]
		if want := ": " + tt.wantEnded + ", level full"; !strings.HasSuffix(got, want) {
			t.Errorf("%s: described %q, want it to end %q", tt.name, got, want)
		}
	}
}

// TestCompleteRunIDs: completion offers at most maxCompletions of the
// client's run ids that begin with what was typed, the newest first,
// counts them all, and says whether there are more than it offers.
func TestCompleteRunIDs(t *testing.T) {
	s, ts := newTestServer(t, Config{Runner: &fakeRunner{}})
	client := (&tenantState{Tenant: tokenTenant(testToken)}).client()
	// Runs of the prefixes a (1), b (maxCompletions), c (maxCompletions+1).
	id := func(prefix string, n int) string { return fmt.Sprintf("%s%015x", prefix, n) }
	for prefix, n := range map[string]int{"a": 1, "b": maxCompletions, "c": maxCompletions + 1} {
		for i := range n {
			s.ledger.add(client, false, RunReply{RunID: id(prefix, i)})
		}
	}
	cs := connectHTTP(t, ts, testToken)
	tests := []struct {
		name        string
		typed       string
		wantValues  int
		wantTotal   int
		wantHasMore bool
		wantNewest  string // the first value
		wantLeftOut string // a run id not offered, if any
	}{
		{"none begin so", "d", 0, 0, false, "", ""},
		{"one", "a", 1, 1, false, id("a", 0), ""},
		{"exactly maxCompletions", "b", maxCompletions, maxCompletions, false,
			id("b", maxCompletions-1), ""},
		{"one past maxCompletions", "c", maxCompletions, maxCompletions + 1, true,
			id("c", maxCompletions), id("c", 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := &mcp.CompleteReference{Type: "ref/resource", URI: ReceiptURIPrefix + "{id}"}
			res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
				Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "id", Value: tt.typed},
			})
			if err != nil {
				t.Fatal(err)
			}
			c := res.Completion
			if len(c.Values) != tt.wantValues || c.Total != tt.wantTotal ||
				c.HasMore != tt.wantHasMore {
				t.Errorf("%d values, total %d, has more %v; want %d, %d, %v",
					len(c.Values), c.Total, c.HasMore, tt.wantValues, tt.wantTotal, tt.wantHasMore)
			}
			for _, v := range c.Values {
				if !strings.HasPrefix(v, tt.typed) {
					t.Errorf("offered %s, which does not begin %q", v, tt.typed)
				}
			}
			if tt.wantNewest != "" && (len(c.Values) == 0 || c.Values[0] != tt.wantNewest) {
				t.Errorf("first offered %v, want the newest, %s",
					c.Values[:min(1, len(c.Values))], tt.wantNewest)
			}
			if tt.wantLeftOut != "" && slices.Contains(c.Values, tt.wantLeftOut) {
				t.Errorf("offered the oldest, %s, past maxCompletions", tt.wantLeftOut)
			}
		})
	}
}

// TestTenantRunsOutliveOtherTenants: the ledger remembers every tenant's
// runs, however many other tenants run after it; the bound of maxClients
// holds sessions alone. Among maxClients clients of every kind, the
// least recently used forgotten first, maxClients other tenants that ran
// once each emptied a tenant's resources/list and completion, the run
// still its own (GET found it in the store). The controls: each other
// tenant lists its own run, and a tenant the tenants file no longer names
// is let go (SetTenants), its runs with it.
func TestTenantRunsOutliveOtherTenants(t *testing.T) {
	fake := &fakeRunner{}
	ts := []tenant.Tenant{{Name: "acme", TokenSHA256: digest(tokenAcme)}}
	token := func(n int) string { return fmt.Sprintf("other-%d-0f1e2d3c4b5a6978", n) }
	for n := range maxClients {
		ts = append(ts, tenant.Tenant{Name: fmt.Sprint("other-", n), TokenSHA256: digest(token(n))})
	}
	s, srv, _ := tenantServer(t, fake, ts...)
	run := func(tok string) string {
		t.Helper()
		resp, v := do(t, srv, "POST", "/v1/run", "Bearer "+tok, `{"source":"print(1)"}`)
		id, _ := v["run_id"].(string)
		if resp.StatusCode != 200 || id == "" {
			t.Fatalf("run: %d %v", resp.StatusCode, v)
		}
		return id
	}
	ours := run(tokenAcme)
	var last string
	for n := range maxClients {
		last = run(token(n))
	}
	if got := listed(t, connectHTTP(t, srv, tokenAcme)); !slices.Equal(got, []string{ours}) {
		t.Errorf("acme lists %v after %d other tenants ran, want [%s]", got, maxClients, ours)
	}
	if got := listed(t, connectHTTP(t, srv, token(maxClients-1))); !slices.Equal(got, []string{last}) {
		t.Errorf("the last other tenant lists %v, want [%s] (the control)", got, last)
	}
	if err := s.SetTenants(ts[1:]); err != nil {
		t.Fatal(err)
	}
	if runs := s.ledger.runs("tenant acme"); len(runs) != 0 {
		t.Errorf("acme, no longer in the tenants file, still has %d runs remembered", len(runs))
	}
	if runs := s.ledger.runs("tenant other-0"); len(runs) != 1 {
		t.Errorf("other-0, still in the tenants file, has %d runs remembered, want 1", len(runs))
	}
}

// TestMCPMountedElsewhereKeepsNoAnonymousRun: the MCP door an embedder
// mounts on a handler of its own, where a request carries no token of
// the server's, cannot tell one client from another: it remembers none
// of their runs, so that a client lists and reads none of another's (both
// over HTTP, with no session the door names). The control: the door's
// own /mcp, with the token, lists and reads its run.
func TestMCPMountedElsewhereKeepsNoAnonymousRun(t *testing.T) {
	s, door := newTestServer(t, Config{Runner: &fakeRunner{}})
	elsewhere := httptest.NewServer(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return s.MCP() }, nil))
	t.Cleanup(elsewhere.Close)
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(
			t.Context(), &mcp.StreamableClientTransport{Endpoint: elsewhere.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := connect(), connect()
	id := runMCP(t, a)
	clients := map[string]*mcp.ClientSession{"the client that ran it": a, "another": b}
	for name, cs := range clients {
		if got := listed(t, cs); len(got) != 0 {
			t.Errorf("%s lists %v, want none", name, got)
		}
		if text, err := readReceipt(cs, id); err == nil {
			t.Errorf("%s reads the run's receipt: %s", name, text)
		}
	}
	own := connectHTTP(t, door, testToken)
	id = runMCP(t, own)
	if got := listed(t, own); !slices.Equal(got, []string{id}) {
		t.Errorf("the door's own /mcp lists %v, want [%s]", got, id)
	}
	if _, err := readReceipt(own, id); err != nil {
		t.Errorf("the door's own /mcp reads its run: %v", err)
	}
}

// TestEndedSessionForgotten: the runs of an MCP session that ended are
// forgotten with it, their receipts' bytes given back; the control, a
// session still open beside it, keeps its run.
func TestEndedSessionForgotten(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	open, ended := connectMemory(t, s), connectMemory(t, s)
	kept := runMCP(t, open)
	runMCP(t, ended)
	clients := func() int {
		s.ledger.mu.Lock()
		defer s.ledger.mu.Unlock()
		return len(s.ledger.clients)
	}
	if n := clients(); n != 2 {
		t.Fatalf("%d clients remembered, want the 2 sessions", n)
	}
	ended.Close()
	waitFor(t, func() bool { return clients() == 1 })
	if got := listed(t, open); !slices.Equal(got, []string{kept}) {
		t.Errorf("the open session lists %v, want [%s]", got, kept)
	}
}
