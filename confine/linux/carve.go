package linux

import (
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sabline/sabline/guard"
)

// Landlock allows a hierarchy, and cannot take a path out of one. So a
// rule whose path lies above a guarded location (a grant of / above
// ~/.ssh, the receipts, /proc/sys) is carved: replaced by rules for the
// entries beside the way down to each location, the locations never among
// them. The directories on the way down are "expanded": each keeps the
// right to list it (read_dir, which Landlock hands on to everything
// beneath: a program may list the names in a guarded directory there,
// never open what they name), and no right to make or remove an entry in
// it, which would reach into the guarded location too. What an expanded
// directory holds is fixed when the run starts: no entry can be made in
// it during the run.
//
// Some directories are expanded whether or not a guarded location lies
// beneath them when the run starts (guard.CarveOut.Expand): every home,
// whose dot-entries are never among its entries (a ~/.bashrc or ~/.ssh
// made during the run would be beneath the grant of the home otherwise),
// and the nearest directory above a guarded location that does not exist
// yet (/run above /run/secrets), so that none can be made.
//
// A grant's own rule never lies in a guarded location that no grant
// reaches (a guard.CarveOut that is not Named). The supervisor refused
// such a grant before the run, as written and as it resolved then; a
// grant whose path has since become a link into one (made by another
// run, between the admission and this worker's start) is withheld from
// the ruleset, and the kernel refuses it with the rest.

// MaxCarvedRules bounds the rules the carving of one ruleset adds. A rule
// whose carving would pass it stays as it was, and the guarded locations
// beneath it are held by the language alone (the level is then partial).
const MaxCarvedRules = 16384

// Carving is what CarveLandlock did to a ruleset.
type Carving struct {
	// Expanded are the directories held as their entries, sorted.
	Expanded []string
	// LanguageOnly are the guarded locations beneath a rule that could
	// not be carved (past MaxCarvedRules, or a directory that could not
	// be listed), which only the language holds, sorted.
	LanguageOnly []string
	// Added is how many rules the carving added.
	Added int
	// Withheld are the granted paths, as they resolved when the ruleset
	// was made, left out of it: each lay in a guarded location that no
	// grant reaches, sorted.
	Withheld []string
	// Unlisted are the directories on the way down to a guarded location
	// (another user's home, say) that could not be listed: each is given
	// no rule, so that nothing in it is reached through the grant above
	// it, sorted.
	Unlisted []string
	// NeedsWithheld are the paths of the interpreter's needs left out of
	// the ruleset, as written, sorted: each resolved, through a link on
	// its way, into a place only a grant that names it reaches
	// (outOfReach), or to a directory above one (aboveCarveOut), where
	// its path as written lies in none.
	NeedsWithheld []string
}

// CarveLandlock returns plan with every rule whose path lies above one of
// carveOuts carved, and says what it did. The rules' paths must be as
// they resolve, and so must the carve-outs (guard.Set.CarveOuts lists
// both forms). list reads a directory's entries, with their types. An
// entry that is a link is never a rule (its target is judged by the rules
// on the way to it), nor is a device, but for one a carve-out allows
// (the devices of /dev). A grant's rule that lies in a carve-out that is
// not Named is withheld (Carving.Withheld). The rules the carving adds
// are bounded by maxRules.
func CarveLandlock(plan LandlockRuleset, carveOuts []guard.CarveOut,
	list func(dir string) ([]fs.DirEntry, error),
	maxRules int) (LandlockRuleset, Carving) {
	out := plan
	out.Rules = nil
	var c Carving
	expanded := map[string]bool{}
	for _, r := range plan.Rules {
		if (r.Grant || r.Operator) && unreachable(carveOuts, r.Path) {
			c.Withheld = append(c.Withheld, r.Path)
			continue
		}
		beneath := strictlyBeneath(carveOuts, r.Path)
		self, expand := expansion(carveOuts, r.Path)
		if len(beneath) == 0 && !expand {
			out.Rules = append(out.Rules, r)
			continue
		}
		k := carver{list: list, rule: r, budget: maxRules - c.Added}
		if !k.carve(r.Path, beneath, self.Dots) {
			out.Rules = append(out.Rules, r)
			for _, co := range beneath {
				c.LanguageOnly = append(c.LanguageOnly, co.Path)
			}
			if expand {
				c.LanguageOnly = append(c.LanguageOnly, r.Path) // what may not be made in it, its dot-entries
			}
			continue
		}
		out.Rules = append(out.Rules, k.rules...)
		c.Unlisted = append(c.Unlisted, k.unlisted...)
		c.Added += len(k.rules) - 1
		for _, d := range k.expanded {
			expanded[d] = true
		}
	}
	for d := range expanded {
		c.Expanded = append(c.Expanded, d)
	}
	sort.Strings(c.Expanded)
	c.LanguageOnly = compactSorted(c.LanguageOnly)
	c.Withheld = compactSorted(c.Withheld)
	c.Unlisted = compactSorted(c.Unlisted)
	return out, c
}

