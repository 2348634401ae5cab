package lang

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"syscall"
	"testing"
)

// TestRefusedBy checks which applied layers an error may be a refusal of:
// on Linux, Landlock answers EACCES, and EPERM from ABI 6 (its signal and
// socket scopes); seccomp EPERM or ENOSYS; the capability drop EPERM.
// Another system's layer may answer either EACCES or EPERM.
func TestRefusedBy(t *testing.T) {
	all := []string{"landlock-abi7", "seccomp", "capabilities-dropped"}
	tests := []struct {
		name   string
		err    error
		layers []string
		want   []string
	}{
		{name: "EACCES under every layer", err: syscall.EACCES, layers: all, want: []string{"landlock-abi7"}},
		{name: "EPERM under every layer", err: syscall.EPERM, layers: all, want: all},
		{name: "EPERM under Landlock ABI 5, whose signals are not scoped", err: syscall.EPERM,
			layers: []string{"landlock-abi5", "seccomp", "capabilities-dropped"}, want: []string{"seccomp", "capabilities-dropped"}},
		{name: "ENOSYS under every layer", err: syscall.ENOSYS, layers: all, want: []string{"seccomp"}},
		{name: "EACCES in a path error wrapped", err: fmt.Errorf("run: %w", &fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}),
			layers: all, want: []string{"landlock-abi7"}},
		{name: "EPERM in a syscall error", err: os.NewSyscallError("socket", syscall.EPERM), layers: all, want: all},
		{name: "EPERM under seccomp alone", err: syscall.EPERM, layers: []string{"seccomp"}, want: []string{"seccomp"}},
		{name: "EACCES under seccomp alone", err: syscall.EACCES, layers: []string{"seccomp"}, want: nil},
		{name: "EPERM under Landlock ABI 7 alone", err: syscall.EPERM, layers: []string{"landlock-abi7"}, want: []string{"landlock-abi7"}},
		{name: "EPERM under Landlock ABI 5 alone", err: syscall.EPERM, layers: []string{"landlock-abi5"}, want: nil},
		{name: "ENOSYS under Landlock alone", err: syscall.ENOSYS, layers: []string{"landlock-abi7"}, want: nil},
		{name: "EPERM under the capability drop alone", err: syscall.EPERM, layers: []string{"capabilities-dropped"},
			want: []string{"capabilities-dropped"}},
		{name: "EACCES under the capability drop alone", err: syscall.EACCES, layers: []string{"capabilities-dropped"}, want: nil},
		{name: "EACCES under a sandbox profile", err: syscall.EACCES, layers: []string{"sandbox-profile"}, want: []string{"sandbox-profile"}},
		{name: "EPERM under Windows layers", err: syscall.EPERM, layers: []string{"job-object", "low-integrity"},
			want: []string{"job-object", "low-integrity"}},
		{name: "EACCES with no layer", err: syscall.EACCES, layers: nil, want: nil},
		{name: "ENOENT", err: &fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, layers: all, want: nil},
		{name: "ECONNREFUSED", err: os.NewSyscallError("connect", syscall.ECONNREFUSED), layers: all, want: nil},
		{name: "fs.ErrPermission carries no errno", err: fs.ErrPermission, layers: all, want: nil},
		{name: "a plain error", err: errors.New("permission denied"), layers: all, want: nil},
		{name: "nil", err: nil, layers: all, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RefusedBy(tt.err, tt.layers); !slices.Equal(got, tt.want) {
				t.Errorf("RefusedBy(%v, %q) = %q, want %q", tt.err, tt.layers, got, tt.want)
			}
		})
	}
}

// TestLayerList checks that a message names one refusing layer as it is,
// and says of several that the errno does not tell which refused.
func TestLayerList(t *testing.T) {
	tests := []struct {
		name   string
		layers []string
		want   string
	}{
		{name: "one", layers: []string{"landlock-abi7"}, want: "landlock-abi7"},
		{name: "two", layers: []string{"seccomp", "capabilities-dropped"},
			want: "one of seccomp, capabilities-dropped; the errno does not tell which"},
		{name: "three", layers: []string{"landlock-abi7", "seccomp", "capabilities-dropped"},
			want: "one of landlock-abi7, seccomp, capabilities-dropped; the errno does not tell which"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LayerList(tt.layers); got != tt.want {
				t.Errorf("LayerList(%q) = %q, want %q", tt.layers, got, tt.want)
			}
		})
	}
}
