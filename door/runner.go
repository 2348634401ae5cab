package door

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/audit"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// SourceName is the name a program sent as text carries, beneath the
// import root: its positions, its receipt and its refusals name it, and
// say it came from no file; its loads are read beneath the root.
const SourceName = receipt.SourceName

// PoolRunner is the Runner of a door over a pool: each request runs in
// the pool, under the pool's budget or a narrowing of it, a path is read
// under the pool's import root, and a request refused before the pool
// takes it keeps its receipt in the pool's receipts directory. The pool is
// the caller's: it outlives the runner, and the caller closes it.
type PoolRunner struct {
	pool *sabline.Pool
	o    sabline.PoolOptions
	// shared, when set, is where the receipts of the fleet's other
	// replicas are read (ReadShared).
	shared SharedReceipts
	// host is what of the operator's machine its replies redact.
	host hostFacts
	// root is the import root as it was when the runner was made, nil
	// when it could not be read: a held server reads that directory
	// only, and says so when another is put in its place (read).
	root fs.FileInfo
}

// SharedReceipts are the receipts a fleet of servers ships to a store
// they share (receipt/ship.Reader): Find answers for tenant's runs only.
type SharedReceipts interface {
	Find(ctx context.Context, tenant, id string) (*receipt.Receipt, error)
}

// ReadShared makes Receipt read the receipts the runner's own store does
// not hold in shared: a run another replica of the fleet ran.
func (r *PoolRunner) ReadShared(shared SharedReceipts) { r.shared = shared }

// NewPoolRunner is the Runner of pool. The pool needs an import root: a
// request's path is read under it, and a program sent as text runs as
// if it were there.
func NewPoolRunner(pool *sabline.Pool) (*PoolRunner, error) {
	o := pool.Options()
	if o.ImportRoot == "" {
		return nil, codes.Errorf(codes.E301,
			"a door's pool needs an import root: the directory a request's path is read under")
	}
	host := newHostFacts(o.ImportRoot, o.Receipts) // the root as given and as it resolves
	// The pool holds its programs to the root as it resolves (a link
	// followed): a path named beneath the root as given, a link to it,
	// lay beneath no root of the pool's, and every run was refused E316.
	if abs, err := filepath.Abs(o.ImportRoot); err == nil {
		if resolved, err := filepath.EvalSymlinks(abs); err == nil {
			o.ImportRoot = resolved
		}
	}
	root, _ := os.Stat(o.ImportRoot)
	return &PoolRunner{pool: pool, o: o, host: host, root: root}, nil
}

// Run refuses a request the operator's settings do not admit (E301, E316,
// E328) and one whose arguments pass MaxArgsBytes (E336) before anything
// runs; otherwise it runs it in the pool and returns its receipt. The
// reply and the refusal are as a client is sent them: they name no
// absolute path of the import root, the receipts directory or the host's
// cgroups (hostFacts), which the receipt the pool keeps does.
func (r *PoolRunner) Run(ctx context.Context, req RunRequest) (RunReply, error) {
	reply, err := r.run(ctx, req)
	if err != nil {
		err = r.host.err(err)
	}
	if reply.RunID == "" {
		return reply, err
	}
	reply, rerr := r.host.reply(reply)
	if err == nil {
		err = rerr
	}
	return reply, err
}

// run is Run, its reply and error as the operator's receipt has them.
func (r *PoolRunner) run(ctx context.Context, req RunRequest) (RunReply, error) {
	// The pool bounds its size.
	prog := sabline.Source(filepath.Join(r.o.ImportRoot, SourceName), []byte(req.Source))
	if req.Path != "" {
		prog = sabline.File(asNamed(r.o.ImportRoot, req.Path))
	}
	if err := checkArgs(req.Args); err != nil {
		// The receipt keeps the arguments' digest; the answer names it.
		reply, err := r.refused(prog, req, err)
		return reply, namingReceipt(err, reply.RunID)
	}
	if req.Path != "" {
		path, src, err := r.read(req.Path)
		if err != nil {
			return r.refused(prog, req, err)
		}
		prog = sabline.Source(path, src)
	}
	b, err := r.budgetOf(req.Allow, req.Tenant, req.Ceiling)
	if err != nil {
		return r.refused(prog, req, err)
	}
	var stdin io.Reader // none for no input: nothing to read and keep
	if req.Stdin != "" {
		stdin = strings.NewReader(req.Stdin)
	}
	res, err := r.pool.Run(ctx, prog, sabline.RunOptions{
		Args:   req.Args,
		Stdin:  stdin,
		Budget: &b,
		Tenant: req.Tenant,
	})
	if codes.CodeOf(err) == codes.E327 {
		// It ran, and its receipt could not be finished (the pool said
		// so on the server's log): the client is answered with what ran,
		// not refused, so that it does not send the run again.
		err = nil
	}
	if res == nil || res.Receipt == nil || (err != nil && !kept(res.Receipt)) {
		return RunReply{}, cannotKeep(err)
	}
	reply, rerr := r.replyOf(res)
	if err != nil {
		return reply, err // refused by the pool: the reply names the receipt that says so
	}
	return reply, rerr
}

