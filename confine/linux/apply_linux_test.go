package linux

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
)

// applyChildEnv carries an applyChild to the test binary re-run as the
// process that applies the policy: the layers hold it for good, so the
// test process itself stays free.
const applyChildEnv = "SABLINE_TEST_APPLY_CHILD"

// applyChild is what the child applies: the budget, the steps, and the
// memory limit; Write is the path it tries to write after applying.
type applyChild struct {
	Allow       []string
	Only        string
	Refuse      string
	MaxMemoryMB int
	TempDir     string
	Write       string
}

// applyReport is the line the child prints once the policy is applied,
// before it waits for the parent to look at it from outside.
type applyReport struct {
	Result core.Result
	Err    string
	// Later are the ids of threads the child started after applying
	// (see threadsAfter), each of which tried the write too.
	Later []int
}

// TestApplyLayers applies the policy in re-run copies of the test binary,
// with every layer, with each layer's install handed something the kernel
// refuses, and with each layer alone (as LayersOnlyEnv asks in a knock-out
// build). Each case checks the Result's level, layers and reason, and then,
// from outside the child while it waits, what the kernel holds: its
// seccomp mode and capabilities in /proc/PID/status, its address-space
// limit in /proc/PID/limits, and whether its write outside the budget's
// write grant made a file.
func TestApplyLayers(t *testing.T) {
	if env := os.Getenv(applyChildEnv); env != "" {
		testkit.EndChildBeforeCoverage(t)
		var c applyChild
		if err := json.Unmarshal([]byte(env), &c); err != nil {
			t.Fatal(err)
		}
		runApplyChild(t, c)
		return
	}
	abi, err := LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	if _, ok := nativeArch(); !ok {
		t.Skip("no seccomp filter for this architecture")
	}
	landlock, startCaps := core.LayerLandlock(abi), capEff(t, os.Getpid())
	tests := []struct {
		name        string
		only        string
		refuse      string
		maxMemoryMB int
		wantLevel   core.Level
		wantLayers  []string
		wantReason  []string // each a regular expression the reason matches
		wantErr     string   // a regular expression; "" for no error
		// what is seen from outside
		wantSeccomp   bool // /proc/PID/status says Seccomp: 2
		wantCapsDrop  bool // CapEff is keptCapabilities, of what the test had
		wantWriteHeld bool // the write outside the grant made nothing
		wantASLimit   bool // Max address space is not unlimited
	}{
		{name: "every layer", maxMemoryMB: 512, wantLevel: core.Full,
			wantLayers:  []string{landlock, core.LayerSeccomp, core.LayerCapabilities},
			wantReason:  []string{"^" + regexp.QuoteMeta(core.FullReason) + "$"},
			wantSeccomp: true, wantCapsDrop: true, wantWriteHeld: true, wantASLimit: true},
		{name: "Landlock refused", refuse: layerLandlockOnly, wantLevel: core.Partial,
			wantLayers: []string{core.LayerSeccomp, core.LayerCapabilities},
			wantReason: []string{`Landlock was not applied: reads and writes are not held`,
				`the kernel refused the ruleset: .*/proc/self/ns/net.*landlock_add_rule: .*file descriptor in bad state`},
			wantErr:     `landlock_add_rule`,
			wantSeccomp: true, wantCapsDrop: true},
		{name: "seccomp refused", refuse: layerSeccompOnly, wantLevel: core.Partial,
			wantLayers: []string{landlock, core.LayerCapabilities},
			wantReason: []string{`seccomp was not installed \(confine: install seccomp filter: seccomp\(SECCOMP_SET_MODE_FILTER, TSYNC\): invalid argument\): ` +
				`forking a process \(Landlock refuses executing a file\), .* are not held`},
			wantErr:      `invalid argument`,
			wantCapsDrop: true, wantWriteHeld: true},
		{name: "capability drop refused", refuse: layerCapabilitiesOnly, wantLevel: core.Full,
			wantLayers: []string{landlock, core.LayerSeccomp},
			wantReason: []string{"^" + regexp.QuoteMeta(core.FullReason) + `; the capabilities were not dropped \(capset on every thread: operation not permitted\): no limit rests on them alone$`},
			wantErr:    `capset`, wantSeccomp: true, wantWriteHeld: true},
		{name: "memory limit refused", refuse: layerMemory, maxMemoryMB: 512, wantLevel: core.Partial,
			wantLayers: []string{landlock, core.LayerSeccomp, core.LayerCapabilities},
			wantReason: []string{`^the memory limit could not be set: setrlimit\(RLIMIT_AS\): invalid argument$`},
			wantErr:    `RLIMIT_AS`, wantSeccomp: true, wantCapsDrop: true, wantWriteHeld: true},
		{name: "Landlock alone", only: layerLandlockOnly, maxMemoryMB: 512, wantLevel: core.Partial,
			wantLayers: []string{landlock},
			wantReason: []string{`seccomp was not installed \(left out by SABLINE_LAYERS_ONLY\)`,
				`SABLINE_LAYERS_ONLY=landlock, in a knock-out build: seccomp and capabilities left out`},
			wantWriteHeld: true, wantASLimit: true},
		{name: "seccomp alone", only: layerSeccompOnly, wantLevel: core.Partial,
			wantLayers: []string{core.LayerSeccomp},
			wantReason: []string{`Landlock was not applied: reads and writes are not held`,
				`SABLINE_LAYERS_ONLY=seccomp, in a knock-out build: landlock and capabilities left out`},
			wantSeccomp: true},
		{name: "capability drop alone", only: layerCapabilitiesOnly, wantLevel: core.None,
			wantLayers: []string{core.LayerCapabilities},
			wantReason: []string{`Landlock was not applied`, `seccomp was not installed \(left out by SABLINE_LAYERS_ONLY\)`,
				`SABLINE_LAYERS_ONLY=capabilities, in a knock-out build: landlock and seccomp left out`},
			wantCapsDrop: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			grant, tmp := filepath.Join(base, "grant"), filepath.Join(base, "tmp")
			for _, d := range []string{grant, tmp} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			outside := filepath.Join(base, "outside.txt")
			allow := []string{"io", "fs:write:" + grant}
			env, err := json.Marshal(applyChild{Allow: allow, Only: tt.only, Refuse: tt.refuse,
				MaxMemoryMB: tt.maxMemoryMB, TempDir: tmp, Write: outside})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestApplyLayers$", "-test.count=1")
			cmd.Env = append(os.Environ(), applyChildEnv+"="+string(env))
			// As a worker starts: in a mount namespace of its own, where
			// device nodes beneath the grant are refused (holdDevices).
			if why := canUnshareMounts(); why != "" {
				t.Skipf("no mount namespace for the child (%s): device nodes beneath its grant would be the language's alone, and no level full", why)
			}
			MountNamespace(cmd, childPolicy(t, allow))
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer stdin.Close()
			var report applyReport
			var rest strings.Builder
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				line := sc.Text()
				if j, ok := strings.CutPrefix(line, "apply child: "); ok {
					if err := json.Unmarshal([]byte(j), &report); err != nil {
						t.Fatal(err)
					}
					break
				}
				rest.WriteString(line + "\n")
			}
			if report.Result.Level == "" {
				stdin.Close()
				cmd.Wait()
				t.Fatalf("the child reported nothing:\n%s%s", rest.String(), stderr.String())
			}
			r := report.Result
			t.Logf("level %s, layers %q, reason: %s", r.Level, r.Layers, r.Reason)

			// What the Result says.
			if r.Level != tt.wantLevel {
				t.Errorf("level %s, want %s", r.Level, tt.wantLevel)
			}
			if !slices.Equal(r.Layers, tt.wantLayers) {
				t.Errorf("layers %q, want %q", r.Layers, tt.wantLayers)
			}
			for _, want := range tt.wantReason {
				if !regexp.MustCompile(want).MatchString(r.Reason) {
					t.Errorf("reason %q does not match %q", r.Reason, want)
				}
			}
			if (report.Err == "") != (tt.wantErr == "") || !regexp.MustCompile(tt.wantErr).MatchString(report.Err) {
				t.Errorf("error %q, want one matching %q", report.Err, tt.wantErr)
			}

			// What the kernel holds, seen from outside the child.
			pid := cmd.Process.Pid
			// Every thread: the filter reaches the others through TSYNC.
			tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
			if err != nil || len(tasks) < 2 {
				t.Fatalf("the child's threads: %q, %v", tasks, err)
			}
			for _, task := range tasks {
				status := procField(t, pid, "task/"+filepath.Base(task)+"/status", "Seccomp:")
				if got := status == "2"; got != tt.wantSeccomp {
					t.Errorf("%s/status Seccomp: %s, want a filter: %v", task, status, tt.wantSeccomp)
				}
			}
			// Threads started after Apply are clones of held ones: the
			// filter and the capabilities are theirs as well, and their
			// own write is held as the first thread's is (below).
			if len(report.Later) == 0 {
				t.Errorf("the child started no thread after applying the policy: nothing shows what a later thread holds")
			}
			for _, id := range report.Later {
				if got := procField(t, pid, fmt.Sprintf("task/%d/status", id), "Seccomp:") == "2"; got != tt.wantSeccomp {
					t.Errorf("thread %d, started after Apply: a filter: %v, want %v", id, got, tt.wantSeccomp)
				}
			}
			t.Run("capabilities", func(t *testing.T) {
				if startCaps&^keptCapabilities == 0 {
					t.Skipf("the test runs with no capability to give up (CapEff %#x): dropped or not, the child's would read the same", startCaps)
				}
				wantCaps := startCaps
				if tt.wantCapsDrop {
					wantCaps &= keptCapabilities
				}
				if got := capEff(t, pid); got != wantCaps {
					t.Errorf("CapEff %#x, want %#x (the test's own %#x)", got, wantCaps, startCaps)
				}
				for _, id := range report.Later {
					if got, err := strconv.ParseUint(procField(t, pid, fmt.Sprintf("task/%d/status", id), "CapEff:"), 16, 64); err != nil || got != wantCaps {
						t.Errorf("thread %d, started after Apply: CapEff %#x (%v), want %#x", id, got, err, wantCaps)
					}
				}
			})
			limit := procField(t, pid, "limits", "Max address space")
			if got := !strings.HasPrefix(limit, "unlimited"); got != tt.wantASLimit {
				t.Errorf("Max address space %q, want a limit: %v", limit, tt.wantASLimit)
			}
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v\n%s%s", err, rest.String(), stderr.String())
			}
			_, err = os.Stat(outside)
			if held := err != nil; held != tt.wantWriteHeld {
				t.Errorf("the write outside the grant was held: %v, want %v (stat: %v)", held, tt.wantWriteHeld, err)
			}
			_, err = os.Stat(outside + ".thread")
			if held := err != nil; held != tt.wantWriteHeld {
				t.Errorf("the write outside the grant from threads started after Apply was held: %v, want %v (stat: %v)", held, tt.wantWriteHeld, err)
			}
		})
	}
}

