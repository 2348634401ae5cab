package windows

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit/confinetest"
)

func TestWindowsJobLimits(t *testing.T) {
	tests := []struct {
		name string
		plan Plan
		want jobLimits
	}{
		{
			name: "a confined run: one process, every UI restriction, the memory limit, kill on close",
			plan: PlanFor(confinetest.PolicyOf("io,fs:read:/srv", false), confinetest.Needs(), countFiles(nil), 512),
			want: jobLimits{LimitFlags: jobLimitKillOnClose | jobLimitActiveProcess | jobLimitProcessMemory,
				ActiveProcessLimit: 1, UIRestrictions: 0xff, ProcessMemoryLimit: 512 << 20},
		},
		{
			name: "no memory limit",
			plan: PlanFor(confinetest.PolicyOf("io", false), confinetest.Needs(), countFiles(nil), 0),
			want: jobLimits{LimitFlags: jobLimitKillOnClose | jobLimitActiveProcess, ActiveProcessLimit: 1, UIRestrictions: 0xff},
		},
		{
			name: "a run that enforces nothing still ends with its job",
			plan: PlanFor(confinetest.PolicyOf("ffi", false), confinetest.Needs(), countFiles(nil), 0),
			want: jobLimits{LimitFlags: jobLimitKillOnClose},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := windowsJobLimits(tt.plan)
			if err != nil || got != tt.want {
				t.Fatalf("windowsJobLimits = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := windowsJobLimits(Plan{JobUIRestrictions: []string{"JOB_OBJECT_UILIMIT_NEW"}}); err == nil {
		t.Error("an unknown UI restriction was taken as none")
	}
}

func TestWindowsJobHeld(t *testing.T) {
	want := jobLimits{LimitFlags: jobLimitKillOnClose | jobLimitActiveProcess | jobLimitProcessMemory,
		ActiveProcessLimit: 1, UIRestrictions: 0xff, ProcessMemoryLimit: 256 << 20}
	tests := []struct {
		name    string
		got     jobLimits
		wantErr string
	}{
		{name: "the job asked for", got: want},
		{name: "more than asked for", got: jobLimits{LimitFlags: want.LimitFlags | 0x4, ActiveProcessLimit: 1, UIRestrictions: 0x1ff, ProcessMemoryLimit: 128 << 20}},
		{name: "another job (a CI runner's, say)", got: jobLimits{LimitFlags: jobLimitKillOnClose}, wantErr: "limit flags"},
		{name: "two processes", got: jobLimits{LimitFlags: want.LimitFlags, ActiveProcessLimit: 2, UIRestrictions: 0xff, ProcessMemoryLimit: 256 << 20}, wantErr: "active process limit of 2"},
		{name: "a larger memory limit", got: jobLimits{LimitFlags: want.LimitFlags, ActiveProcessLimit: 1, UIRestrictions: 0xff, ProcessMemoryLimit: 1 << 40}, wantErr: "process memory limit"},
		// A megabyte more than asked for is not the limit asked for.
		{name: "a memory limit a megabyte larger", got: jobLimits{LimitFlags: want.LimitFlags,
			ActiveProcessLimit: 1, UIRestrictions: 0xff, ProcessMemoryLimit: 257 << 20},
			wantErr: "process memory limit of 269484032 bytes, not 268435456"},
		{name: "the clipboard open", got: jobLimits{LimitFlags: want.LimitFlags, ActiveProcessLimit: 1, UIRestrictions: 0xf9, ProcessMemoryLimit: 256 << 20}, wantErr: "UI restrictions"},
		// A child started with CREATE_BREAKAWAY_FROM_JOB, or any child under
		// silent breakaway, is outside the job and its process limit.
		{name: "breakaway allowed", got: jobLimits{LimitFlags: want.LimitFlags | 0x800, ActiveProcessLimit: 1, UIRestrictions: 0xff, ProcessMemoryLimit: 256 << 20}, wantErr: "breakaway allowed (limit flags 0x800)"},
		{name: "silent breakaway allowed", got: jobLimits{LimitFlags: want.LimitFlags | 0x1000, ActiveProcessLimit: 1, UIRestrictions: 0xff, ProcessMemoryLimit: 256 << 20}, wantErr: "breakaway allowed (limit flags 0x1000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := jobHeld(want, tt.got)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("jobHeld = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestWindowsPrivilegesBeyond(t *testing.T) {
	kept := []string{"SeChangeNotifyPrivilege"}
	if got := privilegesBeyond([]string{"SeShutdownPrivilege", "SeChangeNotifyPrivilege", "SeBackupPrivilege"}, kept); !slices.Equal(got, []string{"SeBackupPrivilege", "SeShutdownPrivilege"}) {
		t.Errorf("to remove: %v", got)
	}
	if got := privilegesBeyond([]string{"SeChangeNotifyPrivilege"}, kept); len(got) != 0 {
		t.Errorf("left after removal: %v, want none", got)
	}
}

func TestWindowsContainerClaim(t *testing.T) {
	tests := []struct {
		name        string
		told        string
		isContainer bool
		sid         string
		err         error
		wantHeld    bool
		wantProblem string
	}{
		{name: "in the container it was told", told: sidA, isContainer: true, sid: sidA, wantHeld: true},
		{name: "told of none, claims none", isContainer: true, sid: sidA},
		{name: "told outside a container claims nothing", told: sidA, wantProblem: "its token is not an AppContainer's"},
		{name: "in another container claims nothing", told: sidA, isContainer: true, sid: sidB, wantProblem: "but its token's is " + sidB},
		{name: "a token it cannot read claims nothing", told: sidA, err: errors.New("access denied"), wantProblem: "could not read its token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held, problem := containerClaim(tt.told, tt.isContainer, tt.sid, tt.err)
			if held != tt.wantHeld || !strings.Contains(problem, tt.wantProblem) || (tt.wantProblem == "") != (problem == "") {
				t.Fatalf("containerClaim = %v, %q; want %v, %q", held, problem, tt.wantHeld, tt.wantProblem)
			}
		})
	}
}

// TestWindowsResult holds the Result to what the worker found: a layer
// is named only when found held, and each one not held says why.
func TestWindowsResult(t *testing.T) {
	readOnly := confinetest.PolicyOf("io,fs:read:/srv/data", false) // low integrity, a container
	writes := confinetest.PolicyOf("io,fs:write:/srv/out", false)   // medium integrity
	// Low integrity; the plan leaves the container off.
	loopback := confinetest.PolicyOf("io,fs:read:/srv/data,net:localhost:8080", false)
	planOf := func(p core.Policy) Plan { return PlanFor(p, confinetest.Needs(), countFiles(nil), 0) }
	jobOf := func(p core.Policy) jobLimits { j, _ := windowsJobLimits(planOf(p)); return j }
	good := func(p core.Policy) windowsObserved {
		return windowsObserved{Job: jobOf(p), Privileges: []string{"SeChangeNotifyPrivilege"}, IntegrityRID: lowIntegrityRID,
			ContainerTold: sidA, IsContainer: true, ContainerSID: sidA}
	}
	tests := []struct {
		name        string
		p           core.Policy
		change      func(*windowsObserved)
		wantLevel   core.Level
		wantLayers  []string
		wantReasons []string
		wantNot     string // what the reason does not say
	}{
		{
			name: "every layer held is full", p: readOnly, change: func(*windowsObserved) {},
			wantLevel: core.Full, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity, core.LayerAppContainer},
		},
		{
			name: "no job: the layer is left out and the reason says why", p: readOnly,
			change:    func(o *windowsObserved) { o.JobErr = errors.New("the process is not in a job") },
			wantLevel: core.Partial, wantLayers: []string{core.LayerTokenPrivs, core.LayerLowIntegrity, core.LayerAppContainer},
			wantReasons: []string{"starting a process is not held", "the process is not in a job"},
		},
		{
			name: "a privilege left", p: readOnly,
			change:    func(o *windowsObserved) { o.Privileges = append(o.Privileges, "SeDebugPrivilege") },
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerLowIntegrity, core.LayerAppContainer},
			wantReasons: []string{"the token's privileges were not removed", "still holds SeDebugPrivilege"},
		},
		{
			name: "integrity not lowered", p: readOnly,
			change:    func(o *windowsObserved) { o.IntegrityRID = 0x2000 },
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerAppContainer},
			wantReasons: []string{"0x2000, above low"},
		},
		{
			name: "--contained outside a container claims nothing of it", p: readOnly,
			change:    func(o *windowsObserved) { o.IsContainer, o.ContainerSID = false, "" },
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity},
			wantReasons: []string{"the AppContainer was not applied: reads", "its token is not an AppContainer's"},
		},
		{
			name: "the container left off says the supervisor's reason", p: readOnly,
			change: func(o *windowsObserved) {
				o.ContainerTold, o.IsContainer, o.ContainerSID, o.ContainerOff = "", false, "", "a loopback host is granted"
			},
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity},
			wantReasons: []string{"the AppContainer was left off (a loopback host is granted)"},
		},
		{
			name: "a supervisor that said nothing: the plan's reason", p: loopback,
			change: func(o *windowsObserved) {
				o.ContainerTold, o.IsContainer, o.ContainerSID, o.ContainerOff = "", false, "", ""
			},
			wantLevel:   core.Partial,
			wantLayers:  []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity},
			wantReasons: []string{"the AppContainer was left off (a loopback host is granted): reads"},
		},
		{
			name: "told of a container it is not in: not the plan's reason", p: loopback,
			change: func(o *windowsObserved) {
				o.IsContainer, o.ContainerSID, o.ContainerOff = false, "", ""
			},
			wantLevel:  core.Partial,
			wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity},
			wantReasons: []string{"the AppContainer was not applied: reads",
				"its token is not an AppContainer's"},
			wantNot: "left off",
		},
		{
			name: "a write grant is not lowered, nor claimed low", p: writes,
			change:    func(o *windowsObserved) { o.IntegrityErr = errors.New("must not be read") },
			wantLevel: core.Partial, wantLayers: []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerAppContainer},
			wantReasons: []string{"reads beneath the write grant /srv/out are held by the language alone"},
			wantNot:     "integrity",
		},
		{
			name: "nothing held is none", p: readOnly,
			change: func(o *windowsObserved) {
				*o = windowsObserved{JobErr: errors.New("no job"), PrivErr: errors.New("denied"), IntegrityErr: errors.New("denied")}
			},
			wantLevel: core.None, wantLayers: []string{},
		},
		{
			name: "a policy that enforces nothing is none", p: confinetest.PolicyOf("ffi", false), change: func(*windowsObserved) {},
			wantLevel: core.None, wantLayers: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good(tt.p)
			tt.change(&o)
			r := windowsResult(tt.p, planOf(tt.p), o)
			if r.Level != tt.wantLevel || !slices.Equal(r.Layers, tt.wantLayers) {
				t.Fatalf("Result = %+v; want level %s, layers %v", r, tt.wantLevel, tt.wantLayers)
			}
			for _, want := range tt.wantReasons {
				if !strings.Contains(r.Reason, want) {
					t.Errorf("reason %q lacks %q", r.Reason, want)
				}
			}
			if tt.wantNot != "" && strings.Contains(r.Reason, tt.wantNot) {
				t.Errorf("reason %q says %q", r.Reason, tt.wantNot)
			}
		})
	}
}