// replyOf is the reply of a pooled run, its receipt with it: the JSON
// the store appended as it finished the receipt (receipt.StoredJSON),
// else the receipt encoded here.
func (r *PoolRunner) replyOf(res *sabline.Result) (RunReply, error) {
	rec := res.Receipt
	raw := json.RawMessage(rec.StoredJSON())
	if raw == nil {
		var err error
		if raw, err = rec.AppendJSON(nil); err != nil {
			return RunReply{}, codes.Errorf(codes.E327, "reply: %w", err)
		}
	}
	o := rec.Outcome
	reply := RunReply{
		Stdout:     string(res.Stdout),
		Stderr:     string(res.Stderr),
		ExitStatus: o.ExitStatus,
		RunID:      rec.RunID,
		Level:      string(rec.RunParameters.Confinement),
		Reason:     rec.RunParameters.ConfinementReason,
		Status:     o.Status,
		Code:       string(o.Code),
		Message:    o.Message,
		Position:   r.relative(o.Position),
		Testimony:  rec.TestimonyOf(receipt.FieldOutcome),
		Receipt:    raw,
	}
	for _, fr := range o.Stack {
		reply.Stack = append(reply.Stack, r.relative(fr))
	}
	return reply, nil
}

// asNamed is the file a request's path p names beneath root, as its
// receipt records it: root joined with p, cleaned when p is local (it
// stays beneath root), else p kept as the client wrote it after root and
// a separator. A path that leaves the root ("../x.vel", an absolute one)
// is refused, and the client's copy of that receipt, root redacted
// (hostFacts), then names it as the client did: cleaned, it would name
// the directories around the root, which the client did not name.
func asNamed(root, p string) string {
	if rel := filepath.FromSlash(p); filepath.IsLocal(rel) {
		return filepath.Join(root, rel)
	}
	return root + string(filepath.Separator) + filepath.FromSlash(p)
}

// relative is a position, or a stack frame, with a file beneath the import
// root named relative to it, as the client named it: the client knows
// its program by that name, and the server's directories are its own.
func (r *PoolRunner) relative(pos string) string {
	return strings.TrimPrefix(pos, r.o.ImportRoot+string(filepath.Separator))
}

// refused keeps the receipt of a request refused before the pool took it
// (a malformed or unregistered budget item, a path not under the import
// root), and returns err with the reply naming that receipt: nothing
// ran, and the receipt says so too. A budget wider than the pool's and a
// program too large are refused by the pool itself, with their receipts
// (E328, E316).
func (r *PoolRunner) refused(prog sabline.Program, req RunRequest, err error) (RunReply, error) {
	rec := receipt.NewForSource(prog.Path, prog.Source, r.o.Budget, req.Args)
	rec.Tenant = req.Tenant
	rec.Timings.Started = time.Now().UTC()
	// The pool's mode, level and timeout; no policy was derived for a
	// request refused before the pool took it, so none is named.
	rec.RunParameters.Asked(r.o.Confine, r.o.Require, r.o.Timeout, "")
	rec.RunParameters.Durability = r.o.Durability
	rec.Outcome = receipt.OutcomeOf(err)
	if s, serr := receipt.OpenStore(r.o.Receipts); serr == nil {
		s.Finish(rec)
	}
	if !kept(rec) {
		return RunReply{}, err // no run to name: its receipt is nowhere
	}
	reply, _ := r.replyOf(&sabline.Result{Receipt: rec})
	return reply, err
}

// kept says whether rec is in the receipts directory: reserved or
// finished there (receipt.Receipt.Stored names where). A refusal whose
// receipt could not be kept (the journal removed, its file system full)
// names no run: the client would be told of a receipt that neither this
// server's receipts directory nor a lookup of it holds.
func kept(rec *receipt.Receipt) bool {
	path, _ := rec.Stored()
	return path != ""
}

// cannotKeepDo is what a door's client is told when the server cannot
// keep receipts (E317): the cause and its mending (the receipts
// directory, a flag, a restart) are the operator's, said on the server's
// log, and a client can only send the run again.
const cannotKeepDo = "The server cannot keep receipts now, so it runs nothing: send the run " +
	"again later. Its operator is told why on the server's log. Nothing ran."

// cannotKeep is err with cannotKeepDo as what to do when it is E317, as
// a pool refuses a run it cannot reserve a receipt for; any other err
// as it is.
func cannotKeep(err error) error {
	var e *codes.Error
	if !errors.As(err, &e) || e.Code != codes.E317 {
		return err
	}
	out := *e
	out.Do = cannotKeepDo
	return &out
}

