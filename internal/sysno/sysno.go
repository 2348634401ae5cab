// Package sysno holds the Linux system call tables Sabline knows, by
// architecture: the number golang.org/x/sys/unix gives each name. They are
// plain data, present on every system, and built on first use: the
// seccomp filter is made from them (confine/seccomp), and the ctypes host
// module looks a call's name up in them.
package sysno

import "sync"

//go:generate go run ./internal/gensystab

// tables are the tables by GOARCH, each built once, when first asked for.
var tables = map[string]func() map[string]int{
	"amd64": sync.OnceValue(sysAMD64),
	"arm64": sync.OnceValue(sysARM64),
}

// Table returns the system call table of goarch's Linux ABI, and false
// when there is none. The map is shared: it must not be changed.
func Table(goarch string) (map[string]int, bool) {
	t, ok := tables[goarch]
	if !ok {
		return nil, false
	}
	return t(), true
}
