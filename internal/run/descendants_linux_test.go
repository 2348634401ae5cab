package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestRunLeavesNoProcess: a process a run starts in a session of its own
// (setsid, as a daemon does) is outside the worker's process group, which
// the supervisor kills; it lived on after the run returned, its receipt
// ok. The worker is its descendants' subreaper, so the daemon stays among
// them, and ends with the run: when the worker ends by itself, and when
// the supervisor kills the worker (for a bound it broke, E330; at its
// timeout, when it does not answer the stop). Each daemon writes its pid,
// which is looked for in /proc from outside once the run has returned.
// The control: the program saw its daemon alive during the run.
func TestRunLeavesNoProcess(t *testing.T) {
	const daemon = `os = ffi.module("os")
os.system("setsid sh -c 'echo $$ > %s.tmp && mv %s.tmp %s && exec sleep 3600' </dev/null >/dev/null 2>&1 &")
os.system("for i in $(seq 100); do [ -s %s ] && break; sleep 0.05; done; kill -0 $(cat %s) && echo alive")
`
	for _, tt := range []struct {
		name  string
		then  string
		edit  func(*Run)
		allow []string // beside io and ffi:os
		want  codes.Code
		// wantMsg, when set, is in the outcome's message.
		wantMsg string
	}{
		{name: "the run ends by itself", then: `print("done")`},
		{name: "the run is stopped at its timeout", then: `os.system("sleep 30")`,
			edit: func(r *Run) { r.Timeout = testkit.Bound(time.Second) }, want: codes.E307},
		{name: "the worker is killed for a bound it broke", then: `c = ffi.module("ctypes")
fd = c.syscall("openat", -100, os.getenv("TMPDIR") + "/big", 65, 384).ret  # O_WRONLY|O_CREAT
c.syscall("ftruncate", fd, 1 << 30)
while True:  # until the supervisor's measure kills the worker (E330)
    pass`, allow: []string{"ffi:ctypes"}, want: codes.E330},
		// The worker's own watch of its memory ends it with os.Exit,
		// past its deferred kill: the kill is made there too.
		{name: "the worker ends itself at its memory limit", then: `xs = []
while True:
    xs.append("x" * (1 << 20))`, edit: func(r *Run) { r.MaxMemoryMB = 64 }, want: codes.E308,
			wantMsg: "over its memory limit of 64 MB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "daemon.pid")
			q := strconv.Quote(pidFile)
			src := strings.NewReplacer("%s", q[1:len(q)-1]).Replace(daemon) + tt.then + "\n"
			s := superviseProgram(t, src, append([]string{"io", "ffi:os"}, tt.allow...), tt.edit)
			b, err := os.ReadFile(pidFile)
			if err != nil || !strings.Contains(s.stdout, "alive") {
				t.Fatalf("the daemon did not start (%v): stdout %q, stderr %s", err, s.stdout, s.stderr)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if sleeping(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			if s.rec.Outcome.Code != tt.want {
				t.Fatalf("outcome %+v, want %q (stderr %s)", s.rec.Outcome, tt.want, s.stderr)
			}
			if !strings.Contains(s.rec.Outcome.Message, tt.wantMsg) {
				t.Fatalf("outcome %+v, want its message to say %q", s.rec.Outcome, tt.wantMsg)
			}
			if tt.want == "" && s.rec.Outcome.Status != receipt.StatusOK {
				t.Fatalf("outcome %+v, want ok", s.rec.Outcome)
			}
			t.Logf("%s: %s", s.rec.Outcome.Code, s.rec.Outcome.Message)
			// Killed, it is gone once init has reaped it.
			deadline := time.Now().Add(testkit.Bound(10 * time.Second))
			for sleeping(pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if sleeping(pid) {
				t.Fatalf("the daemon %d the run started lives on after the run returned", pid)
			}
		})
	}
}

// sleeping reports whether pid is a living process that runs sleep.
func sleeping(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return bytes.Contains(stat, []byte("(sleep)")) && i > 0 && len(stat) > i+2 && stat[i+2] != 'Z'
}
