package budget_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

// TestParseItemReasons pins the reason of items whose @ is the first
// character: a count with no word before it is an empty item, and an @
// followed by no count is a count that is not a whole number, not an
// unknown word.
func TestParseItemReasons(t *testing.T) {
	tests := []struct {
		name       string
		s          string
		wantReason string
	}{
		{name: "a count with no word", s: "@3", wantReason: "the item is empty"},
		{name: "an at sign alone", s: "@", wantReason: "the count after @ must be a whole number"},
		{name: "an at sign and letters", s: "@x",
			wantReason: "the count after @ must be a whole number"},
		{name: "a word and letters after @", s: "rand@x",
			wantReason: "the count after @ must be a whole number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := budget.ParseItem(tc.s, "")
			var ie *budget.ItemError
			if !errors.As(err, &ie) {
				t.Fatalf("ParseItem(%q): error %v, want an *ItemError", tc.s, err)
			}
			if ie.Reason != tc.wantReason {
				t.Errorf("ParseItem(%q): reason %q, want %q", tc.s, ie.Reason, tc.wantReason)
			}
		})
	}
}

// TestHostNameBounds pins the host name's bounds of RFC 1035 from the side
// that is accepted: a name of 253 characters and a label of 63 are hosts, one
// more of either is not.
func TestHostNameBounds(t *testing.T) {
	name253 := strings.Repeat("a.", 126) + "a"
	label63 := strings.Repeat("b", 63)
	tests := []struct {
		name     string
		host     string
		wantHost bool
	}{
		{name: "a name of 253", host: name253, wantHost: true},
		{name: "a name of 254", host: name253 + "a", wantHost: false},
		{name: "a label of 63", host: label63 + ".example", wantHost: true},
		{name: "a label of 64", host: label63 + "b.example", wantHost: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := budget.ParseItem("net:"+tc.host+":443", "")
			if !tc.wantHost {
				if err == nil {
					t.Fatalf("net:%s:443 parsed as %v, want an error", tc.host, got)
				}
				return
			}
			want := budget.Item{Kind: budget.Net, Host: tc.host, Port: 443}
			if err != nil || got != want {
				t.Errorf("net:%s:443 = %#v, %v; want %#v", tc.host, got, err, want)
			}
		})
	}
}

// TestNameCharacterBounds: the first and last character of each range a
// host name, an IPv6 address and a module name are spelled with are in it.
func TestNameCharacterBounds(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want budget.Item
	}{
		{name: "a host of a, z, A, Z, 0 and 9", s: "net:azAZ09.example",
			want: budget.Item{Kind: budget.Net, Host: "azaz09.example"}},
		{name: "an IPv6 address of 0, 9, a, f, A and F", s: "net:[09af:AF::0.9]",
			want: budget.Item{Kind: budget.Net, Host: "09af:af::0.9"}},
		{name: "a module of a, z, A, Z, 0 and 9", s: "ffi:azAZ09",
			want: budget.Item{Kind: budget.FFI, Module: "azAZ09"}},
		{name: "a module of Z first", s: "ffi:Z9.z0",
			want: budget.Item{Kind: budget.FFI, Module: "Z9.z0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := budget.ParseItem(tc.s, "")
			if err != nil || got != tc.want {
				t.Errorf("ParseItem(%q) = %#v, %v; want %#v", tc.s, got, err, tc.want)
			}
		})
	}
}

// TestFindRefusedIndex: an effect refused, not granted or used up, is
// charged to no item: Find's index is -1, which names none of the budget's.
func TestFindRefusedIndex(t *testing.T) {
	tests := []struct {
		name    string
		budget  string
		effect  budget.Effect
		wantErr error
	}{
		{name: "not granted", budget: "io,env,rand@1", effect: budget.Effect{Kind: budget.Clock},
			wantErr: budget.ErrNotGranted},
		{name: "used up", budget: "io,env,rand@1", effect: budget.Effect{Kind: budget.Rand},
			wantErr: budget.ErrUsedUp},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := budget.NewMeter(budget.MustParse("", tc.budget), nil)
			_, _ = m.Use(budget.Effect{Kind: budget.Rand})
			i, err := m.Find(tc.effect)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Find(%s): %v, want %v", tc.effect, err, tc.wantErr)
			}
			if i != -1 {
				t.Errorf("Find(%s) = %d with the error, want -1", tc.effect, i)
			}
		})
	}
}

// TestMeterMostSpecificResolved: the grant charged is the most specific
// as the grants resolve, wherever the operator's spelling sorts it: a
// grant of /data that resolves beneath /srv is charged before /srv.
func TestMeterMostSpecificResolved(t *testing.T) {
	resolve := func(p string) string {
		if p == "/data" {
			return "/srv/data"
		}
		return p
	}
	tests := []struct {
		name      string
		effect    budget.Effect
		wantGrant string
	}{
		{name: "beneath both", effect: read("/srv/data/x"), wantGrant: "fs:read:/data"},
		{name: "beneath /srv alone", effect: read("/srv/y"), wantGrant: "fs:read:/srv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := budget.NewMeter(budget.MustParse("", "fs:read:/data,fs:read:/srv"), resolve)
			g, err := m.Use(tc.effect)
			if err != nil {
				t.Fatalf("Use(%s): %v", tc.effect, err)
			}
			if got := g.String(); got != tc.wantGrant {
				t.Errorf("Use(%s) charged %s, want %s", tc.effect, got, tc.wantGrant)
			}
		})
	}
}
