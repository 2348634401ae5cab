//go:build !sabline_knockout

package linux

// knockoutSwitches are "", "": every layer is applied, Landlock at the
// kernel's ABI. Only a knock-out build reads LayersOnlyEnv and
// LandlockABIEnv (layers_knockout.go).
func knockoutSwitches() (layers, abi string) { return "", "" }