// Moved returns plan without the grants (and the operator's paths, held
// as grants are) whose path resolves now (resolve) otherwise than it did
// when the run was admitted (admitted, by the path as written), and
// those paths, sorted. A grant the run's admission did not resolve is
// kept. A granted directory that another process swapped
// for a link after the supervisor checked it (a link into a guarded
// location, or anywhere the grant never named) is so held out of the
// kernel's ruleset: the kernel refuses what lies there. A deploy link
// (current -> releases/N) moved during a pool's life is withheld as
// well: the pool holds what it was admitted with, until it is made again.
func Moved(plan LandlockRuleset, admitted map[string]string,
	resolve func(string) string) (LandlockRuleset, []string) {
	if len(admitted) == 0 {
		return plan, nil
	}
	out := plan
	out.Rules = nil
	var moved []string
	for _, r := range plan.Rules {
		if was, ok := admitted[r.Path]; ok && (r.Grant || r.Operator) && resolve(r.Path) != was {
			moved = append(moved, r.Path)
			continue
		}
		out.Rules = append(out.Rules, r)
	}
	return out, compactSorted(moved)
}

// unreachable reports whether p lies in a carve-out that no grant reaches
// (a location, not Named), and not in one of the names it allows.
func unreachable(carveOuts []guard.CarveOut, p string) bool {
	return slices.ContainsFunc(carveOuts, func(c guard.CarveOut) bool {
		return !c.Named && !c.Expand && guard.Within(p, c.Path) &&
			!slices.ContainsFunc(c.Allowed, func(a string) bool {
				return guard.Within(p, filepath.Join(c.Path, a))
			})
	})
}

// outOfReach reports whether p lies where only a grant that names it
// reaches: in a guarded location, Named or not, and not in one of the
// names it allows, or in a dot-entry of a home (a carve-out with Dots).
// A need of the interpreter held there, through a link made at its path
// (a /usr/share/zoneinfo made a link to ~/.ssh by a run that may write in
// /usr/share), would reach what no grant of the run names.
func outOfReach(carveOuts []guard.CarveOut, p string) bool {
	return slices.ContainsFunc(carveOuts, func(c guard.CarveOut) bool {
		if c.Expand {
			if !c.Dots || p == c.Path || !guard.Within(p, c.Path) {
				return false
			}
			rel, err := filepath.Rel(c.Path, p)
			return err == nil && strings.HasPrefix(rel, ".")
		}
		return guard.Within(p, c.Path) && !slices.ContainsFunc(c.Allowed, func(a string) bool {
			return guard.Within(p, filepath.Join(c.Path, a))
		})
	})
}

// aboveCarveOut reports whether p is a directory a rule at which is
// carved (CarveLandlock): one above a carve-out, or one expanded itself (a
// home). Past MaxCarvedRules its rule is kept whole, and what lies in the
// carve-outs beneath it is held by the language alone.
func aboveCarveOut(carveOuts []guard.CarveOut, p string) bool {
	_, expand := expansion(carveOuts, p)
	return expand || len(strictlyBeneath(carveOuts, p)) > 0
}

