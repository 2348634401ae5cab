// Package confine holds the process that runs a Sabline program to the
// operating-system policy its budget derives, and says how much of the
// budget each system's kernel holds.
//
// The pure core (confine/core) derives the Policy and makes a Result from
// gaps. Each system has its own package that plans, builds and installs
// its layers (confine/linux, confine/darwin, confine/windows); this package is
// the layer above them: it picks the system this build runs on, predicts
// the level a run gets on any system (Predict), and keeps the ENFORCES
// table (Enforces), which docs/os-enforces.md is generated from.
//
// # Plans
//
// Every enforcement step has two halves. A pure function builds the plan
// for one system from the policy, and runs on any OS so that tests can
// read it:
//
//	p := core.OSPolicy(budget.MustParse("/", "io,fs:read:/srv/data"), core.Options{})
//	linux.LandlockPlan(p, needs, 7)                     // the ruleset for Landlock ABI 7
//	confine.DarwinProfile(p, needs, home, cwd)            // the sandbox profile's text
//	confine.WindowsPlanFor(p, needs, fileCount, memoryMB) // job, token and container
//
// and a thin Apply, one file per system, makes the system calls and
// reports what the kernel accepted as a Result. On a system with no Apply
// of its own, Apply fails closed with ErrUnsupported.
package confine
