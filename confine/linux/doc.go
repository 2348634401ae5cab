// Package linux holds a Linux worker to its policy with Landlock, a
// seccomp allow-list filter, the capability drop, nodev on the mounts
// beneath the grants, and the address-space limit; and a worker's memory
// with a cgroup of its own where the supervisor can make one.
//
// # Plan and build
//
// LandlockPlan derives the ruleset for one Landlock ABI from the policy
// and the needs' paths (LinuxNeeds), CarveLandlock carves it around the
// guarded locations, and the seccomp filter's rules are derived from the
// policy (its assembler is confine/seccomp). These are pure functions:
// they build on every system, so that tests read them anywhere and golden
// files keep them (testdata/landlock). The table of Landlock ABIs
// (LandlockABIOf) is the one the plan, the assessment and confine's
// ENFORCES table read.
//
// # Install
//
// Apply, on Linux only (files named _linux.go make the system calls),
// installs the layers in order: the memory limit, nodev, Landlock at the
// kernel's ABI, the capability drop, then the filter on every thread.
// Landlock is built (every rule resolved to the entry its path names,
// holding no descriptor) and then installed (each path opened again, one
// at a time, and refused where it names another entry). Assess turns
// what was installed, a Held, into a core.Result; Predict is that level
// where every layer is present, for an audit made on any system.
//
// Package confine, the layer above, picks this package on Linux and keeps
// the names its callers use.
package linux
