//go:build !linux

package program

// readBeneath reads rel beneath root (readRoot).
func readBeneath(root, rel string) ([]byte, error) { return readRoot(root, rel) }
