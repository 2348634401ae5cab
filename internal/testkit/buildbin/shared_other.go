//go:build !unix

package buildbin

// sharedDir says nothing is shared: off Unix, a directory's owner and
// permissions are not read here, and each process builds its own.
func sharedDir() (string, bool) { return "", false }

// lock does nothing: nothing is shared.
func lock(string) (unlock func()) { return func() {} }
