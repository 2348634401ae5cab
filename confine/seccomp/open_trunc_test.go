package seccomp

import (
	"fmt"
	"testing"
)

// TestSeccompOpenEveryAccessMode: open and openat, on both arches and
// under every filter a worker can be given, with each access mode
// (O_RDONLY, O_WRONLY, O_RDWR and 3, the mode Linux opens for no access,
// ioctl alone) crossed with O_TRUNC, O_CREAT and O_TMPFILE, a high word
// (the kernel takes an int) and a mode with and without S_ISUID: the
// program, run by this package's interpreter and by x/net/bpf's, and the
// verdict give what is written out here. An open for no access (mode
// 3) is refused under every filter: Landlock checks no right for it.
// Where the filter refuses truncation (below Landlock ABI 3) an open for
// reading with O_TRUNC is refused too: Landlock checks the read alone;
// an open to write with O_TRUNC is left to Landlock, which checks the
// write.
func TestSeccompOpenEveryAccessMode(t *testing.T) {
	const oWronly, oRdwr, setUID = 0x1, 0x2, 0o4000
	for _, a := range []Arch{archAMD64, archARM64} {
		tmpfile := uint64(testOTmpfileAMD64)
		if a.Name == archARM64.Name {
			tmpfile = testOTmpfileARM64
		}
		for _, tc := range testConfigs {
			c := tc.config()
			raw := mustProgram(t, c, a)
			vm := mustVM(t, raw)
			for _, call := range []string{"open", "openat"} {
				nr, ok := a.Table[call]
				if !ok {
					continue
				}
				for access := uint64(0); access <= 3; access++ {
					for _, trunc := range []uint64{0, oTrunc} {
						for _, makes := range []uint64{0, oCreat, tmpfile} {
							for _, high := range []uint64{0, testHigh} {
								for _, mode := range []uint64{0o644, setUID | 0o755} {
									flags := high | access | trunc | makes
									want := actAllow
									switch {
									case access == 3: // no access: Landlock checks nothing
										want = actEPERM
									case tc.truncate && trunc != 0 && access != oWronly && access != oRdwr:
										want = actEPERM
									case makes != 0 && mode&setUID != 0:
										want = actEPERM
									}
									args := [6]uint64{^uint64(99), testPointer, flags, mode}
									if call == "open" {
										args = [6]uint64{testPointer, flags, mode}
									}
									name := fmt.Sprintf("%s, flags %#x, mode %#o", tc.name, flags, mode)
									wantAction(t, a, name, call, raw, vm, nr, args, want,
										verdict(c, a, a.AuditArch, nr, args))
								}
							}
						}
					}
				}
			}
		}
	}
}
