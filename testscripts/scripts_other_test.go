//go:build !linux

package testscripts

import "github.com/rogpeppe/go-internal/testscript"

// cmdKillWorker: killworker finds the worker in /proc, which only Linux
// has; scripts guard it with [linux].
func cmdKillWorker(ts *testscript.TestScript, _ bool, _ []string) {
	ts.Fatalf("killworker: Linux only")
}
