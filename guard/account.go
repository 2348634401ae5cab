package guard

import (
	"os"
	"os/user"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"sync"
)

// AccountHome is the home the user database gives the user this process
// runs as (its effective uid; on Windows, its token's), clean and
// absolute, when it is a directory now; "" when there is none. HOME may
// name another place (a CI job's scratch directory, a service started
// with HOME set elsewhere, a container's HOME=/): the account's own home,
// with its keys and its dot-entries, is guarded all the same
// (Inputs.AccountHome). Read once a process; without cgo, on Unix, the
// database is /etc/passwd (an account another source names is not
// found there, and only HOME is guarded).
var AccountHome = sync.OnceValue(func() string {
	var u *user.User
	var err error
	if goruntime.GOOS == "windows" {
		u, err = user.Current()
	} else {
		u, err = user.LookupId(strconv.Itoa(os.Geteuid()))
	}
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	if fi, err := os.Stat(u.HomeDir); err != nil || !fi.IsDir() {
		return "" // nothing there to guard: /nonexistent, a service's
	}
	return filepath.Clean(u.HomeDir)
})
