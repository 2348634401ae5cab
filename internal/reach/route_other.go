//go:build !linux

package reach

import (
	"net/netip"
	"syscall"
)

// routedHere finds no address beyond its interfaces' on a system whose
// routes this package does not read: this machine's own are those
// ownAddrs lists.
func routedHere(string, uint16, []netip.Addr) ([]netip.Addr, error) { return nil, nil }

// routeHeld holds no route of a connection beyond Check's here.
func routeHeld(string, string, syscall.RawConn) error { return nil }
