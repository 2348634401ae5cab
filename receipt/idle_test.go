package receipt

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// storeIdleEnv names the receipts directories of the idle stores the
// test binary becomes (TestMain, idleStore), for TestStoreWakesForNothing.
const storeIdleEnv = "SABLINE_TEST_STORE_IDLE"

// StoreIdleEnv is storeIdleEnv, and IdleWatched idleWatched, for the
// package's external tests.
const (
	StoreIdleEnv = storeIdleEnv
	IdleWatched  = idleWatched
)

// idleWatched is what idleStore says when its stores have an inotify
// instance.
const idleWatched = "watched through inotify"

// idleStore opens the store of each directory of dirs (a list of paths,
// as PATH is), prints each one's journal directory on a line, then a line
// of why the stores have no inotify instance (lookoutErr; idleWatched when
// they have one), and waits for its input to end: a process that holds
// stores and does nothing.
func idleStore(dirs string) int {
	for _, dir := range filepath.SplitList(dirs) {
		s, err := OpenStore(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(s.j.Dir())
	}
	if err := lookoutErr(); err != nil {
		fmt.Println(err)
	} else {
		fmt.Println(idleWatched)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}
