//go:build !unix

package lang

import "errors"

func mkfifo(string) error { return errors.New("no named pipe is made by path on this system") }

func mknodNull(string) error { return errors.New("no device node is made on this system") }
