package doorcmd

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/door"
)

// The values of --log-format.
const (
	logText = "text" // one line of text each: "sabline serve: ..."
	logJSON = "json" // one log/slog JSON record each
)

// observeFlags are the flags of sabline serve for its operator's eyes:
// where its metrics are served and how it logs.
type observeFlags struct {
	metricsListen string
	logFormat     string
}

func (f *observeFlags) register(fs *flag.FlagSet) {
	f.logFormat = logText
	fs.StringVar(&f.metricsListen, "metrics-listen", "",
		"serve GET /metrics (Prometheus) on this `address`, apart from the clients' door")
	fs.StringVar(&f.logFormat, "log-format", logText,
		"the log's `format`: text (a line each) or json (a log/slog JSON record each, "+
			"with run_id and tenant)")
}

// check refuses a --log-format or --metrics-listen that cannot be.
func (f *observeFlags) check() error {
	if f.logFormat != logText && f.logFormat != logJSON {
		return codes.Errorf(codes.E301, "--log-format %s: want text or json", f.logFormat)
	}
	if f.metricsListen != "" {
		if _, _, err := net.SplitHostPort(f.metricsListen); err != nil {
			return codes.Errorf(codes.E301,
				"--metrics-listen %s: not an address HOST:PORT (127.0.0.1:9090, say)", f.metricsListen)
		}
	}
	return nil
}

// jsonLog is a writer whose every line becomes one log/slog JSON record
// (level INFO, the line without its "sabline CMD: " as the message): what
// sabline serve says of itself, and what its store agent writes, in the
// records its door logs in. A line is written once it ends.
type jsonLog struct {
	logger *slog.Logger
	prefix string // "sabline CMD: "

	mu      sync.Mutex
	partial []byte
}

func newJSONLog(w io.Writer, cmd string) *jsonLog {
	return &jsonLog{logger: slog.New(slog.NewJSONHandler(w, nil)), prefix: "sabline " + cmd + ": "}
}

func (j *jsonLog) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.partial = append(j.partial, p...)
	for {
		i := bytes.IndexByte(j.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimPrefix(strings.TrimRight(string(j.partial[:i]), "\r"), j.prefix)
		j.partial = j.partial[i+1:]
		if strings.TrimSpace(line) != "" {
			j.logger.Info(line)
		}
	}
	if len(j.partial) > 64<<10 { // a line without end: said as it is
		j.logger.Info(string(j.partial))
		j.partial = nil
	}
	return len(p), nil
}

// serveMetrics listens on addr and serves srv's metrics there, until
// stop; it listens before the server holds itself to its domain.
func serveMetrics(srv *door.Server, addr string) (ln net.Listener, stop func(), err error) {
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, codes.Errorf(codes.E301, "--metrics-listen %s: %w", addr, err)
	}
	hs := &http.Server{
		Handler:           srv.MetricsHandler(),
		ReadHeaderTimeout: door.ReadHeaderTimeout,
		ReadTimeout:       door.ReadTimeout,
		WriteTimeout:      door.ReadTimeout,
		IdleTimeout:       door.IdleTimeout,
		MaxHeaderBytes:    door.MaxHeaderBytes,
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln) // ends with ErrServerClosed when stopped
	}()
	return ln, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			_ = hs.Close()
		}
		<-done
	}, nil
}
