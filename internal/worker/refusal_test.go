package worker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/fault"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestRefusal checks which applied layers an error may be a refusal of,
// as a worker hands the language confine.Refusals for the system it runs
// on (lang.Refusal). On
// Linux, Landlock answers EACCES and EXDEV, and EPERM from ABI 6 (its
// signal and socket scopes); seccomp EPERM or ENOSYS; the
// capability drop EPERM; a layer of another system nothing. On macOS the
// profile answers EPERM and EACCES is the file's own; on Windows the
// layers answer Windows errors, not the Unix names. The cases of another
// system than this one are skipped, saying so.
func TestRefusal(t *testing.T) {
	all := []string{"landlock-abi7", "seccomp", "capabilities-dropped"}
	win := []string{"appcontainer", "low-integrity", "job-object", "token-privileges-removed"}
	linux, darwin, windows := confine.Linux, confine.Darwin, confine.Windows
	tests := []struct {
		name   string
		sys    confine.System
		err    error
		layers []string
		want   []string
	}{
		{name: "EACCES under every layer", sys: linux, err: syscall.EACCES, layers: all, want: []string{"landlock-abi7"}},
		{name: "EPERM under every layer", sys: linux, err: syscall.EPERM, layers: all, want: all},
		{name: "EPERM under Landlock ABI 5, whose signals are not scoped", sys: linux, err: syscall.EPERM,
			layers: []string{"landlock-abi5", "seccomp", "capabilities-dropped"}, want: []string{"seccomp", "capabilities-dropped"}},
		{name: "ENOSYS under every layer", sys: linux, err: syscall.ENOSYS, layers: all, want: []string{"seccomp"}},
		{name: "EXDEV under every layer: a rename Landlock refuses", sys: linux, err: syscall.EXDEV, layers: all,
			want: []string{"landlock-abi7"}},
		{name: "EPROTONOSUPPORT under every layer: no layer answers it", sys: linux,
			err: syscall.EPROTONOSUPPORT, layers: all},
		{name: "EACCES in a path error wrapped", sys: linux, err: fmt.Errorf("run: %w", &fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}),
			layers: all, want: []string{"landlock-abi7"}},
		{name: "EPERM in a syscall error", sys: linux, err: os.NewSyscallError("socket", syscall.EPERM), layers: all, want: all},
		{name: "EPERM under seccomp alone", sys: linux, err: syscall.EPERM, layers: []string{"seccomp"}, want: []string{"seccomp"}},
		{name: "EACCES under seccomp alone", sys: linux, err: syscall.EACCES, layers: []string{"seccomp"}, want: nil},
		{name: "EXDEV under seccomp alone", sys: linux, err: syscall.EXDEV, layers: []string{"seccomp"}, want: nil},
		{name: "EPERM under Landlock ABI 7 alone", sys: linux, err: syscall.EPERM, layers: []string{"landlock-abi7"}, want: []string{"landlock-abi7"}},
		{name: "EPERM under Landlock ABI 5 alone", sys: linux, err: syscall.EPERM, layers: []string{"landlock-abi5"}, want: nil},
		{name: "ENOSYS under Landlock alone", sys: linux, err: syscall.ENOSYS, layers: []string{"landlock-abi7"}, want: nil},
		{name: "EPERM under the capability drop alone", sys: linux, err: syscall.EPERM, layers: []string{"capabilities-dropped"},
			want: []string{"capabilities-dropped"}},
		{name: "EACCES under the capability drop alone", sys: linux, err: syscall.EACCES, layers: []string{"capabilities-dropped"}, want: nil},
		{name: "EPERM under another system's layers", sys: linux, err: syscall.EPERM, layers: []string{"sandbox-profile", "job-object"}, want: nil},
		{name: "EACCES with no layer", sys: linux, err: syscall.EACCES, layers: nil, want: nil},
		{name: "ENOENT", sys: linux, err: &fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, layers: all, want: nil},
		{name: "ECONNREFUSED", sys: linux, err: os.NewSyscallError("connect", syscall.ECONNREFUSED), layers: all, want: nil},
		{name: "fs.ErrPermission carries no errno", sys: linux, err: fs.ErrPermission, layers: all, want: nil},
		{name: "a plain error", sys: linux, err: errors.New("permission denied"), layers: all, want: nil},
		{name: "nil", sys: linux, err: nil, layers: all, want: nil},

		{name: "EPERM under a sandbox profile", sys: darwin, err: syscall.EPERM, layers: []string{"sandbox-profile"},
			want: []string{"sandbox-profile"}},
		{name: "EACCES under a sandbox profile is the file's own", sys: darwin, err: syscall.EACCES,
			layers: []string{"sandbox-profile"}, want: nil},
		{name: "EPERM with no layer", sys: darwin, err: syscall.EPERM, layers: nil, want: nil},

		{name: "access denied under every layer", sys: windows, err: syscall.Errno(5), layers: win,
			want: []string{"appcontainer", "low-integrity", "job-object"}},
		{name: "WSAEACCES under every layer", sys: windows, err: syscall.Errno(10013), layers: win, want: []string{"appcontainer"}},
		{name: "not enough quota under every layer", sys: windows, err: syscall.Errno(1816), layers: win, want: []string{"job-object"}},
		{name: "privilege not held under every layer", sys: windows, err: syscall.Errno(1314), layers: win,
			want: []string{"token-privileges-removed"}},
		{name: "EPERM is no Windows error", sys: windows, err: syscall.EPERM, layers: win, want: nil},
	}
	this, _ := confine.ThisSystem()
	ran := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.sys != this {
				t.Skipf("a case of %s; this is %s", tt.sys.Title(), this.Title())
			}
			ran++
			if _, got := refusal(tt.err, tt.layers); !slices.Equal(got, tt.want) {
				t.Errorf("refusal(%v, %q) = %q, want %q", tt.err, tt.layers, got, tt.want)
			}
		})
	}
	if _, ok := confine.ThisSystem(); ok && ran == 0 {
		t.Errorf("no case of %s ran", this.Title())
	}
}

