package door

import (
	"context"
	"encoding/json"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/sabline/sabline/codes"
)

// fakeRunner is a Runner that runs nothing: it counts the runs it was
// handed and answers what it is told to.
type fakeRunner struct {
	ran    atomic.Int64  // runs that happened (a reply, not a refusal)
	refuse error         // when set, every Run and Audit is refused with it
	block  chan struct{} // when set, Run waits for it to close
	start  chan struct{} // when set, Run sends on it once it has begun

	mu   sync.Mutex
	last RunRequest
}

const fakeReceipt = `{"schema":"sabline.receipt/1","run_id":"0123456789abcdef","run_parameters":{"confinement":"full"}}`

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
	f.mu.Lock()
	f.last = req
	f.mu.Unlock()
	f.ran.Add(1)
	return RunReply{Stdout: "hello, world\n", RunID: "0123456789abcdef", Level: "full", Reason: "every limit held",
		Status: "ok", Receipt: json.RawMessage(fakeReceipt)}, nil
}

func (f *fakeRunner) Audit(ctx context.Context, req AuditRequest) (AuditReply, error) {
	if f.refuse != nil {
		return AuditReply{}, f.refuse
	}
	return AuditReply{Budget: "io", Levels: map[string]string{"linux": "full", "darwin": "partial", "windows": "partial"}, Here: "full", Within: true}, nil
}

func (f *fakeRunner) Receipt(id string) (json.RawMessage, error) {
	if id == "0123456789abcdef" {
		return json.RawMessage(fakeReceipt), nil
	}
	return nil, codes.Errorf(codes.E317, "no receipt %s: %w", id, fs.ErrNotExist)
}

func (f *fakeRunner) lastRequest() RunRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}
