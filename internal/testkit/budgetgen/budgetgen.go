// Package budgetgen draws random budget items for confine's property
// tests: every kind, paths that nest, hosts with and without ports, and
// modules of every widening. Only tests import it.
package budgetgen

import (
	"math/rand"

	"github.com/sabline/sabline/budget"
)

// itemPool is what generated budgets are made of: every kind, paths that
// nest, hosts with and without ports, and modules of every widening.
var itemPool = func() []budget.Item {
	items := []budget.Item{
		{Kind: budget.IO}, {Kind: budget.Env}, {Kind: budget.Clock}, {Kind: budget.Rand},
		{Kind: budget.Declassify}, {Kind: budget.Tool}, {Kind: budget.Rand, Limit: 3},
		{Kind: budget.FS}, {Kind: budget.FS, Access: budget.Read}, {Kind: budget.FS, Access: budget.Write},
		{Kind: budget.Net}, {Kind: budget.FFI},
	}
	for _, path := range []string{"/srv", "/srv/data", "/srv/data/in", "/home/ana", "/tmp/x"} {
		for _, a := range []budget.Access{budget.Any, budget.Read, budget.Write} {
			items = append(items, budget.Item{Kind: budget.FS, Access: a, Path: path})
		}
	}
	items = append(items, budget.Item{Kind: budget.Net, UDP: true})
	for _, host := range []string{"example.org", "localhost", "::1"} {
		for _, port := range []int{0, 53, 443, 8080} {
			items = append(items, budget.Item{Kind: budget.Net, Host: host, Port: port},
				budget.Item{Kind: budget.Net, UDP: true, Host: host, Port: port})
		}
	}
	for _, m := range []string{"json", "math", "pathlib", "sqlite3", "socket", "http", "requests", "os", "subprocess", "nosuchmodule"} {
		items = append(items, budget.Item{Kind: budget.FFI, Module: m})
	}
	return items
}()

// Items draws up to n items from the pool.
func Items(r *rand.Rand, n int) []budget.Item {
	out := make([]budget.Item, r.Intn(n+1))
	for i := range out {
		out[i] = itemPool[r.Intn(len(itemPool))]
	}
	return out
}

// One draws one item from the pool.
func One(r *rand.Rand) budget.Item { return itemPool[r.Intn(len(itemPool))] }
