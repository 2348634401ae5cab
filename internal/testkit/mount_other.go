//go:build !linux

package testkit

import "testing"

// MountSmallFS skips: the small file system to fill is a Linux tmpfs.
func MountSmallFS(t testing.TB) string {
	t.Skip("the small file system to fill is a Linux tmpfs")
	return ""
}

// MountReadOnlyFS skips: the read-only file system is a Linux tmpfs.
func MountReadOnlyFS(t testing.TB) string {
	t.Skip("the read-only file system is a Linux tmpfs")
	return ""
}
