package door

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sabline/sabline/codes"
)

// fakeRunner is a Runner that runs nothing: it counts the runs it was
// handed and answers what it is told to. Its runs have the ids
// 0123456789abcdef, 0123456789abcdf0, ... in turn, and it keeps their
// receipts for Receipt.
type fakeRunner struct {
	ran      atomic.Int64      // runs that happened (a reply, not a refusal)
	refuse   error             // when set, every Run and Audit is refused with it
	block    chan struct{}     // when set, Run waits for it to close
	start    chan struct{}     // when set, Run sends on it once it has begun
	bare     bool              // replies carry no receipt: the door must ask Receipt
	hold     atomic.Bool       // Run lasts until its context is done, then ends E307 saying why
	receipts atomic.Int64      // calls of Receipt
	looking  chan struct{}     // when set, Receipt sends on it once it has begun
	lookWait chan struct{}     // when set, Receipt waits for it to close: a slow store
	storeErr error             // when set, Receipt fails with it: the store cannot be read
	statuses map[string]string // when set, a run's status by its source ("ok" for another)
	stdout   string            // when set, every run's standard output
	pad      int               // when set, every receipt holds a field of that many bytes more
	auditPad int               // when set, every audit's budget is that many bytes more
	redact   bool              // replies carry their receipt as PoolRunner's, redacted (RunReply.redacted)
	audited  atomic.Int64      // audits answered (a reply, not a refusal)

	mu        sync.Mutex
	last      RunRequest
	lastReply RunReply // the reply of the last run
	stored    map[string]json.RawMessage
	tenant    map[string]string // the tenant of each stored run
	ended     []RunReply        // the runs that held until cancelled
}

const fakeRunID = "0123456789abcdef"

func (f *fakeRunner) Run(ctx context.Context, req RunRequest) (RunReply, error) {
	if f.start != nil {
		f.start <- struct{}{}
	}
	if f.block != nil {
		<-f.block
	}
	if f.refuse != nil {
		return RunReply{}, f.refuse
	}
	if f.hold.Load() {
		<-ctx.Done()
	}
	n := f.ran.Add(1)
	id := fmt.Sprintf("%016x", 0x0123456789abcdef+n-1)
	rec := json.RawMessage(fmt.Sprintf(`{"schema":"sabline.receipt/1","run_id":%q,"run_parameters":{"confinement":"full"}%s}`,
		id, padding(f.pad)))
	f.mu.Lock()
	f.last = req
	if f.stored == nil {
		f.stored = map[string]json.RawMessage{}
	}
	f.stored[id] = rec
	if f.tenant == nil {
		f.tenant = map[string]string{}
	}
	f.tenant[id] = req.Tenant
	f.mu.Unlock()
	reply := RunReply{Stdout: "hello, world\n", RunID: id, Level: "full", Reason: "every limit held", Status: "ok", Receipt: rec}
	if f.stdout != "" {
		reply.Stdout = f.stdout
	}
	if st, ok := f.statuses[req.Source]; ok {
		reply.Status = st
	}
	if f.hold.Load() {
		reply.Status, reply.Code, reply.Message = "timeout", "E307", fmt.Sprintf("the run was cancelled: %v", context.Cause(ctx))
		f.mu.Lock()
		f.ended = append(f.ended, reply)
		f.mu.Unlock()
	}
	if f.bare {
		reply.Receipt = nil
	}
	if f.redact {
		reply.redacted = reply.Receipt
	}
	f.mu.Lock()
	f.lastReply = reply
	f.mu.Unlock()
	return reply, nil
}

func (f *fakeRunner) Audit(ctx context.Context, req AuditRequest) (AuditReply, error) {
	if f.refuse != nil {
		return AuditReply{}, f.refuse
	}
	f.audited.Add(1)
	return AuditReply{Budget: "io" + strings.Repeat(" ", f.auditPad), Levels: map[string]string{"linux": "full", "darwin": "partial", "windows": "partial"}, Here: "full", Within: true}, nil
}

func (f *fakeRunner) Receipt(ctx context.Context, tenant, id string) (json.RawMessage, error) {
	f.receipts.Add(1)
	if f.looking != nil {
		f.looking <- struct{}{}
	}
	if f.lookWait != nil {
		<-f.lookWait
	}
	if f.storeErr != nil {
		return nil, f.storeErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if rec, ok := f.stored[id]; ok && f.tenant[id] == tenant {
		return rec, nil
	}
	return nil, codes.Errorf(codes.E317, "no receipt %s: %w", id, fs.ErrNotExist)
}

func (f *fakeRunner) lastRequest() RunRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// padding is a receipt's field of n bytes more, "" for none.
func padding(n int) string {
	if n == 0 {
		return ""
	}
	return `,"pad":"` + strings.Repeat("a", n) + `"`
}
