package door

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// RunInput is the arguments of the MCP tool run; its JSON schema is the
// tool's input schema. The arguments are decoded as strictly as an HTTP
// body (decodeRunRequest).
type RunInput struct {
	Source string   `json:"source,omitempty" jsonschema:"the program's text, a .vel program (a dialect of Starlark); give source or path, not both"`
	Path   string   `json:"path,omitempty" jsonschema:"a .vel file under the server's import root, relative to it, with forward slashes; give source or path, not both"`
	Args   []string `json:"args,omitempty" jsonschema:"the program's arguments (ARGS in the program)"`
	Stdin  string   `json:"stdin,omitempty" jsonschema:"the program's standard input"`
	Allow  []string `json:"allow,omitempty" jsonschema:"budget items (io, fs:read:PATH, net:HOST:PORT, ...) narrowing the server's budget; each must lie within it; left out: the server's budget itself"`
}

// RunOutput is the structured result of the MCP tool run: how the run
// ended and what its receipt says.
type RunOutput struct {
	RunID      string   `json:"run_id" jsonschema:"the run's id: its receipt's name"`
	Status     string   `json:"status" jsonschema:"how the run ended: ok, or the receipt's outcome status"`
	ExitStatus int      `json:"exit_status" jsonschema:"the exit status a sabline command would have exited with"`
	Level      string   `json:"level" jsonschema:"the confinement the kernel held: full, partial or none"`
	Reason     string   `json:"reason" jsonschema:"why the confinement is at that level"`
	Code       string   `json:"code,omitempty" jsonschema:"the error code (E3xx) the run ended with, if any"`
	Message    string   `json:"message,omitempty" jsonschema:"the error message, if any"`
	Position   string   `json:"position,omitempty" jsonschema:"where the error happened: FILE:LINE:COL, the file relative to the import root (<source> for a program sent as text)"`
	Stack      []string `json:"stack,omitempty" jsonschema:"the calls that led to the error, innermost first: FILE:LINE:COL in FUNCTION"`
	Stdout     string   `json:"stdout" jsonschema:"what the program printed"`
	Stderr     string   `json:"stderr" jsonschema:"the run's standard error"`
	Testimony  string   `json:"testimony,omitempty" jsonschema:"set when status, exit_status, code and message are what ran the program reported (a grant of ffi let host code run beside it), which could have forged them: why"`
}

// AuditInput is the arguments of the MCP tool audit.
type AuditInput struct {
	Source string `json:"source,omitempty" jsonschema:"the program's text; give source or path, not both"`
	Path   string `json:"path,omitempty" jsonschema:"a .vel file under the server's import root; give source or path, not both"`
}

// AuditOutput is the structured result of the MCP tool audit.
type AuditOutput struct {
	Budget  string            `json:"budget" jsonschema:"the budget the program declares on its # allow: line"`
	Levels  map[string]string `json:"levels" jsonschema:"the confinement level each system would give that budget"`
	Reasons map[string]string `json:"reasons,omitempty" jsonschema:"why, for each system"`
	Here    string            `json:"here" jsonschema:"the level on the server's machine"`
	Within  bool              `json:"within_ceiling" jsonschema:"whether a run asking for the declared budget would be admitted: within your ceiling and onto nothing no grant reaches"`
}

// mcpImplementation names the server to MCP clients.
var mcpImplementation = &mcp.Implementation{
	Name:    "sabline",
	Title:   "Sabline",
	Version: receipt.Version,
}

// newMCPServer makes the MCP door: the tools run and audit, whose
// arguments are decoded by the door's own strict decoder, and whose
// refusals are tool errors (IsError) carrying the code.
func (s *Server) newMCPServer() *mcp.Server {
	srv := mcp.NewServer(mcpImplementation, &mcp.ServerOptions{
		Instructions: "Runs .vel programs confined, under the server operator's budget; every run " +
			"leaves a receipt, which this client can read as the resource " + ReceiptURIPrefix + "RUN-ID.",
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{},
			Resources:   &mcp.ResourceCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		CompletionHandler: s.complete,
	})
	srv.AddTool(&mcp.Tool{
		Name:  "run",
		Title: "Run a program",
		Description: "Runs a .vel program (its text, or a path under the server's import root) " +
			"confined, under the server's budget or a narrowing of it (allow), and returns what it " +
			"printed, its exit status and its receipt's run id and confinement level. Confinement is the " +
			"server operator's setting: a request naming it is refused.",
		InputSchema:  mustSchema[RunInput](),
		OutputSchema: mustSchema[RunOutput](),
	}, s.mcpRun)
	srv.AddTool(&mcp.Tool{
		Name:  "audit",
		Title: "Audit a program",
		Description: "Says what budget a .vel program declares (its # allow: line), the confinement " +
			"level each system would give it, and whether a run asking for it would be admitted. Nothing runs.",
		InputSchema:  mustSchema[AuditInput](),
		OutputSchema: mustSchema[AuditOutput](),
	}, s.mcpAudit)
	s.addReceiptResources(srv)
	srv.AddReceivingMiddleware(encodedResults)
	return srv
}

