//go:build unix

package cli

import "syscall"

// execInPlace makes this process the program at path, with args: it
// returns only when that fails.
func execInPlace(path string, args, env []string) error {
	return syscall.Exec(path, append([]string{path}, args...), env)
}
