//go:build !windows

package windows

import (
	"runtime"
	"testing"
)

// systemPromiseWorld: the AppContainer's calls exist on Windows only.
func systemPromiseWorld(*testing.T) (*promiseWorld, string) {
	return nil, "the AppContainer's system calls run on the Windows leg of CI only; this is " + runtime.GOOS
}
