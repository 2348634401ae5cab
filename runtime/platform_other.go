//go:build !linux

package runtime

func kernelRelease() string { return "" }