// Audit reads the program's declared budget and says what each system,
// and this machine, would hold of it, and whether a run asking for it
// would be admitted (admits).
func (r *PoolRunner) Audit(ctx context.Context, req AuditRequest) (AuditReply, error) {
	name, src := SourceName, []byte(req.Source)
	if req.Path != "" {
		var err error
		if _, src, err = r.read(req.Path); err != nil {
			return AuditReply{}, r.host.err(err) // as a run's refusal: no path of the operator's
		}
		name = req.Path
	}
	if len(src) > program.MaxBytes { // as a run of it is refused, and sabline audit
		e := codes.Errorf(codes.E316, "the program's text (%s) is %d bytes, more than %d: "+
			"nothing was audited", name, len(src), program.MaxBytes)
		e.Do = "Send a shorter program; a program is at most 16 MiB."
		return AuditReply{}, e
	}
	// Bounded before it is parsed: the policy an audit derives costs time
	// in the square of the items, and the audit holds a turn of the gate.
	if line, ok := audit.DeclaredLine(src); ok {
		if err := checkItems("the program's # allow: line", strings.Count(line, ",")+1); err != nil {
			return AuditReply{}, r.host.err(err)
		}
	}
	a, err := audit.MakeAudit(name, src, nil, r.o.Confine)
	if err != nil {
		return AuditReply{}, r.host.err(err)
	}
	reply := AuditReply{Budget: a.Audited, Levels: map[string]string{}, Reasons: map[string]string{}}
	for goos, res := range a.Confinement {
		reply.Levels[goos], reply.Reasons[goos] = string(res.Level), res.Reason
	}
	declared, err := budget.Parse([]string{a.Audited}, r.o.ImportRoot)
	if a.Audited == "" {
		declared, err = budget.Budget{}, nil
	}
	if err != nil {
		return AuditReply{}, codes.Errorf(codes.E301, "the program's # allow: line: %w", err)
	}
	reply.Here = string(confine.OnThisMachine(
		core.OSPolicy(declared, core.Options{Mode: r.o.Confine})).Level)
	reply.Within = r.admits(declared, req.Ceiling) == nil
	return reply, nil
}

// Receipt reads the receipt of tenant's run id in the pool's receipts
// directory, decoding that one receipt only (receipt.FindRun), and, when
// it is not there, in the fleet's shared store (ReadShared). A run of
// another tenant is not found, as a run that never was; with no shared
// store, a run not found where the retention removed segments is E337.
// It is the client's copy: no absolute path of the import root, the
// receipts directory or the host's cgroups (hostFacts).
func (r *PoolRunner) Receipt(ctx context.Context, tenant, id string) (json.RawMessage, error) {
	notFound := codes.Errorf(codes.E317, "no receipt %s among this tenant's runs: %w",
		codes.TerminalSafe(id), fs.ErrNotExist)
	var rec *receipt.Receipt
	run, err := receipt.FindRun(r.o.Receipts, id)
	switch {
	case err == nil && run.Tenant == tenant:
		rec = run.Receipt
	case err == nil:
		return nil, notFound
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	case r.shared == nil && codes.CodeOf(err) == codes.E337:
		return nil, err // removed by the retention: it says so, naming no directory
	case r.shared == nil:
		return nil, notFound
	default:
		if rec, err = r.shared.Find(ctx, tenant, id); err != nil {
			return nil, err
		}
	}
	data, err := rec.AppendJSON(nil)
	if err != nil {
		return nil, codes.Errorf(codes.E317, "receipt %s: %w", id, err)
	}
	return r.host.receipt(data)
}

// admits returns the refusal a run asking for b would meet before anything
// ran: b wider than ceiling (a tenant's; nil for none), or than the pool's
// budget, or narrowing it onto what no grant reaches (sabline.Pool.Admits).
func (r *PoolRunner) admits(b budget.Budget, ceiling *budget.Budget) error {
	if ceiling != nil {
		if err := b.BeneathAs(*ceiling, guard.Resolved); err != nil {
			return err
		}
	}
	return r.pool.Admits(b)
}

// budgetOf is the run's budget: the tenant's ceiling, else the pool's,
// or the items the request gives. Items wider than the tenant's ceiling
// are refused here (E328, naming the tenant); wider than the pool's, by
// the pool (E328). Relative paths are read against the import root.
func (r *PoolRunner) budgetOf(allow []string, tenant string,
	ceiling *budget.Budget) (budget.Budget, error) {
	if len(allow) == 0 {
		if ceiling != nil {
			return *ceiling, nil
		}
		return r.o.Budget, nil
	}
	if err := staysBeneathRoot(allow); err != nil {
		return budget.Budget{}, err
	}
	b, err := budget.Parse(allow, r.o.ImportRoot)
	if err != nil {
		return budget.Budget{}, allowRefused(err)
	}
	if err := sabline.CheckModules("allow", b); err != nil {
		return budget.Budget{}, err
	}
	if ceiling != nil {
		if err := b.BeneathAs(*ceiling, guard.Resolved); err != nil {
			e := codes.Errorf(codes.E328,
				"this run's budget %q: %v: wider than the ceiling of tenant %s: nothing ran",
				b.String(), err, tenant)
			e.Do = "Ask for a budget within your tenant's ceiling, or none to be given the ceiling itself."
			return budget.Budget{}, e
		}
	}
	return b, nil
}

