package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/runtime"
)

// maxRunOutput bounds what a door keeps of a run's standard output, and of
// its standard error: past it the rest is dropped, and the reply says so.
const maxRunOutput = 1 << 20

// newDoorRunner is the Runner of sabline serve and sabline mcp: each run
// in a worker of its own, started by runtime.Supervise, under the
// operator's settings o.
func newDoorRunner(o doorOptions) (door.Runner, error) {
	return &superviseRunner{o: o}, nil
}

// superviseRunner runs each request with runtime.Supervise.
type superviseRunner struct {
	o doorOptions
}

// Run refuses (E301, E302, E316, E326) a request the operator's settings do
// not admit, before anything runs; otherwise it runs it and returns its
// receipt.
func (r *superviseRunner) Run(ctx context.Context, req door.RunRequest) (door.RunReply, error) {
	b, err := r.budgetOf(req.Allow)
	if err != nil {
		return door.RunReply{}, err
	}
	mode := r.o.Confine
	if _, err := requireHeld(b, mode, r.o.Require); err != nil {
		return door.RunReply{}, err
	}
	var program string
	switch {
	case req.Source != "":
		if len(req.Source) > runtime.MaxProgramBytes {
			return door.RunReply{}, runtime.Errorf(runtime.E316, "the program is larger than %d bytes", runtime.MaxProgramBytes)
		}
		dir, err := os.MkdirTemp("", "sabline-door-")
		if err != nil {
			return door.RunReply{}, runtime.Errorf(runtime.E310, "a directory for the program: %w", err)
		}
		defer os.RemoveAll(dir)
		program = filepath.Join(dir, "program.vel")
		if err := os.WriteFile(program, []byte(req.Source), 0o600); err != nil {
			return door.RunReply{}, runtime.Errorf(runtime.E310, "write the program: %w", err)
		}
	default:
		if program, err = underRoot(r.o.ImportRoot, req.Path); err != nil {
			return door.RunReply{}, err
		}
	}
	stdout, stderr := &capped{max: maxRunOutput}, &capped{max: maxRunOutput}
	rec := runtime.Supervise(runtime.Run{
		Program: program, Args: req.Args, Budget: b, Cwd: r.o.ImportRoot,
		Confine: mode, Require: r.o.Require, Timeout: r.o.Timeout, MaxMemoryMB: r.o.MaxMemoryMB,
		Guarded: r.o.Guarded, Receipts: r.o.Receipts,
		Stdin: strings.NewReader(req.Stdin), Stdout: stdout, Stderr: stderr,
	})
	path, werr := rec.Stored()
	if runtime.CodeOf(werr) == runtime.E317 {
		return door.RunReply{}, werr // nothing ran
	}
	raw, err := readReceiptFile(path)
	if err != nil {
		if raw, err = json.Marshal(rec); err != nil {
			return door.RunReply{}, runtime.Errorf(runtime.E327, "encode the receipt: %w", err)
		}
	}
	o := rec.Outcome
	return door.RunReply{
		Stdout: stdout.String(), Stderr: stderr.String(), ExitStatus: o.ExitStatus,
		RunID: rec.RunID, Level: string(rec.RunParameters.Confinement), Reason: rec.RunParameters.ConfinementReason,
		Status: o.Status, Code: string(o.Code), Message: o.Message, Receipt: raw,
	}, nil
}

// Audit reads the program's declared budget and says what each system,
// and this machine, would hold of it, and whether the operator's budget
// covers it.
func (r *superviseRunner) Audit(ctx context.Context, req door.AuditRequest) (door.AuditReply, error) {
	name, src := "program.vel", []byte(req.Source)
	if req.Path != "" {
		path, err := underRoot(r.o.ImportRoot, req.Path)
		if err != nil {
			return door.AuditReply{}, err
		}
		if src, err = readBoundedFile(path, runtime.MaxProgramBytes); err != nil {
			return door.AuditReply{}, runtime.Errorf(runtime.E316, "program %s: %w", req.Path, err)
		}
		name = req.Path
	}
	strict := r.o.Confine == runtime.ConfineStrict
	a, err := runtime.MakeAudit(name, src, nil, strict)
	if err != nil {
		return door.AuditReply{}, err
	}
	reply := door.AuditReply{Budget: a.Audited, Levels: map[string]string{}, Reasons: map[string]string{}}
	for goos, res := range a.Confinement {
		reply.Levels[goos], reply.Reasons[goos] = string(res.Level), res.Reason
	}
	declared, err := budget.Parse([]string{a.Audited}, r.o.ImportRoot)
	if a.Audited == "" {
		declared, err = budget.Budget{}, nil
	}
	if err != nil {
		return door.AuditReply{}, runtime.Errorf(runtime.E301, "the program's # allow: line: %w", err)
	}
	reply.Here = string(confine.OnThisMachine(confine.OSPolicy(declared, confine.Options{Strict: strict})).Level)
	reply.Within = withinCeiling(declared, r.o.Ceiling) == nil
	return reply, nil
}

