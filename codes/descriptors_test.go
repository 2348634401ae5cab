package codes

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// TestOutOfDescriptors: the system's refusal of a descriptor, the
// process's limit (EMFILE) or the system's (ENFILE), wrapped as an open
// or a pipe wraps it, is told from every other error; the controls: a
// refusal of another kind, and none.
func TestOutOfDescriptors(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{name: "the process's limit", err: &fs.PathError{Op: "open", Path: "/x", Err: syscall.EMFILE},
			want: true},
		{name: "the system's limit", err: fmt.Errorf("start the worker: %w",
			&fs.PathError{Op: "pipe", Path: "", Err: syscall.ENFILE}), want: true},
		{name: "the control: permission", err: &fs.PathError{Op: "open", Path: "/x",
			Err: syscall.EACCES}},
		{name: "the control: none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := OutOfDescriptors(tt.err); got != tt.want {
				t.Errorf("OutOfDescriptors(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
