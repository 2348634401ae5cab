package doorcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/ship"
	"github.com/sabline/sabline/tenant"
)

// defaultMaxLag is how late receipts may reach the shared store before a
// replica says it is not ready.
const defaultMaxLag = 30 * time.Second

// fleetFlags are the flags of sabline serve for one replica of a fleet:
// the shared receipts store, this replica's id, the tenants file, and
// the bound on shipping a readiness probe holds.
type fleetFlags struct {
	receiptsURL, replica, agent, tenants string
	shipEvery, maxLag                    time.Duration
}

func (f *fleetFlags) register(fs *flag.FlagSet) {
	f.shipEvery, f.maxLag = ship.DefaultEvery, defaultMaxLag
	fs.StringVar(&f.receiptsURL, "receipts-url", "",
		"the `URL` of the store a fleet ships its receipts to: file://DIR, s3://BUCKET, "+
			"gs://BUCKET, azblob://CONTAINER (a path is file://)")
	fs.StringVar(&f.replica, "replica", "",
		"this replica's `id` in the fleet (default: the host's name)")
	fs.StringVar(&f.agent, "store-agent", "",
		"the store agent's `executable` (default: "+bucket.AgentName+" beside sabline, else on PATH)")
	fs.Var((*cmdline.Duration)(&f.shipEvery), "ship-every",
		"seal and ship receipts every `duration`")
	fs.Var((*cmdline.Duration)(&f.maxLag), "ready-max-lag",
		"say not ready while receipts reach the store later than this `duration`")
	fs.StringVar(&f.tenants, "tenants", "",
		"the tenants `file`: tokens, each with its own ceiling and limits (read again on SIGHUP)")
}

// fleet is a replica's link to the shared store: the agent that reaches
// it, the shipper of its journal, the reader of every replica's receipts.
type fleet struct {
	agent   *bucket.Agent
	shipper *ship.Shipper
	reader  *ship.Reader
}

// replicaID is the --replica given, or the host's name made a replica id.
func replicaID(given string) (string, error) {
	id := given
	if id == "" {
		h, err := os.Hostname()
		if err != nil {
			return "", codes.Errorf(codes.E301, "--replica: the host's name: %w", err)
		}
		id = strings.ToLower(h)
	}
	if !ship.ValidReplica(id) {
		return "", codes.Errorf(codes.E301,
			"--replica %q: want 1 to 63 lower-case letters, digits and '-', unique in the fleet", id)
	}
	return id, nil
}

// startFleet starts shipping the receipts of the store in o.Receipts to
// the shared store, and reading the fleet's from it; nil when no
// --receipts-url was given. It runs before the server holds itself: the
// agent starts outside the server's domain, where it reaches the store.
func startFleet(f fleetFlags, o doorOptions, runner *door.PoolRunner,
	stderr io.Writer) (*fleet, error) {
	if f.receiptsURL == "" {
		return nil, nil
	}
	id, err := replicaID(f.replica)
	if err != nil {
		return nil, err
	}
	store, err := receipt.OpenStore(o.Receipts)
	if err != nil {
		return nil, err
	}
	a, err := cmdline.StartAgent(f.receiptsURL, f.agent, stderr)
	if err != nil {
		return nil, err
	}
	sh, err := ship.Start(store, a, ship.Options{Replica: id, Every: f.shipEvery,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(stderr, "sabline serve: %s\n", codes.TerminalSafe(fmt.Sprintf(format, args...)))
		}})
	if err != nil {
		a.Close()
		return nil, codes.Errorf(codes.E317, "--receipts-url %s: %w", bucket.Redact(f.receiptsURL), err)
	}
	fl := &fleet{agent: a, shipper: sh, reader: ship.NewReader(a)}
	runner.ReadShared(fl.reader)
	return fl, nil
}

// close ships what is left, within a bound, and ends the agent.
func (fl *fleet) close(stderr io.Writer) {
	if fl == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fl.shipper.Close(ctx); err != nil {
		fmt.Fprintf(stderr, "sabline serve: %s (they are shipped at the next start)\n",
			codes.TerminalSafe(err.Error()))
	}
	fl.agent.Close()
}

// ready says why a replica should be sent no traffic: a run sent now
// would be refused for its level (E326), its journal takes no records,
// or its receipts reach the shared store later than maxLag. Each is a
// *door.NotReady: /readyz answers its reason alone, the operator's token
// reads its detail on /v1/health (no path, none of the store's words),
// and the log all of it.
type ready struct {
	workers interface{ Refusing() error } // the pool
	store   *receipt.Store
	shipped func() ship.Status // nil without --receipts-url
	maxLag  time.Duration

	mu       sync.Mutex
	probedAt time.Time
	probeErr error
}

// The details of a replica not ready, as the operator's token reads them.
const (
	refusingDetail = "a run sent now would be refused for its level (E326): a worker started " +
		"now would hold less than the confinement required; the server's log says why"
	journalDetail  = "the receipts journal takes no records: no run can keep its receipt"
	writableDetail = "the receipts journal cannot be written: no run can keep its receipt"
)

