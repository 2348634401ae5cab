package confine

import (
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
)

// The pure core's names that callers of confine use, kept here so that
// they read them as before. Each is the name of package core.
type (
	// Policy is core.Policy: the operating-system policy a budget derives.
	Policy = core.Policy
	// Options is core.Options: the operator's choices for OSPolicy.
	Options = core.Options
	// Mode is core.Mode: how much of its budget a run asks to be held.
	Mode = core.Mode
	// Widening is core.Widening: a granted module that widened a policy.
	Widening = core.Widening
	// Widen is core.Widen: what a granted ffi module widens a policy to.
	Widen = core.Widen
	// Level is core.Level: how much of a run's budget the kernel holds.
	Level = core.Level
	// Result is core.Result: what a run's confinement held.
	Result = core.Result
	// Gap is core.Gap: one fact a run's reason says.
	Gap = core.Gap
	// Needs is core.Needs: the machine's paths for the interpreter's needs.
	Needs = core.Needs
	// MemoryHold is core.MemoryHold: what of the supervisor's side holds a
	// worker's memory limit.
	MemoryHold = core.MemoryHold
)

// The confine modes (core.ModeDefault and the others).
const (
	ModeDefault = core.ModeDefault // the budget's policy, widened by granted modules
	ModeStrict  = core.ModeStrict  // the budget alone: granted modules widen nothing
	ModeOff     = core.ModeOff     // ask the operating system for nothing
)

// The levels (core.Full and the others), from most to least held.
const (
	Full    = core.Full    // every limit of the budget is held by the kernel
	Partial = core.Partial // some limits are held; the reason names each that is not
	None    = core.None    // nothing is held
)

// The kinds of gap callers of confine make (core.GapUnheld, core.GapHeld).
const (
	GapUnheld = core.GapUnheld // a limit no layer holds: the level is partial at best
	GapHeld   = core.GapHeld   // what holds a limit that stands; the level is unchanged
)

// Layer names, as receipts and the ENFORCES table spell them (core.LayerSeccomp
// and the others).
const (
	LayerSeccomp        = core.LayerSeccomp        // the seccomp allow-list filter
	LayerCapabilities   = core.LayerCapabilities   // the Linux capability drop
	LayerSandboxProfile = core.LayerSandboxProfile // the macOS sandbox profile
	LayerMemory         = core.LayerMemory         // what holds the memory limit
	LayerApply          = core.LayerApply          // the apply itself, no one layer
	LayerPool           = core.LayerPool           // a pool's workers
	// LayerLandlockFamily is the Landlock layer in the ENFORCES table,
	// where no ABI is named (core.LayerLandlockFamily).
	LayerLandlockFamily = core.LayerLandlockFamily
)

// The widenings callers of confine name (core.WidenAnyPath and the others).
const (
	WidenAnyPath         = core.WidenAnyPath         // a module that reaches any path
	WidenAnyHost         = core.WidenAnyHost         // a module that reaches any host
	WidenAnyPathAndHost  = core.WidenAnyPathAndHost  // a module that reaches both
	WidenNothingEnforced = core.WidenNothingEnforced // a module whose reach is not known
)

// ErrUnsupported is core.ErrUnsupported: Apply's error on a system for
// which this build has no confinement.
var ErrUnsupported = core.ErrUnsupported

// OSPolicy derives the OS policy of a budget (core.OSPolicy).
func OSPolicy(b budget.Budget, o Options) Policy { return core.OSPolicy(b, o) }

// ParseLevel reads a level name as --require-confinement takes it
// (core.ParseLevel).
func ParseLevel(s string) (Level, error) { return core.ParseLevel(s) }

// NotConfined is the Result of a run the operating system was asked to
// hold nothing of, for why (core.NotConfined).
func NotConfined(why string) Result { return core.NotConfined(why) }

// NotApplied is the Result of a run that ended before its policy was
// applied (core.NotApplied).
func NotApplied() Result { return core.NotApplied() }

// WidensTo returns what granting module widens the policy to, and whether
// the widening table names it (core.WidensTo).
func WidensTo(module string) (Widen, bool) { return core.WidensTo(module) }

// FFIWidens returns a copy of the widening table (core.FFIWidens).
func FFIWidens() map[string]Widen { return core.FFIWidens() }
