package budget

import (
	"fmt"
	"slices"
)

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
// link inside it that leads outside. An item of b that is one of the
// ceiling's, as written, leads where that one does: the run of a pool or
// a tenant given the ceiling itself resolves nothing. With resolve nil it
// is Beneath.
func (b Budget) BeneathAs(ceiling Budget, resolve func(string) string) error {
	if err := b.Beneath(ceiling); err != nil || resolve == nil {
		return err
	}
	var held []Item // the ceiling's fs items, their paths resolved, once one is needed
	for _, it := range b.Of(FS) {
		scope := it.Scope()
		if it.Path == "" || slices.ContainsFunc(ceiling.Items, func(c Item) bool {
			return c.Scope() == scope
		}) {
			continue
		}
		if held == nil {
			held = resolvedFS(ceiling, resolve)
		}
		scope.Path = resolve(it.Path)
		if !slices.ContainsFunc(held, func(c Item) bool { return c.Contains(scope) }) {
			return fmt.Errorf("%s leads to %s, which is not within the ceiling %q", it, scope.Path,
				ceiling.String())
		}
	}
	return nil
}

// resolvedFS is ceiling's fs items, each path passed through resolve.
func resolvedFS(ceiling Budget, resolve func(string) string) []Item {
	held := make([]Item, 0, len(ceiling.Items))
	for _, c := range ceiling.Of(FS) {
		if c.Path != "" {
			c.Path = resolve(c.Path)
		}
		held = append(held, c)
	}
	return held
}