func (r *ready) check() error {
	if err := r.workers.Refusing(); err != nil {
		return &door.NotReady{Reason: door.ReasonConfinement, Detail: refusingDetail,
			Err: fmt.Errorf("a run sent now would be refused: %w", err)}
	}
	if err := r.store.Journal().Err(); err != nil {
		return &door.NotReady{Reason: door.ReasonReceipts, Detail: journalDetail,
			Err: fmt.Errorf("its receipts journal takes no records: %w", err)}
	}
	if err := r.writable(); err != nil {
		return &door.NotReady{Reason: door.ReasonReceipts, Detail: writableDetail,
			Err: fmt.Errorf("its receipts journal cannot be written: %w", err)}
	}
	if r.shipped != nil {
		// What lags, in one line: the store not reached since start, the
		// last failure, journals of ended processes still to ship,
		// collisions, other live processes' unshipped segments. Until the
		// store first answers, nothing is known of it (its agent checks
		// it keeps create-only writes before it answers): not ready.
		if st := r.shipped(); !st.Listed || st.Lag > r.maxLag {
			return &door.NotReady{Reason: door.ReasonStoreLagging, Detail: lagDetail(st, r.maxLag),
				Err: fmt.Errorf("its receipts reach the shared store %s late (at most %s): %s",
					st.Lag.Round(time.Millisecond), r.maxLag, st)}
		}
	}
	return nil
}

// lagDetail is what the operator's token reads of receipts that lag: how
// late, and the counts of what lags, never the store's words (its
// failure's text names its endpoint, bucket and keys) nor a journal's
// id.
func lagDetail(st ship.Status, maxLag time.Duration) string {
	s := fmt.Sprintf("receipts reach the shared store %s late, past %s",
		st.Lag.Round(time.Second), maxLag)
	if !st.Listed {
		s = "the shared store has not been reached since the start"
	}
	if st.Err != nil {
		s += "; the last round of shipping failed"
	}
	if st.Pending > 0 {
		s += fmt.Sprintf("; %d journals of ended processes wait to be shipped", st.Pending)
	}
	if st.Collisions > 0 {
		s += fmt.Sprintf("; %d key collisions in the store", st.Collisions)
	}
	if len(st.Live) > 0 {
		s += fmt.Sprintf("; %d other live processes keep receipts in the same directory",
			len(st.Live))
	}
	return s
}

// writable writes and removes a file beside the journal's segments, at
// most once a second: a disk full or made read-only fails it.
func (r *ready) writable() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.probedAt) < time.Second {
		return r.probeErr
	}
	p := filepath.Join(r.store.Journal().Dir(), "ready.probe")
	err := os.WriteFile(p, []byte("ready\n"), 0o600)
	if err == nil {
		err = os.Remove(p)
	}
	r.probedAt, r.probeErr = time.Now(), err
	return err
}

// loadTenants reads the tenants file, each tenant's ceiling held within
// the operator's (--allow): a tenant wider than it is refused, naming the
// tenant, and so is the whole file.
func loadTenants(path string, o doorOptions, cwd string) ([]tenant.Tenant, error) {
	ts, err := tenant.Load(path, tenant.Scope{Cwd: cwd, Ceiling: o.Ceiling, Check: checkModules})
	if err != nil {
		return nil, codes.Errorf(codes.E301, "--tenants: %w", err)
	}
	return ts, nil
}

// errNoTenantsReload is what a reload of no tenants file says.
var errNoTenantsReload = errors.New("no --tenants file to read again")

// reloadTenants reads the tenants file again and gives the door the new
// tenants; a file that does not read keeps the old ones.
func reloadTenants(srv *door.Server, path string, o doorOptions, cwd string) (int, error) {
	if path == "" {
		return 0, errNoTenantsReload
	}
	ts, err := loadTenants(path, o, cwd)
	if err != nil {
		return 0, err
	}
	if err := srv.SetTenants(ts); err != nil {
		return 0, codes.Errorf(codes.E301, "--tenants: %w", err)
	}
	return len(ts), nil
}

// watchFleet stops the server when its store agent ends on its own: the
// replica cannot ship, and is started again whole (its supervisor, a
// pod's restart policy) rather than serve without it. agentEnded reports
// whether that happened.
func watchFleet(ctx context.Context, stop func(), fl *fleet,
	stderr io.Writer) (agentEnded func() bool) {
	if fl == nil {
		return func() bool { return false }
	}
	var ended atomic.Bool
	go func() {
		select {
		case <-fl.agent.Done():
			if err := fl.agent.Err(); err != nil {
				ended.Store(true)
				fmt.Fprintf(stderr, "sabline serve: %s: stopping\n", codes.TerminalSafe(err.Error()))
				stop()
			}
		case <-ctx.Done():
		}
	}()
	return ended.Load
}

// reloadOnHangUp reads the tenants file again at each SIGHUP, until ctx
// is done; a file that does not read keeps the tenants the server has.
func reloadOnHangUp(ctx context.Context, srv *door.Server, o doorOptions, cwd string,
	stderr io.Writer) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			n, err := reloadTenants(srv, o.Tenants, o, cwd)
			if err != nil {
				fmt.Fprintf(stderr, "sabline serve: SIGHUP: the tenants are unchanged: %s\n",
					codes.TerminalSafe(err.Error()))
				continue
			}
			fmt.Fprintf(stderr, "sabline serve: SIGHUP: %s read from %s\n", tenantsText(n),
				codes.TerminalSafe(o.Tenants))
		}
	}
}

// tenantsText is n tenants, as the log names them: "1 tenant", "3 tenants".
func tenantsText(n int) string {
	if n == 1 {
		return "1 tenant"
	}
	return fmt.Sprintf("%d tenants", n)
}
