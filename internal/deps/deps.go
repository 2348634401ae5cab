// Package deps pins the modules the project's packages and suites import,
// so that go.mod keeps them while packages are added one by one.
package deps

import (
	_ "github.com/landlock-lsm/go-landlock/landlock"
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "go.starlark.net/starlark"
	_ "golang.org/x/net/bpf"
	_ "golang.org/x/sys/unix"
)
