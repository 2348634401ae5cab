package doorcmd

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/ship"
)

// readyToken is the token of the doors these tests probe.
const readyToken = "5ad1e0c0ffee5ad1e0c0ffee5ad1e0c0"

// probeServer serves a door whose readiness is rd's, and returns its URL.
func probeServer(t *testing.T, rd *ready) string {
	t.Helper()
	srv, err := door.New(door.Config{Runner: nopRunner{}, Token: readyToken, Ready: rd.check})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// getProbe sends GET path (with the token when auth) and returns the status
// and the body.
func getProbe(t *testing.T, url, path string, auth bool) (int, string) {
	t.Helper()
	header := ""
	if auth {
		header = "Bearer " + readyToken
	}
	status, _, body := testkit.Get(t, url+path, header)
	return status, body
}

// wantReady checks /readyz answers ready, or not ready for reason and in
// that word alone (one of door.ReadyReasons).
func wantReady(t *testing.T, url, reason string) {
	t.Helper()
	status, body := getProbe(t, url, "/readyz", false)
	want, wantStatus := `{"status":"ready"}`+"\n", http.StatusOK
	if reason != "" {
		want, wantStatus = fmt.Sprintf(`{"status":"not-ready","reason":%q}`+"\n", reason), http.StatusServiceUnavailable
		if !slices.Contains(door.ReadyReasons, reason) {
			t.Errorf("reason %q is not one of %v", reason, door.ReadyReasons)
		}
	}
	if status != wantStatus || body != want {
		t.Errorf("/readyz: %d %q, want %d %q", status, body, wantStatus, want)
	}
}

// TestReadyConfinement: a server whose workers must hold full confinement
// is not ready (confinement) once a granted directory is gone, since a
// run that needs a new worker would be refused E326; it is ready while
// the directory is there (the control), and again once it is back.
func TestReadyConfinement(t *testing.T) {
	if confine.Probe().LandlockABI < 4 {
		t.Skip("full confinement of a granted directory needs Landlock ABI 4 and later")
	}
	root := t.TempDir()
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	receipts := t.TempDir()
	pool, err := sabline.NewPool(sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:read:"+data),
		Workers: 1, ImportRoot: root, Require: core.Full, Receipts: receipts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	store, err := receipt.OpenStore(receipts)
	if err != nil {
		t.Fatal(err)
	}
	rd := &ready{workers: pool, store: store, maxLag: time.Minute}
	url := probeServer(t, rd)
	wantReady(t, url, "")

	if err := os.Remove(data); err != nil {
		t.Fatal(err)
	}
	var nr *door.NotReady
	if err := rd.check(); !errors.As(err, &nr) || nr.Reason != door.ReasonConfinement || codes.CodeOf(err) != codes.E326 {
		t.Errorf("check with the directory gone: %v, want not ready for confinement, E326", err)
	}
	wantReady(t, url, door.ReasonConfinement)
	if status, body := getProbe(t, url, "/v1/health", true); status != http.StatusOK ||
		!strings.Contains(body, `"reason":"confinement"`) || strings.Contains(body, data) {
		t.Errorf("/v1/health with the directory gone: %d %s, want the reason and no path", status, body)
	}

	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	wantReady(t, url, "")
}

// The words of the store a lagging replica's status carries: /readyz and
// /v1/health say none of them.
var lagSentinels = []string{"s3://bucket-sentinel-3c9a", "endpoint-sentinel.example:9443",
	"replica-sentinel-0f", "journal-sentinel-d41d"}

// TestReadyStoreLagging: a replica whose receipts reach the store later
// than --ready-max-lag is not ready (store-lagging); /readyz says that
// word alone, /v1/health how late and what lags, and neither the store's
// endpoint, bucket, replica or journal ids, which the error keeps for the
// log. The control: the same lag within the bound, and it is ready. A
// store that has not answered since the start is not ready either,
// whatever the lag.
func TestReadyStoreLagging(t *testing.T) {
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := ship.Status{Lag: 2 * time.Minute, Listed: true, Pending: 2,
		Err: fmt.Errorf("put %s/%s/receipts/%s/%s.seg at %s: connection refused",
			lagSentinels[0], lagSentinels[2], lagSentinels[3], "0001", lagSentinels[1]),
		Live: []ship.LiveJournal{{Dir: "/var/lib/" + lagSentinels[3], Owner: "pid 1", Segments: 3}}}
	rd := &ready{workers: refusingNothing{}, store: store, maxLag: 3 * time.Minute,
		shipped: func() ship.Status { return st }}
	url := probeServer(t, rd)
	wantReady(t, url, "")

	rd.maxLag = 30 * time.Second
	wantReady(t, url, door.ReasonStoreLagging)
	status, body := getProbe(t, url, "/v1/health", true)
	if status != http.StatusOK || !strings.Contains(body, `"reason":"store-lagging"`) ||
		!strings.Contains(body, "2m0s late, past 30s") || !strings.Contains(body, "the last round of shipping failed") {
		t.Errorf("/v1/health lagging: %d %s, want the reason, how late and that shipping failed", status, body)
	}
	_, readyBody := getProbe(t, url, "/readyz", false)
	err = rd.check()

	rd.maxLag, st.Listed = 3*time.Minute, false
	wantReady(t, url, door.ReasonStoreLagging)
	if status, body := getProbe(t, url, "/v1/health", true); status != http.StatusOK ||
		!strings.Contains(body, "the shared store has not been reached since the start") {
		t.Errorf("/v1/health before the store answered: %d %s, want it said", status, body)
	}
	for _, s := range lagSentinels {
		if strings.Contains(body, s) || strings.Contains(readyBody, s) {
			t.Errorf("a probe says %q: /readyz %s, /v1/health %s", s, readyBody, body)
		}
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("the error for the log does not say %q: %v", s, err)
		}
	}
}

// TestReadyReceipts: a replica whose receipts journal cannot be written
// is not ready (receipts); the control, the same replica before.
func TestReadyReceipts(t *testing.T) {
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rd := &ready{workers: refusingNothing{}, store: store}
	url := probeServer(t, rd)
	wantReady(t, url, "")
	if err := os.RemoveAll(store.Journal().Dir()); err != nil {
		t.Fatal(err)
	}
	rd.mu.Lock()
	rd.probedAt = time.Time{} // the next check writes again
	rd.mu.Unlock()
	wantReady(t, url, door.ReasonReceipts)
}

// refusingNothing is a pool that would refuse no run for its level.
type refusingNothing struct{}

func (refusingNothing) Refusing() error { return nil }
