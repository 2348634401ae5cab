package broker

import (
	"errors"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
)

// Grants are what one run may connect to: its budget's net items, each
// counted with its @N as the language counts it, and whether a granted
// module widened its policy to every host, whose own connections then go
// wherever it asks.
type Grants struct {
	Budget  budget.Budget
	AnyHost bool
}

// GrantsOf returns the grants of a run under b, whose policy is p.
func GrantsOf(b budget.Budget, p core.Policy) Grants {
	return Grants{Budget: b, AnyHost: p.HostsWidened()}
}

// admission is the broker's hold on one run's grants: the meter that
// counts each connection against the item that admits it.
type admission struct {
	g     Grants
	meter *budget.Meter
}

func newAdmission(g Grants) *admission {
	return &admission{g: g, meter: budget.NewMeter(g.Budget, nil)}
}

// admit checks r against the run's grants and counts it. It returns the
// item that admitted it ("" for one a widening module made) and whether
// that item names its host (a grant of any host reaches any address).
func (a *admission) admit(r Request) (grant string, named bool, err error) {
	e := budget.Effect{Kind: budget.Net, UDP: r.Network == UDP, Host: r.Host, Port: r.Port}
	it, err := a.meter.Use(e)
	switch {
	case err == nil:
		return it.String(), it.Host != "", nil
	case a.g.AnyHost && r.Network == TCP:
		return "", false, nil
	case errors.Is(err, budget.ErrUsedUp):
		return "", false, codes.Errorf(codes.E303, "%v", err)
	default:
		return "", false, codes.Errorf(codes.E302, "%v", err)
	}
}
