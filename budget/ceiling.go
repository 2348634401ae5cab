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

// BeneathAs is Beneath, and Beneath again where the paths lead: each fs
// item of b with a path, its path passed through resolve (which follows
// links, as the runtime does when it holds a grant), must lie within an
// item of ceiling whose path is resolved the same way. A grant is held
// where its path leads (lang.NewInterp), so a path beneath the ceiling's
// as written can be a link out of it (data/out, a link to /etc): as a
// grant of its own it would reach what the ceiling's grant refuses, a
// link inside it that leads outside. With resolve nil it is Beneath.
func (b Budget) BeneathAs(ceiling Budget, resolve func(string) string) error {
	if err := b.Beneath(ceiling); err != nil || resolve == nil {
		return err
	}
	for _, it := range b.Of(FS) {
		if it.Path == "" {
			continue
		}
		held := it.Scope()
		held.Path = resolve(it.Path)
		if !containedAs(ceiling, held, resolve) {
			return fmt.Errorf("%s leads to %s, which is not within the ceiling %q", it, held.Path,
				ceiling.String())
		}
	}
	return nil
}

// containedAs reports whether an fs item of ceiling, its path resolved,
// contains it.
func containedAs(ceiling Budget, it Item, resolve func(string) string) bool {
	for _, c := range ceiling.Of(FS) {
		if c.Path != "" {
			c.Path = resolve(c.Path)
		}
		if c.Contains(it) {
			return true
		}
	}
	return false
}
