//go:build sabline_knockout

package linux

import "os"

// knockoutSwitches are the values of LayersOnlyEnv and LandlockABIEnv,
// read when the policy is applied (installerFor reads them).
func knockoutSwitches() (layers, abi string) {
	return os.Getenv(LayersOnlyEnv), os.Getenv(LandlockABIEnv)
}
