//go:build darwin

package darwin

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// Apply holds the process to p with the sandbox profile Profile builds,
// compiled and applied by sandbox_init, after a best-effort RLIMIT_AS of
// maxMemoryMB (0 for none). tempDir is the run's private temporary
// directory. The level is partial at best (Assess says why).
func Apply(p core.Policy, tempDir string, maxMemoryMB int,
	carveOuts []guard.CarveOut) (core.Result, error) {
	var limitErr error
	if maxMemoryMB > 0 {
		limitErr = limitAddressSpace(maxMemoryMB)
	}
	exe, _ := os.Executable() // "" is left out of the profile like any missing need
	cwd, _ := os.Getwd()
	profile, err := profileOn(p, tempDir, machine{Exe: exe, Cwd: cwd, Home: os.UserHomeDir,
		User: userHome, Eval: filepath.EvalSymlinks})
	if err == nil {
		err = sandboxInit(profile)
	}
	firstErr := err
	if firstErr == nil {
		firstErr = limitErr
	}
	return result(p, err, limitErr, guardedBeneath(p, carveOuts, filepath.EvalSymlinks)), firstErr
}

// darwinAddressSlack is room above twice the limit for the Go runtime's
// own reservations. XNU accepts RLIMIT_AS and does not hold it today;
// the worker's watch of its heap is what ends a run at its limit, and
// this is set in case a later macOS holds it.
const darwinAddressSlack = 4 << 30

// limitAddressSpace lowers RLIMIT_AS to twice the limit plus
// darwinAddressSlack, never above the hard limit.
func limitAddressSpace(mb int) error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &rl); err != nil {
		return fmt.Errorf("getrlimit(RLIMIT_AS): %w", err)
	}
	want := 2*uint64(mb)<<20 + darwinAddressSlack
	if want < rl.Cur {
		rl.Cur = want
	}
	if err := unix.Setrlimit(unix.RLIMIT_AS, &rl); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_AS): %w", err)
	}
	return nil
}

// libSystem holds sandbox_init and sandbox_free_error (re-exported from
// libsystem_sandbox), as <sandbox.h> declares them:
//
//	int sandbox_init(const char *profile, uint64_t flags, char **errorbuf);
//	void sandbox_free_error(char *errorbuf);
const libSystem = "/usr/lib/libSystem.B.dylib"

var (
	sandboxOnce    sync.Once
	sandboxLoadErr error
	sandboxInitC   func(profile *byte, flags uint64, errorbuf **byte) int32
	sandboxFreeC   func(errorbuf *byte)
)

// loadSandbox binds the two functions through purego, without cgo. A
// missing symbol is an error, not purego.RegisterLibFunc's panic.
func loadSandbox() error {
	sandboxOnce.Do(func() {
		lib, err := purego.Dlopen(libSystem, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			sandboxLoadErr = fmt.Errorf("dlopen %s: %w", libSystem, err)
			return
		}
		for _, f := range []struct {
			fptr any
			name string
		}{{&sandboxInitC, "sandbox_init"}, {&sandboxFreeC, "sandbox_free_error"}} {
			sym, err := purego.Dlsym(lib, f.name)
			if err != nil {
				sandboxLoadErr = fmt.Errorf("dlsym %s: %w", f.name, err)
				return
			}
			purego.RegisterFunc(f.fptr, sym)
		}
	})
	return sandboxLoadErr
}

// sandboxInit applies profile, SBPL text, to this process and every
// thread of it. flags 0 has sandbox_init compile profile as a profile's
// text, the way Firefox and Chromium's seatbelt call it; the manual
// documents only SANDBOX_NAMED, one of Apple's built-in profiles. On
// failure, sandbox_init's own message is the error.
func sandboxInit(profile string) error {
	if err := loadSandbox(); err != nil {
		return err
	}
	text := append([]byte(profile), 0)
	var errbuf *byte
	rc := sandboxInitC(&text[0], 0, &errbuf)
	runtime.KeepAlive(text)
	if rc == 0 {
		return nil
	}
	msg := "no message"
	if errbuf != nil {
		msg = cString(errbuf, 4096)
		sandboxFreeC(errbuf)
	}
	return fmt.Errorf("sandbox_init returned %d: %s", rc, msg)
}

// cString copies a NUL-terminated C string of at most max bytes.
func cString(p *byte, max int) string {
	b := unsafe.Slice(p, max)
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// userHome is the home directory the user database names for the user
// running this process (user.Current: on macOS, libSystem's getpwuid_r,
// which needs no cgo).
func userHome() (string, error) {
	u, err := user.Current()
	if err != nil {
		return "", err
	}
	return u.HomeDir, nil
}
