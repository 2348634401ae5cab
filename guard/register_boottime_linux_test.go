package guard

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBootTimeIsThisBoots: bootTime, from which a prune tells an entry
// written in this boot from one of an earlier boot (unheldOfThisBoot),
// is when this boot began as the kernel counts it from outside this
// package: now less the time since boot (/proc/uptime), to within a few
// seconds (btime is whole seconds, and both are read at slightly other
// times). The control: an entry written now is of this boot, one
// written a day before it is not. A boot time misread (in another unit,
// another line's) made every entry one of this boot, or none.
func TestBootTimeIsThisBoots(t *testing.T) {
	boot, ok := bootTime()
	if !ok {
		t.Skip("this system's boot time cannot be read")
	}
	data, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Skipf("no /proc/uptime: %v", err)
	}
	f, _, _ := strings.Cut(string(data), " ")
	up, err := strconv.ParseFloat(f, 64)
	if err != nil {
		t.Fatalf("/proc/uptime %q: %v", data, err)
	}
	want := time.Now().Add(-time.Duration(up * float64(time.Second)))
	if d := boot.Sub(want); d < -5*time.Second || d > 5*time.Second {
		t.Errorf("bootTime %v, want %v (now less /proc/uptime's %.0fs): %v apart", boot, want, up, d)
	}
	p := t.TempDir() + "/entry"
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !unheldOfThisBoot(fi) {
		t.Errorf("an entry written now (%v) is not of this boot (%v)", fi.ModTime(), boot)
	}
	writtenBeforeThisBoot(t, p)
	if fi, err = os.Lstat(p); err != nil || unheldOfThisBoot(fi) {
		t.Errorf("an entry written a day before this boot (%v) is of this boot (%v): %v",
			fi.ModTime(), boot, err)
	}
}
