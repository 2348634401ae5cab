package receipt

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRunIDOrigin: an id makeRunID makes names this process and the time
// it was made; two ids of one process name the same process; ids of the
// earlier form and ids of any other length name none.
func TestRunIDOrigin(t *testing.T) {
	before := time.Now().UnixMilli()
	a, b := makeRunID(), makeRunID()
	after := time.Now().UnixMilli()
	for _, id := range []string{a, b} {
		if !ValidRunID(id) || len(id) != RunIDLen {
			t.Fatalf("makeRunID() = %q: want %d hexadecimal digits, a valid id", id, RunIDLen)
		}
		origin, ms, ok := RunIDOrigin(id)
		if !ok || origin != runIDOrigin() || ms < before || ms > after {
			t.Errorf("RunIDOrigin(%q) = %q, %d, %v: want %q, within [%d, %d], true", id, origin, ms, ok,
				runIDOrigin(), before, after)
		}
	}
	if a[:16] == b[:16] {
		t.Errorf("two ids share their random digits: %s, %s", a, b)
	}
	for _, tt := range []struct {
		name, id   string
		wantOK     bool
		wantOrigin string
		wantMS     int64
	}{
		{name: "the earlier form", id: "0123456789abcdef"},
		{name: "one digit short", id: strings.Repeat("a", RunIDLen-1)},
		{name: "one digit more", id: strings.Repeat("a", RunIDLen+1)},
		{name: "upper case", id: "0123456789abcdef" + "0A0B0C0D" + "000000000001"},
		{name: "a separator", id: "0123456789abcdef" + "0a0b0c0d" + "00000000000/"},
		{name: "the form", id: "0123456789abcdef" + "0a0b0c0d" + "0000000003e8", wantOK: true,
			wantOrigin: "0a0b0c0d", wantMS: 1000},
		{name: "the last time", id: "0123456789abcdef" + "ffffffff" + "ffffffffffff", wantOK: true,
			wantOrigin: "ffffffff", wantMS: 1<<48 - 1},
	} {
		origin, ms, ok := RunIDOrigin(tt.id)
		if ok != tt.wantOK || origin != tt.wantOrigin || ms != tt.wantMS {
			t.Errorf("%s: RunIDOrigin(%q) = %q, %d, %v; want %q, %d, %v", tt.name, tt.id, origin, ms, ok,
				tt.wantOrigin, tt.wantMS, tt.wantOK)
		}
	}
}

// FuzzRunIDOrigin: a run id is a client's bytes: on any string
// RunIDOrigin accepts only a valid id of RunIDLen digits, and what it
// returns is that id's own digits and time.
func FuzzRunIDOrigin(f *testing.F) {
	for _, s := range []string{makeRunID(), "0123456789abcdef", "", "../x",
		"0123456789abcdef0a0b0c0dffffffffffff", strings.Repeat("g", RunIDLen)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		origin, ms, ok := RunIDOrigin(id)
		if !ok {
			if origin != "" || ms != 0 {
				t.Fatalf("RunIDOrigin(%q) refused, returning %q, %d", id, origin, ms)
			}
			return
		}
		if !ValidRunID(id) || len(id) != RunIDLen || origin != id[16:24] || ms < 0 || ms >= 1<<48 {
			t.Fatalf("RunIDOrigin(%q) = %q, %d", id, origin, ms)
		}
		if got := fmt.Sprintf("%012x", ms); got != id[24:] {
			t.Fatalf("RunIDOrigin(%q) time %d is %s, not the id's digits", id, ms, got)
		}
	})
}