// Receipt reads the receipt of the run id in the receipts directory.
func (r *superviseRunner) Receipt(id string) (json.RawMessage, error) {
	if id == "" || len(id) > 64 || strings.Trim(id, "0123456789abcdef") != "" {
		return nil, runtime.Errorf(runtime.E317, "no receipt %q: %w", runtime.TerminalSafe(id), fs.ErrNotExist)
	}
	matches, err := filepath.Glob(filepath.Join(r.o.Receipts, "*-"+id+".json"))
	if err != nil || len(matches) == 0 {
		return nil, runtime.Errorf(runtime.E317, "no receipt %s: %w", id, fs.ErrNotExist)
	}
	if _, err := runtime.LoadReceipt(matches[0]); err != nil {
		return nil, err
	}
	return readReceiptFile(matches[0])
}

// budgetOf is the run's budget: the operator's ceiling, or the items the
// request gives, each within it. Relative paths are read against the
// import root.
func (r *superviseRunner) budgetOf(allow []string) (budget.Budget, error) {
	if len(allow) == 0 {
		return r.o.Ceiling, nil
	}
	b, err := budget.Parse(allow, r.o.ImportRoot)
	if err != nil {
		return budget.Budget{}, runtime.Errorf(runtime.E301, "allow: %w", err)
	}
	if err := registered(b); err != nil {
		return budget.Budget{}, err
	}
	if err := withinCeiling(b, r.o.Ceiling); err != nil {
		return budget.Budget{}, err
	}
	return b, nil
}

// withinCeiling refuses (E302) a budget with an item no item of the
// ceiling covers, or with two items under one counted item of the ceiling
// (their counts would add up past it).
func withinCeiling(b, ceiling budget.Budget) error {
	counted := map[int]string{}
	for _, it := range b.Items {
		found := false
		for i, c := range ceiling.Items {
			if !itemWithin(it, c) {
				continue
			}
			found = true
			if c.Limit > 0 {
				if prev, ok := counted[i]; ok {
					return runtime.Errorf(runtime.E302, "allow: %s and %s both fall under the server's %s: give one item", prev, it, c)
				}
				counted[i] = it.String()
			}
			break
		}
		if !found {
			e := runtime.Errorf(runtime.E302, "allow: %s is wider than the server's budget (%s)", it, ceilingText(ceiling))
			e.Do = "Ask for items within the server's budget, or leave allow out to run under the whole of it. Nothing ran."
			return e
		}
	}
	return nil
}

func ceilingText(b budget.Budget) string {
	if s := b.String(); s != "" {
		return s
	}
	return "nothing granted"
}

// itemWithin reports whether every effect it grants, c grants too, and
// its count (if c has one) is within c's.
func itemWithin(it, c budget.Item) bool {
	if it.Kind != c.Kind {
		return false
	}
	if c.Limit > 0 && (it.Limit == 0 || it.Limit > c.Limit) {
		return false
	}
	switch it.Kind {
	case budget.FS:
		if c.Access != budget.Any && c.Access != it.Access {
			return false
		}
		return c.Path == "" || (it.Path != "" && budget.Within(it.Path, c.Path))
	case budget.Net:
		return c.Host == "" || (it.Host == c.Host && (c.Port == 0 || it.Port == c.Port))
	case budget.FFI:
		return c.Module == "" || it.Module == c.Module
	}
	return true
}

// underRoot resolves a request's program path under the import root: a
// local path (no .., not absolute), with forward slashes, naming a .vel
// regular file that opening through os.Root reaches without leaving the
// root (a link out of it is refused). Every refusal is E316 and says
// nothing of what lies outside the root.
func underRoot(root, p string) (string, error) {
	refuse := func(why string) error {
		e := runtime.Errorf(runtime.E316, "path %q: %s", runtime.TerminalSafe(p), why)
		e.Do = "Give the path of a .vel file under the server's import root, relative to it, with forward slashes. Nothing ran."
		return e
	}
	rel := filepath.FromSlash(p)
	if strings.Contains(p, `\`) || !filepath.IsLocal(rel) {
		return "", refuse("not a path under the import root")
	}
	if filepath.Ext(rel) != ".vel" {
		return "", refuse("a program is a .vel file")
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", runtime.Errorf(runtime.E316, "the import root: %w", err)
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		return "", refuse("no such file under the import root")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", refuse("not a regular file")
	}
	return filepath.Join(root, rel), nil
}

// readReceiptFile reads a stored receipt (at most runtime.MaxReceiptBytes)
// and returns it compacted: a receipt finished in its reserved space is
// padded with blanks.
func readReceiptFile(path string) (json.RawMessage, error) {
	if path == "" {
		return nil, runtime.Errorf(runtime.E317, "the run has no stored receipt")
	}
	data, err := readBoundedFile(path, runtime.MaxReceiptBytes)
	if err != nil {
		return nil, runtime.Errorf(runtime.E317, "read receipt: %w", err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, data); err != nil {
		return nil, runtime.Errorf(runtime.E317, "read receipt %s: %w", path, err)
	}
	return out.Bytes(), nil
}

// readBoundedFile reads a regular file of at most limit bytes.
func readBoundedFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

// capped is a writer that keeps the first max bytes written to it and
// counts the rest; it never fails, so that the program's output pipe is
// drained whatever it writes.
type capped struct {
	mu      sync.Mutex
	max     int
	buf     bytes.Buffer
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

// String is what was kept, and a line saying how much was dropped.
func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropped == 0 {
		return c.buf.String()
	}
	return c.buf.String() + fmt.Sprintf("\n[sabline: %d more bytes were dropped: a reply keeps %d]\n", c.dropped, c.max)
}