// allowRefused is the E301 of a request's allow that does not read as a
// budget (err, from budget.Parse): a malformed item, or one past the
// budget's bounds.
func allowRefused(err error) error {
	e := codes.Errorf(codes.E301, "allow: %w", err)
	e.Do = "Fix the item of allow the message names (docs/language.md gives the grammar), or " +
		"name fewer and shorter items. Nothing ran."
	return e
}

// staysBeneathRoot refuses an item of allow whose relative path climbs
// out of the import root it is read against (E301): its messages would
// name, resolved, the directories above the root, which the client did
// not name. A path outside the root is written in full.
func staysBeneathRoot(allow []string) error {
	written, err := budget.Parse(allow, "") // relative paths kept as written
	if err != nil {
		return allowRefused(err)
	}
	for _, it := range written.Items {
		if it.Path != "" && !filepath.IsAbs(it.Path) && !filepath.IsLocal(it.Path) {
			e := codes.Errorf(codes.E301, "allow: %s: a relative path is read against the import "+
				"root, and this one leaves it", it)
			e.Do = climbsDo
			return e
		}
	}
	return nil
}

// climbsDo is what to do about a relative path of allow that leaves the
// import root.
const climbsDo = "Name a path beneath the import root relative to it, or one outside it in full. " +
	"Nothing ran."

// pathDo is what to do about a request's path that underRoot refuses.
const pathDo = "Give the path of a .vel file under the server's import root, relative to it, " +
	"with forward slashes. Nothing ran."

// replacedDo is what to do when the import root's path names another
// directory than the one the server was started with and the program
// could not be read: a server that holds itself reads only the one it
// started with (docs/serve.md); one that does not (its start line says
// so) was refused by the new directory's own permissions.
const replacedDo = "The server's import root was replaced since the server started. A server " +
	"that holds itself (its start line says so) reads only the directory it started with: its " +
	"operator restarts it to serve the new one. Nothing ran."

// read is underRoot under the runner's import root; a refusal the
// root's replacement caused says so (replacedDo).
func (r *PoolRunner) read(p string) (string, []byte, error) {
	path, src, err := underRoot(r.o.ImportRoot, p)
	if errors.Is(err, fs.ErrPermission) && r.rootReplaced() {
		e := codes.Errorf(codes.E316, "path %q: %w: the import root is not the directory the "+
			"server started with", codes.TerminalSafe(p), errors.Unwrap(err))
		e.Do = replacedDo
		return "", nil, e
	}
	return path, src, err
}

// underRoot resolves a request's program path under the import root: a
// local path (no .., not absolute), with forward slashes, naming a .vel
// regular file that program.ReadBeneath reaches without leaving the root
// (a link out of it is refused). Every refusal is E316 and says
// nothing of what lies outside the root.
func underRoot(root, p string) (string, []byte, error) {
	refuse := func(why string) error {
		e := codes.Errorf(codes.E316, "path %q: %s", codes.TerminalSafe(p), why)
		e.Do = pathDo
		return e
	}
	rel := filepath.FromSlash(p)
	if strings.Contains(p, `\`) || !filepath.IsLocal(rel) {
		return "", nil, refuse("not a path under the import root")
	}
	if filepath.Ext(rel) != ".vel" {
		return "", nil, refuse("a program is a .vel file")
	}
	src, err := program.ReadBeneath(root, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, refuse("no such file under the import root")
	case errors.Is(err, program.ErrNotRegular), errors.Is(err, program.ErrTooLarge):
		return "", nil, refuse(errors.Unwrap(err).Error())
	case err != nil:
		e := codes.Errorf(codes.E316, "path %q: %w", codes.TerminalSafe(p), err)
		e.Do = pathDo
		return "", nil, e
	}
	return filepath.Join(root, rel), src, nil
}

// rootReplaced says whether the import root's path names another
// directory than it did when the runner was made.
func (r *PoolRunner) rootReplaced() bool {
	now, err := os.Stat(r.o.ImportRoot)
	return r.root != nil && err == nil && !os.SameFile(r.root, now)
}

// liveWorkers is how many of the pool's workers are alive.
func (r *PoolRunner) liveWorkers() int { return len(r.pool.Workers()) }