// mustSchema is the JSON schema of T. A list is an array, never null:
// the decoder refuses null for every field.
func mustSchema[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("door: schema of %T: %v", *new(T), err))
	}
	for _, p := range sc.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	return sc
}

// arguments are the raw arguments of a tool call, none an empty object,
// held to the server's bound on a body: over Streamable HTTP the body
// bounds them already, over standard input the line only bounds them to
// the largest bound a server may have.
func (s *Server) arguments(req *mcp.CallToolRequest) ([]byte, error) {
	if req.Params == nil || len(req.Params.Arguments) == 0 {
		return []byte("{}"), nil
	}
	if len(req.Params.Arguments) > int(s.cfg.MaxBodyBytes) {
		return nil, malformed("the arguments are larger than %d bytes", s.cfg.MaxBodyBytes)
	}
	return req.Params.Arguments, nil
}

func (s *Server) mcpRun(ctx context.Context,
	req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := s.arguments(req)
	var in RunRequest
	if err == nil {
		in, err = decodeRunRequest(args)
	}
	if err != nil {
		s.refusedErr(ctx, "mcp", nil, err)
		return toolError(detailOf(err)), nil
	}
	ctx, stop := runContext(ctx)
	defer stop()
	if tok := req.Params.GetProgressToken(); tok != nil {
		defer s.progress(ctx, req.Session, tok)()
	}
	client, t := s.clientOf(ctx, req)
	reply, err := s.run(ctx, "mcp", client, t, in)
	if err != nil {
		return s.toolRefusal(err, reply.RunID), nil
	}
	out := runOutputOf(reply)
	return toolResultOf(out.appendJSON(nil)), nil
}

// errCallCancelled is why a run ends when its tools/call is cancelled:
// the client's notifications/cancelled, or over HTTP the client closing
// its request.
var errCallCancelled = errors.New("the client cancelled the tools/call")

// runContext is the context of a tools/call's run: cancelled, with
// errCallCancelled as its cause (the run's E307 says so), when the call is
// cancelled or, over HTTP, when the request that carried it ends.
func runContext(ctx context.Context) (context.Context, func()) {
	run, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stops := []func() bool{context.AfterFunc(ctx, func() { cancel(errCallCancelled) })}
	if hr, ok := ctx.Value(requestKey{}).(context.Context); ok {
		stops = append(stops, context.AfterFunc(hr, func() { cancel(errCallCancelled) }))
	}
	return run, func() {
		for _, stop := range stops {
			stop()
		}
		cancel(nil)
	}
}

// progress sends the client, every ProgressInterval until the returned
// function is called, how long its call has lasted (progress: seconds,
// rising), at most one notification an interval.
func (s *Server) progress(ctx context.Context, ss *mcp.ServerSession, token any) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(s.progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				d := now.Sub(start)
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      d.Seconds(),
					Message:       fmt.Sprintf("running for %s", d.Round(100*time.Millisecond)),
				})
			}
		}
	}()
	return func() { close(done); <-finished }
}

func (s *Server) mcpAudit(ctx context.Context,
	req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := s.arguments(req)
	var in AuditRequest
	if err == nil {
		in, err = decodeAuditRequest(args)
	}
	if err != nil {
		s.refusedErr(ctx, "mcp", nil, err)
		return toolError(detailOf(err)), nil
	}
	_, t := s.clientOf(ctx, req)
	if t != nil {
		in.Ceiling = t.Ceiling
	}
	held, err := s.enter(ctx, t) // an audit reads a program too, as over HTTP
	if err != nil {
		s.refusedErr(ctx, "mcp", t, err)
		return s.toolRefusal(err, ""), nil
	}
	release := held.release
	defer func() { release() }()
	a, err := s.cfg.Runner.Audit(ctx, in)
	held.ran()
	release = keepUntilReplied(ctx, held)
	if err != nil {
		return s.toolRefusal(err, ""), nil
	}
	return toolResult(auditOutputOf(a))
}