func compactSorted(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

// strictlyBeneath are the carve-outs that lie beneath dir, dir itself
// not among them.
func strictlyBeneath(carveOuts []guard.CarveOut, dir string) []guard.CarveOut {
	var out []guard.CarveOut
	for _, c := range carveOuts {
		if c.Path != dir && guard.Within(c.Path, dir) {
			out = append(out, c)
		}
	}
	return out
}

// expansion is the carve-out that expands dir (guard.CarveOut.Expand),
// if there is one.
func expansion(carveOuts []guard.CarveOut, dir string) (guard.CarveOut, bool) {
	i := slices.IndexFunc(carveOuts, func(c guard.CarveOut) bool { return c.Expand && c.Path == dir })
	if i < 0 {
		return guard.CarveOut{}, false
	}
	return carveOuts[i], true
}

// location is the carve-out that is a guarded location at p, if there is
// one.
func location(carveOuts []guard.CarveOut, p string) (guard.CarveOut, bool) {
	i := slices.IndexFunc(carveOuts, func(c guard.CarveOut) bool { return !c.Expand && c.Path == p })
	if i < 0 {
		return guard.CarveOut{}, false
	}
	return carveOuts[i], true
}

// carver carves one rule.
type carver struct {
	list     func(dir string) ([]fs.DirEntry, error)
	rule     LandlockRule
	budget   int // rules it may add
	rules    []LandlockRule
	expanded []string
	unlisted []string // directories beneath the rule's that could not be listed
}

// add adds a rule for path with the rule's rights, those of a file where
// it is not a directory; false when the budget is spent.
func (k *carver) add(path string, access uint64, why string) bool {
	if access == 0 {
		return true
	}
	if len(k.rules) > k.budget {
		return false
	}
	k.rules = append(k.rules, LandlockRule{Path: path, Access: access, Grant: k.rule.Grant, Why: why,
		Carved: true, Image: k.rule.Image, Operator: k.rule.Operator})
	return true
}

// carve holds dir as its entries, but the carve-outs beneath it and, for
// a home (dots), its dot-entries; false when it cannot (the rule's own
// directory could not be listed, or the budget is spent). A directory
// beneath the rule's that cannot be listed is given no rule at all
// (unlisted): what lies in it is then beyond the grant, never beneath it
// whole.
func (k *carver) carve(dir string, beneath []guard.CarveOut, dots bool) bool {
	entries, err := k.list(dir)
	if err != nil {
		if dir != k.rule.Path {
			k.unlisted = append(k.unlisted, dir)
			return true
		}
		return false
	}
	k.expanded = append(k.expanded, dir)
	why := k.rule.Why + ", carved around the guarded locations beneath " + k.rule.Path
	if !k.add(dir, k.rule.Access&LandlockFSReadDir, why) {
		return false
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if dots && strings.HasPrefix(e.Name(), ".") {
			continue // a home's dot-entry: a grant that names it is a rule of its own
		}
		if c, ok := location(beneath, p); ok {
			// A guarded location: only the names it allows.
			for _, name := range c.Allowed {
				if !k.allowed(p, name, why) {
					return false
				}
			}
			continue
		}
		t := e.Type()
		if t&fs.ModeSymlink != 0 || t&fs.ModeDevice != 0 {
			continue
		}
		if t.IsDir() {
			deeper := strictlyBeneath(beneath, p)
			if self, expand := expansion(beneath, p); expand || len(deeper) > 0 {
				if !k.carve(p, deeper, self.Dots) {
					return false
				}
				continue
			}
			if !k.add(p, k.rule.Access, why) {
				return false
			}
			continue
		}
		if !k.add(p, k.rule.Access&landlockFileRights, why) {
			return false
		}
	}
	return true
}

// allowed adds a rule for the entry name of the guarded directory dir,
// where it is there and no link: a file's rights only.
func (k *carver) allowed(dir, name, why string) bool {
	entries, err := k.list(dir)
	if err != nil {
		return true // nothing there to allow
	}
	for _, e := range entries {
		if e.Name() == name && e.Type()&fs.ModeSymlink == 0 {
			return k.add(filepath.Join(dir, name), k.rule.Access&landlockFileRights, why)
		}
	}
	return true
}

// shortList joins the first n of items, and says how many more there are.
func shortList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + " and " + strconv.Itoa(len(items)-n) + " more"
}
