package receipt

import (
	"fmt"
	"io"
	"os"
)

// storeIdleEnv names the receipts directory of the idle store the test
// binary becomes (TestMain, idleStore), for TestStoreWakesForNothing.
const storeIdleEnv = "SABLINE_TEST_STORE_IDLE"

// StoreIdleEnv is storeIdleEnv, for the package's external tests.
const StoreIdleEnv = storeIdleEnv

// idleStore opens the store of dir, prints its journal's directory, and
// waits for its input to end: a process that holds a store and does
// nothing.
func idleStore(dir string) int {
	s, err := OpenStore(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(s.j.Dir())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}
