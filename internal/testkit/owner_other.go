//go:build !unix

package testkit

import "io/fs"

// ownedHere reports false where a file's owner is not read: a test binary
// there makes a directory apart of its own (RunApart), as it always did.
func ownedHere(fs.FileInfo) bool { return false }
