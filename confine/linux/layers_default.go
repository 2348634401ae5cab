//go:build !sabline_knockout

package linux

// layersOnly is "": every layer is applied. Only a knock-out build reads
// LayersOnlyEnv (layers_knockout.go).
func layersOnly() (string, error) { return "", nil }
