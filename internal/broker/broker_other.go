//go:build !linux

package broker

import (
	"context"
	"net"
	"net/netip"
	"os"

	"github.com/sabline/sabline/receipt"
)

// LookupFunc looks a name up to its addresses.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// Broker is the supervisor's side of a broker channel, which this system
// does not have: Pair fails, and a nil Broker does nothing.
type Broker struct{}

// Pair fails with ErrUnsupported.
func Pair(LookupFunc) (*os.File, *Broker, error) { return nil, nil, ErrUnsupported }

// Begin does nothing.
func (*Broker) Begin(Grants) {}

// End lists nothing.
func (*Broker) End() ([]receipt.Connection, int) { return nil, 0 }

// Close does nothing.
func (*Broker) Close() error { return nil }

// Client is the worker's side of a broker channel, which this system does
// not have.
type Client struct{}

// NewClient fails with ErrUnsupported.
func NewClient(*os.File) (*Client, error) { return nil, ErrUnsupported }

// Dial fails with ErrUnsupported.
func (*Client) Dial(context.Context, string, string) (net.Conn, error) {
	return nil, ErrUnsupported
}

// CloseAll does nothing.
func (*Client) CloseAll() {}
