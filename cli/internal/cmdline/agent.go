package cmdline

import (
	"io"
	"path/filepath"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt/bucket"
)

// storeAgentDo is what to do about a store agent not found.
const storeAgentDo = "Build it beside sabline (go build -o DIR/ ./cmd/sabline-store), " +
	"or name it with --store-agent."

// StartAgent starts the store agent for url, a path alone made absolute
// (the agent takes no other); its errors name the URL without its query
// (bucket.Redact).
func StartAgent(url, path string, stderr io.Writer) (*bucket.Agent, error) {
	named := bucket.Redact(url)
	if !bucket.IsURL(url) {
		abs, err := filepath.Abs(url)
		if err != nil {
			return nil, codes.Errorf(codes.E317, "--receipts-url %s: %w", named, err)
		}
		url = abs
	}
	if path == "" {
		var err error
		if path, err = Beside(bucket.AgentName); err != nil {
			e := codes.Errorf(codes.E317, "--receipts-url %s: %w", named, err)
			e.Do = storeAgentDo
			return nil, e
		}
	}
	a, err := bucket.StartAgent(path, url, stderr)
	if err != nil {
		return nil, codes.Errorf(codes.E317, "--receipts-url %s: %w", named, err)
	}
	return a, nil
}
