package doorcmd

import "testing"

// TestTenantsText: the log counts tenants in English, one tenant alone.
func TestTenantsText(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 tenants"}, {1, "1 tenant"}, {3, "3 tenants"}} {
		if got := tenantsText(tt.n); got != tt.want {
			t.Errorf("tenantsText(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
