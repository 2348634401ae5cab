//go:build linux

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"

	"github.com/sabline/sabline/confine"
)

// fileRights are the rights a rule on a file, not a directory, may carry.
const fileRights = confine.LandlockFSExecute | confine.LandlockFSWriteFile | confine.LandlockFSReadFile |
	confine.LandlockFSTruncate | confine.LandlockFSIoctlDev

// confineServer restricts every thread of the process to d, for good,
// at the kernel's Landlock ABI (go-landlock's best effort lowers what a
// kernel below ABI 7 cannot hold), and says at which ABI. It sets
// no_new_privs. A kernel without Landlock gives errServerNotConfined
// and the reason.
func confineServer(d serverDomain) (string, error) {
	abi, err := confine.LandlockABI()
	if err != nil {
		return "", fmt.Errorf("%w: %v", errServerNotConfined, err)
	}
	var rules []landlock.Rule
	for _, r := range d.Rules {
		path, access, err := target(r)
		if err != nil {
			return "", fmt.Errorf("%w: %s %s: %v", errServerNotConfined, r.Why, r.Path, err)
		}
		if path != "" {
			rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(access), path))
		}
	}
	for _, port := range d.ConnectTCP {
		rules = append(rules, landlock.ConnectTCP(uint16(port)))
	}
	cfg := landlock.Config{
		HandledAccessFS:  landlock.AccessFSSet(d.HandledFS),
		HandledAccessNet: landlock.AccessNetSet(d.HandledNet),
		Scoped:           landlock.ScopedSet(d.Scoped),
	}
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		return "", fmt.Errorf("%w: landlock: %v", errServerNotConfined, err)
	}
	held := fmt.Sprintf("Landlock ABI %d", min(abi, confine.LandlockMaxABI))
	if abi < 4 {
		held += ", without its network rights"
	}
	return held, nil
}

// target is where r is held, and with which rights: its own path, or for
// a granted path that does not exist yet its nearest existing parent; a
// file keeps only the file rights. The path is "" for a path of the
// door's own that does not exist.
func target(r rule) (string, uint64, error) {
	path := r.Path
	for {
		fi, err := os.Stat(path)
		switch {
		case err == nil:
			access := r.Access
			if !fi.IsDir() {
				access &= fileRights
			}
			return path, access, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", 0, err
		case !r.Grant:
			return "", 0, nil
		case path == "/":
			return "", 0, err
		}
		path = filepath.Dir(path)
	}
}