// toolRefusal is the tool error of an error of the gate or the Runner,
// as writeRefusal answers it over HTTP: a Runner's refusal that left a
// receipt names its run, runID ("" for none).
func (s *Server) toolRefusal(err error, runID string) *mcp.CallToolResult {
	var le *limitError
	switch {
	case errors.As(err, &le):
		return toolError(limitDetail(le))
	case errors.Is(err, errBusy):
		return toolError(s.busyDetail())
	case errors.Is(err, errStopping):
		return toolError(s.stoppingDetail())
	}
	d := detailOf(err)
	d.RunID = runID
	return toolError(d)
}

// toolResult is a tool's result: the structured output, and its JSON as
// the text content for clients that read only text (toolResultOf).
func toolResult(out any) (*mcp.CallToolResult, error) {
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode the tool's result: %w", err)
	}
	return toolResultOf(data), nil
}

// toolError is a refusal as a tool error: IsError, with the error body the
// HTTP door would answer as its text.
func toolError(d errorDetail) *mcp.CallToolResult {
	data, _ := json.Marshal(errorBody{Error: d})
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: string(data)}},
	}
}

// mcpMethods are the MCP requests the door answers, on standard input and
// on /mcp: its tools, its receipts as resources and their completion,
// and what every MCP server takes (initialize, ping; prompts/list and
// logging/setLevel, which clients send whatever a server declares, and
// prompts/get, which answers that no prompt is known).
var mcpMethods = []string{
	"initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read",
	"resources/templates/list", "completion/complete", "prompts/list", "prompts/get",
	"logging/setLevel",
}

// methodNotFound is the answer (-32601, with the request's id) of a
// request whose method is none of mcpMethods, or nil when it is one.
// Over /mcp the MCP SDK refuses such a request 400, as a message it
// cannot take (-32600, id null), where it answers one on standard
// input -32601 with its id: a client would see a failed transport, not a
// method the server does not have.
func methodNotFound(req *jsonrpc.Request) *jsonrpc.Response {
	if !req.IsCall() || slices.Contains(mcpMethods, req.Method) {
		return nil
	}
	return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("method not found: %s: the methods this server answers are %s",
			codes.Clip(strconv.Quote(req.Method), 64), strings.Join(mcpMethods, ", "))}}
}

// maxID bounds a JSON-RPC id that is a number: the SDK reads it as a
// float64 and answers with it as an int64, which hold an integer up to
// 2^53-1 exactly (JavaScript's Number.MAX_SAFE_INTEGER).
const maxID = 1<<53 - 1

// idRefusal says why a message whose JSON-RPC id is raw, as it was sent,
// is refused (-32600, id null), or "" when it is not: an id is a string
// of text (no U+FFFD, which the SDK puts for bytes that are not UTF-8
// and for a lone surrogate), or an integer written in digits within
// ±maxID, or none (absent, or null, which the SDK judges). Any other
// would be answered with another id than the one sent (9007199254740993
// as 9007199254740992, 2.7 as 2, 2^64 as -2^63, "\ud800" as "\ufffd"),
// which the client could not match to its request, or could take for
// another's.
func idRefusal(raw json.RawMessage) string {
	if carried(raw) {
		return ""
	}
	return fmt.Sprintf("the id %s is not a string of text (UTF-8, no U+FFFD) or an integer "+
		"within ±%d: its answer would carry another id; give such a string or integer",
		codes.Clip(string(raw), 64), maxID)
}

// tokenRefusal says why a request whose progress token
// (params._meta.progressToken) is raw, as it was sent, is refused
// (-32600), or "" when it is not: as for an id (idRefusal), for the SDK
// reads a token as it reads an id, and the notifications of the
// request's progress would carry another token than the one sent
// (9007199254740993 as 9007199254740992, 1e3 as 1000, "\ud800" as
// "\ufffd"), which the client could not match to its request, or could
// take for another's. A number with a fraction, which MCP's tokens are
// not, is refused with them.
func tokenRefusal(raw json.RawMessage) string {
	if carried(raw) {
		return ""
	}
	return fmt.Sprintf("the progress token %s is not a string of text (UTF-8, no U+FFFD) or an "+
		"integer within ±%d: the notifications of its progress would carry another token; give "+
		"such a string or integer", codes.Clip(string(raw), 64), maxID)
}

// carried reports whether a JSON-RPC id or progress token, raw as it was
// sent, is written back by the SDK as it was sent: none (absent or
// null), a string of text, or an integer written in digits within
// ±maxID.
func carried(raw json.RawMessage) bool {
	var text string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return true
	case raw[0] == '"':
		return json.Unmarshal(raw, &text) == nil && !strings.ContainsRune(text, utf8.RuneError)
	default:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return err == nil && n >= -maxID && n <= maxID && strconv.FormatInt(n, 10) == string(raw)
	}
}
