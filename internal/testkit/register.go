package testkit

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/guard"
)

// PrivateRegister sets guard.RegisterEnv, for this process and every
// process it starts, to a register of the tests' own in a new temporary
// directory, and returns what removes it: a store, token or runs
// directory the code under test makes joins that register, never the
// machine's. Call it from TestMain, before m.Run.
func PrivateRegister() (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "sabline-register-")
	if err != nil {
		return nil, fmt.Errorf("testkit: a private register: %w", err)
	}
	reg := filepath.Join(dir, "guarded")
	if err := os.Mkdir(reg, 0o700); err == nil {
		err = os.Chmod(reg, 0o777|fs.ModeSticky)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("testkit: a private register: %w", err)
	}
	os.Setenv(guard.RegisterEnv, reg)
	return func() { os.RemoveAll(dir) }, nil
}

// RunWithPrivateRegister runs m's tests with a register of their own
// (PrivateRegister) and returns their exit status.
func RunWithPrivateRegister(m *testing.M) int {
	cleanup, err := PrivateRegister()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	return m.Run()
}
