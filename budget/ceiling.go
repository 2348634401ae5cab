package budget

import "fmt"

// Contains reports whether the item c grants everything it grants, counts
// aside: the same kind, and a scope that is c's or lies within it (a path
// beneath c's, c's host and a port c allows, c's module). An item with no
// scope (fs, net, ffi) is contained only in another with none.
func (c Item) Contains(it Item) bool {
	return c.Kind == it.Kind &&
		c.Covers(Effect{
			Kind:   it.Kind,
			Access: it.Access,
			Path:   it.Path,
			UDP:    it.UDP,
			Host:   it.Host,
			Port:   it.Port,
			Module: it.Module,
		})
}

// Beneath reports whether b grants nothing ceiling does not: each of b's
// items is contained in one of ceiling's (Item.Contains), and where that
// ceiling item is counted (@N), the items of b it holds are counted too,
// at most N uses between them. An error names the first item that is
// wider and what the ceiling grants instead.
func (b Budget) Beneath(ceiling Budget) error {
	used := make([]int, len(ceiling.Items))
	for _, it := range b.Items {
		i := -1
		for j, c := range ceiling.Items {
			if c.Contains(it) && (i < 0 || c.specificity() > ceiling.Items[i].specificity()) {
				i = j
			}
		}
		if i < 0 {
			return fmt.Errorf("%s is not within the ceiling %q", it, ceiling.String())
		}
		if c := ceiling.Items[i]; c.Limit > 0 {
			if it.Limit == 0 {
				return fmt.Errorf("%s has no count, and the ceiling's %s allows %d uses", it, c, c.Limit)
			}
			if used[i] += it.Limit; used[i] > c.Limit {
				return fmt.Errorf("%s takes the uses of %s past the ceiling's %d", it, c, c.Limit)
			}
		}
	}
	return nil
}
