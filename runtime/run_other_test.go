//go:build !linux

package runtime

import "testing"

func mountSmallFS(t *testing.T) string {
	t.Skip("the small file system to fill is a Linux tmpfs")
	return ""
}

func mountReadOnlyFS(t *testing.T) string {
	t.Skip("the read-only file system is a Linux tmpfs")
	return ""
}