// childPolicy is the policy of the budget allow, as the child applies it.
func childPolicy(t *testing.T, allow []string) core.Policy {
	t.Helper()
	b, err := budget.Parse(allow, "/")
	if err != nil {
		t.Fatal(err)
	}
	return core.OSPolicy(b, core.Options{})
}

// runApplyChild applies the policy as c says, tries the write, prints the
// report and waits for its standard input to close.
func runApplyChild(t *testing.T, c applyChild) {
	o := ApplyOptions{TempDir: c.TempDir, MaxMemoryMB: c.MaxMemoryMB}
	r, err := applyWith(childPolicy(t, c.Allow), o,
		refusedBy(everyLayer().onlyLayer(c.Only), c.Refuse))
	report := applyReport{Result: r}
	if err != nil {
		report.Err = err.Error()
	}
	_ = os.WriteFile(c.Write, []byte("written after the policy was applied\n"), 0o644) // refused where Landlock holds
	report.Later = threadsAfter(8, c.Write+".thread")
	line, err := json.Marshal(report)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("apply child: %s\n", line)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // returns at EOF, when the parent has looked
}

// threadsAfter starts n goroutines, each locked to an OS thread of its
// own, which the runtime starts for them when it has none idle; each tries
// to write path from its thread, and then holds the thread until the
// process ends. It returns the ids of those threads that did not exist
// before the call: threads started after the policy was applied.
func threadsAfter(n int, path string) []int {
	before := map[string]bool{}
	if entries, err := os.ReadDir("/proc/self/task"); err == nil {
		for _, e := range entries {
			before[e.Name()] = true
		}
	}
	ids := make(chan int, n)
	for range n {
		go func() {
			goruntime.LockOSThread() // never unlocked: the thread is this goroutine's alone
			_ = os.WriteFile(path, []byte("written from a thread started after the policy was applied\n"), 0o644)
			ids <- unix.Gettid()
			select {}
		}()
	}
	var later []int
	for range n {
		if id := <-ids; !before[strconv.Itoa(id)] {
			later = append(later, id)
		}
	}
	return later
}

