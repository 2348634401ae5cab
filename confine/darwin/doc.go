// Package darwin holds a macOS worker to its policy with a sandbox
// profile.
//
// # Build
//
// Profile builds the profile's text from the policy and the needs' paths:
// a pure function, run on any system, that tests read and golden files
// keep (testdata/darwin).
//
// # Install
//
// Apply, on macOS only, resolves the needs on the machine, builds the
// profile and hands it to sandbox_init, after a best-effort RLIMIT_AS.
// Assess turns what was applied into a core.Result, partial at best:
// Apple has deprecated sandbox profiles, and the profile refuses reads
// only under the home directory and /Volumes. Predict is that level where
// the profile is applied, for an audit made on any system.
package darwin
