package door

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/receipt"
)

// ReceiptURIPrefix begins the URI of a run's receipt as an MCP resource:
// sabline://receipts/RUN-ID.
const ReceiptURIPrefix = "sabline://receipts/"

// maxCompletions bounds the run ids one completion answers.
const maxCompletions = 100

// sessions names the MCP sessions that reach the door on a transport
// other than HTTP (standard input and output, in memory): each is a
// client of its own for as long as it lasts, and its runs are forgotten
// with it.
type sessions struct {
	mu    sync.Mutex
	names map[*mcp.ServerSession]string
}

// clientOf is who sent an MCP request: over HTTP the tenant whose token
// it carried (and that tenant), else its session (and no tenant). Over
// the door's own /mcp that is the tenant the request was let in as
// (authorized), never its token looked up again: the tenants may have
// been read again since (SIGHUP) while its body came, and a token that is
// no longer a tenant's would run as none, under the server's whole
// budget and no tenant's limits.
func (s *Server) clientOf(ctx context.Context, req mcp.Request) (string, *tenantState) {
	if extra := req.GetExtra(); extra != nil && extra.Header != nil {
		t := tenantFrom(ctx)
		if t == nil { // MCP() mounted on another handler than the door's
			t = s.tenantOf(extra.Header.Get("Authorization"))
		}
		return t.client(), t
	}
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return "", nil
	}
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	if name, ok := s.sessions.names[ss]; ok {
		return name, nil
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "session " + hex.EncodeToString(b[:])
	if s.sessions.names == nil {
		s.sessions.names = map[*mcp.ServerSession]string{}
	}
	s.sessions.names[ss] = name
	go func() {
		_ = ss.Wait()
		s.sessions.mu.Lock()
		delete(s.sessions.names, ss)
		s.sessions.mu.Unlock()
		s.ledger.forget(name)
	}()
	return name, nil
}

// addReceiptResources makes the receipts of a client's runs its MCP
// resources: resources/list names them (newest first, at most
// MaxClientRuns), resources/read of sabline://receipts/RUN-ID answers the
// receipt as GET /v1/receipts/RUN-ID does, and completion offers a
// client's run ids for the template's id. Another client's run is not
// found, as a run that never was.
func (s *Server) addReceiptResources(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: ReceiptURIPrefix + "{id}",
		Name:        "receipt",
		Title:       "A run's receipt",
		Description: "The receipt of a run this client asked for: what ran, under which budget, what " +
			"the kernel held, how it ended.",
		MIMEType: "application/json",
	}, s.readReceipt)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/list" {
				return s.listReceipts(ctx, req), nil
			}
			return next(ctx, method, req)
		}
	})
}

// listReceipts is resources/list: the receipts of the client's runs.
func (s *Server) listReceipts(ctx context.Context, req mcp.Request) *mcp.ListResourcesResult {
	// The client's own: no intermediary may serve it to another.
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}, Cacheable: private}
	client, _ := s.clientOf(ctx, req)
	for _, r := range s.ledger.runs(client) {
		ended := r.Status
		if r.Code != "" {
			ended += " " + r.Code
		}
		res.Resources = append(res.Resources, &mcp.Resource{
			URI: ReceiptURIPrefix + r.ID, Name: r.ID, MIMEType: "application/json",
			Title: "receipt " + r.ID,
			Description: fmt.Sprintf("run %s at %s: %s, level %s", r.ID, r.At.Format("2006-01-02T15:04:05Z"),
				ended, r.Level),
		})
	}
	return res
}

func (s *Server) readReceipt(ctx context.Context,
	req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, ReceiptURIPrefix)
	if !ok || !receipt.ValidRunID(id) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	client, t := s.clientOf(ctx, req)
	rec, err := s.receiptOf(ctx, "mcp", client, t, id)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, mcp.ResourceNotFoundError(uri)
	case err != nil:
		return nil, s.lookupFailed(ctx, "mcp", t, id, err)
	}
	contents := &mcp.ResourceContents{URI: uri, MIMEType: "application/json", Text: string(rec)}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{contents}, Cacheable: private}, nil
}

// private is the cache scope of what is one client's alone (its receipts,
// and the list of them): left out, the SDK answers "public", which lets
// "any client or intermediary" cache the answer and serve it to another
// client asking for the same URI.
var private = mcp.Cacheable{CacheScope: "private"}

// complete is completion/complete: for the receipt template's id, the
// client's run ids that begin with what was typed; for anything else,
// nothing.
func (s *Server) complete(ctx context.Context,
	req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	p := req.Params
	if p == nil || p.Ref == nil || p.Ref.Type != "ref/resource" ||
		p.Ref.URI != ReceiptURIPrefix+"{id}" || p.Argument.Name != "id" {
		return res, nil
	}
	client, _ := s.clientOf(ctx, req)
	for _, r := range s.ledger.runs(client) {
		if strings.HasPrefix(r.ID, p.Argument.Value) {
			res.Completion.Total++
			if len(res.Completion.Values) < maxCompletions {
				res.Completion.Values = append(res.Completion.Values, r.ID)
			}
		}
	}
	res.Completion.HasMore = res.Completion.Total > len(res.Completion.Values)
	return res, nil
}