// procField returns the rest of the first line of /proc/PID/FILE that
// starts with prefix, trimmed.
func procField(t *testing.T, pid int, file, prefix string) string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("/proc/%d/%s has no %q line", pid, file, prefix)
	return ""
}

// capEff returns a process's effective capabilities.
func capEff(t *testing.T, pid int) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(procField(t, pid, "status", "CapEff:"), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestInstallerForSaysBoth: knock-out switches naming a layer that is no
// layer and an ABI that is no ABI are both said, in the words the
// Result carries as a problem; each alone is the control, and values
// that name a layer and an ABI are taken with no problem.
func TestInstallerForSaysBoth(t *testing.T) {
	tests := []struct {
		name, layers, abi string
		want              []string
		wantOnly          string
		wantABI           int
	}{
		{name: "no layer", layers: "landlock,seccomp", want: []string{LayersOnlyEnv}},
		{name: "no ABI", abi: "0", want: []string{LandlockABIEnv}},
		{name: "neither", layers: "landlock,seccomp", abi: "0",
			want: []string{LayersOnlyEnv, LandlockABIEnv}},
		{name: "a layer and an ABI", layers: "seccomp", abi: "2", wantOnly: layerSeccompOnly,
			wantABI: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := installerFor(tt.layers, tt.abi)
			if (in.err != nil) != (len(tt.want) > 0) {
				t.Fatalf("problem %v; want one naming %q", in.err, tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(in.err.Error(), w+"=") {
					t.Errorf("the problem %q does not name %s", in.err, w)
				}
			}
			if in.only != tt.wantOnly || in.abiAtMost != tt.wantABI {
				t.Errorf("only %q, ABI at most %d; want %q, %d", in.only, in.abiAtMost,
					tt.wantOnly, tt.wantABI)
			}
		})
	}
}