// TestRunFaultsRefused checks that an operation the kernel answers with
// an errno an applied layer refuses with is counted as refused by that
// layer, and the run ends with E319, while one that fails for its own
// reasons is not. Root may read any file, but not execute one with no
// execute bit: that is the EACCES the test provokes.
func TestRunFaultsRefused(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("execute permission bits are a unix notion")
	}
	dir := testkit.Scratch(t)
	noexec := filepath.Join(dir, "noexec")
	testkit.WriteFile(t, noexec, "#!/bin/sh\n")
	ops := []receipt.FaultOp{{Op: "exec", Target: noexec}, {Op: "exec", Target: filepath.Join(dir, "missing")}}
	tests := []struct {
		name        string
		layers      []string
		want        []string
		wantLayers  []string // the layers the refused exec names
		wantRefusal string   // part of the E319 message; "" for none
	}{
		{name: "no layer", layers: nil, want: []string{receipt.FaultFailed, receipt.FaultFailed}},
		{name: "seccomp does not answer EACCES", layers: []string{"seccomp"}, want: []string{receipt.FaultFailed, receipt.FaultFailed}},
		{name: "landlock and seccomp", layers: []string{"landlock-abi7", "seccomp"}, want: []string{receipt.FaultRefused, receipt.FaultFailed},
			wantLayers: []string{"landlock-abi7"}, wantRefusal: "exec " + noexec + " (EACCES, refused by landlock-abi7)"},
		{name: "another system's layer refuses nothing here", layers: []string{"sandbox-profile"}, want: []string{receipt.FaultFailed, receipt.FaultFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fault.Attempt(ops, judgeBy(tt.layers))
			for i, a := range got {
				if a.Result != tt.want[i] {
					t.Errorf("%s=%s: result %s (%+v), want %s", a.Op, a.Target, a.Result, a, tt.want[i])
				}
			}
			if got[0].Errno != "EACCES" || !slices.Equal(got[0].Layers, tt.wantLayers) {
				t.Errorf("exec of a file with no execute bit: errno %q, layers %q; want EACCES, %q", got[0].Errno, got[0].Layers, tt.wantLayers)
			}
			if got[1].Errno != "ENOENT" || got[1].Layers != nil {
				t.Errorf("exec of a missing file: errno %q, layers %q; want ENOENT, none", got[1].Errno, got[1].Layers)
			}
			err := fault.Refused(got)
			if tt.wantRefusal == "" {
				if err != nil {
					t.Errorf("fault.Refused = %v, want nil", err)
				}
				return
			}
			testkit.WantError(t, err, codes.E319, "", tt.wantRefusal)
			if strings.Contains(err.Error(), "missing") {
				t.Errorf("%v names an operation that was not refused", err)
			}
		})
	}
}