// TestWindowsContainerOffReason: the reason read from the environment is
// kept as the supervisor wrote it, but on one line (a control character
// or DEL is a space) and bounded.
func TestWindowsContainerOffReason(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "a reason", in: "a loopback host is granted", want: "a loopback host is granted"},
		{name: "control characters and DEL", in: "a\nb\tc\x1fd\x7fe ~", want: "a b c d e ~"},
		{name: "at the bound", in: strings.Repeat("x", maxContainerOff),
			want: strings.Repeat("x", maxContainerOff)},
		{name: "past it", in: strings.Repeat("x", maxContainerOff+1),
			want: strings.Repeat("x", maxContainerOff)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := containerOffReason(tt.in); got != tt.want {
				t.Fatalf("containerOffReason(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestWindowsContainerEnvOfNone: a worker started with an empty
// environment gets the one variable that says what the supervisor did.
func TestWindowsContainerEnvOfNone(t *testing.T) {
	tests := []struct {
		name     string
		sid, off string
		want     []string
	}{
		{name: "a container", sid: sidA, want: []string{containerSIDEnv + "=" + sidA}},
		{name: "none", off: "a loopback host is granted",
			want: []string{containerOffEnv + "=a loopback host is granted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withContainerEnv([]string{}, tt.sid, tt.off); !slices.Equal(got, tt.want) {
				t.Fatalf("withContainerEnv = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWindowsContainerEnv(t *testing.T) {
	env := []string{"PATH=C:\\bin", "sabline_appcontainer_sid=S-1-15-2-9", containerOffEnv + "=old"}
	got := withContainerEnv(env, sidA, "")
	if !slices.Equal(got, []string{"PATH=C:\\bin", containerSIDEnv + "=" + sidA}) {
		t.Errorf("with a SID: %q", got)
	}
	got = withContainerEnv(env, "", "a loopback host is granted")
	if !slices.Equal(got, []string{"PATH=C:\\bin", containerOffEnv + "=a loopback host is granted"}) {
		t.Errorf("left off: %q", got)
	}
	if r := containerOffReason("a\nb" + strings.Repeat("x", 1000)); len(r) != maxContainerOff || strings.ContainsRune(r, '\n') {
		t.Errorf("containerOffReason kept %d bytes or a newline", len(r))
	}
}

// TestWindowsSystemRoot: the environment of a worker started in its
// AppContainer gets SYSTEMROOT where it names none (a worker without the
// env grant), as os/exec gives a process it starts; one it names, in any
// case, is kept as it is, and an unknown root adds nothing.
func TestWindowsSystemRoot(t *testing.T) {
	tests := []struct {
		name    string
		env     []string
		root    string
		wantEnv []string
	}{
		{name: "none named: added", env: []string{"PATH=C:\\bin"}, root: "C:\\Windows",
			wantEnv: []string{"PATH=C:\\bin", "SYSTEMROOT=C:\\Windows"}},
		{name: "named: kept", env: []string{"SystemRoot=D:\\Win"}, root: "C:\\Windows",
			wantEnv: []string{"SystemRoot=D:\\Win"}},
		{name: "no root known: nothing added", env: []string{"PATH=C:\\bin"},
			wantEnv: []string{"PATH=C:\\bin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withSystemRoot(tt.env, tt.root); !slices.Equal(got, tt.wantEnv) {
				t.Errorf("withSystemRoot = %q, want %q", got, tt.wantEnv)
			}
		})
	}
}
