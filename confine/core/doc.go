// Package core is the pure core of confinement: it turns a Sabline budget
// into an operating-system policy and says what a run's confinement held.
// It reads nothing of the machine and makes no system call, so one budget
// gives one policy, one canonical JSON document and one sha256 on every
// computer.
//
// # Policy
//
// OSPolicy is the one derivation: budget in, Policy out. Needs names the
// machine's paths for the interpreter's own needs, which each system
// gathers and hands its planner.
//
// # Result
//
// A Result is what a run's confinement held: the layers applied and the
// gaps, each a Gap value (the layer, its kind, its words). The Level (full,
// partial, none) is computed from the gaps' kinds alone, full when no gap
// is GapUnheld, and the reason is rendered from them once (ResultOf); a
// caller adds a fact with Result.With, never by editing the reason. The
// sentences every system's assessment says alike (OffResult, ModeGaps,
// WidenedGaps, HostGaps) live here too.
//
// # Widening
//
// FFIWidens says what each granted ffi module widens the policy to.
package core
