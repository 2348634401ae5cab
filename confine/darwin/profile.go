package darwin

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/sabline/sabline/confine/core"
)

// darwinVolumes is where macOS mounts other disks, removable ones
// included. Reads there are refused as they are under the home directory.
const darwinVolumes = "/Volumes"

// Profile returns the sandbox profile that holds p on macOS, in the
// profile language (SBPL) that sandbox_init compiles. home is the
// operator's home directory; cwd, when not "", is the working directory,
// whose chain of directories stays visible to stat (os.Getwd checks $PWD
// against "." with stat). Both are absolute.
//
// The profile allows what macOS allows by default and then refuses:
//
//   - every write, when writes are restricted, but beneath the write
//     grants, the private temporary directory and /dev/null;
//   - every read under home and /Volumes, when reads are restricted, but
//     beneath the read grants and the interpreter's needs, with stat (not
//     reading) left to the directories above them and to the write
//     grants, so that a path can be resolved. Reads elsewhere stay open:
//     the language holds them;
//   - every socket, when the network is closed;
//   - starting a process, always.
//
// The sandbox matches the path a file has once links are resolved (/tmp
// is /private/tmp), so p's paths and n's must be resolved by the caller.
// Every path is written as an SBPL string with backslash, double quote and
// control characters escaped, so that no path can end its string and add
// a rule; a path holding a NUL byte, which the profile compiler would cut
// the path at, is refused. It fails when p enforces nothing or a path is
// not absolute.
func Profile(p core.Policy, n core.Needs, home, cwd string) (string, error) {
	if !p.Enforced {
		return "", errors.New("darwin profile: the policy enforces nothing")
	}
	needs := core.NeedPaths(p, n)
	var reads, writes []sbplPath
	for _, dir := range p.Read.Paths {
		reads = append(reads, sbplPath{path: dir})
	}
	for _, dir := range p.Write.Paths {
		writes = append(writes, sbplPath{path: dir})
	}
	for _, np := range needs {
		reads = append(reads, sbplPath{path: np.Path, literal: np.File})
		if np.Write {
			writes = append(writes, sbplPath{path: np.Path, literal: np.File})
		}
	}
	named := append(append([]sbplPath{{path: home}}, reads...), writes...)
	if cwd != "" {
		named = append(named, sbplPath{path: cwd})
	}
	for _, sp := range named {
		switch {
		case !strings.HasPrefix(sp.path, "/"):
			return "", fmt.Errorf("darwin profile: %q is not an absolute path", sp.path)
		case strings.ContainsRune(sp.path, 0):
			return "", fmt.Errorf("darwin profile: %q holds a NUL byte", sp.path)
		}
	}
	home = path.Clean(home)
	if cwd != "" {
		cwd = path.Clean(cwd)
	}

	var b strings.Builder
	b.WriteString("(version 1)\n")
	b.WriteString(";; Sabline confinement. An operation is decided by the last rule that\n")
	b.WriteString(";; matches it, so each denial comes before what is allowed back of it.\n")
	b.WriteString("(allow default)\n")
	if !p.Write.Unrestricted {
		b.WriteString(";; Writes: refused but beneath the grants and the interpreter's needs.\n")
		b.WriteString("(deny file-write*)\n")
		b.WriteString(sbplRule("allow file-write*", writes))
	}
	if !p.Read.Unrestricted {
		roots := []string{home, darwinVolumes}
		b.WriteString(";; Reads: refused under the home directory and /Volumes but beneath the\n")
		b.WriteString(";; grants and the interpreter's needs there. The directories above\n")
		b.WriteString(";; them, the working directory's chain and the write grants may be\n")
		b.WriteString(";; stat'ed, not read, so that their paths resolve.\n")
		b.WriteString(sbplRule("deny file-read*", []sbplPath{{path: home}, {path: darwinVolumes}}))
		var allowed, stat []sbplPath
		for _, r := range reads {
			if darwinOverlaps(r.path, roots) {
				allowed = append(allowed, r)
			}
		}
		b.WriteString(sbplRule("allow file-read*", allowed))
		for _, dir := range p.Write.Paths {
			if darwinOverlaps(dir, roots) {
				stat = append(stat, sbplPath{path: dir})
			}
		}
		var above []string
		for _, sp := range append(reads, writes...) {
			above = append(above, darwinAbove(sp.path, roots)...)
		}
		if cwd != "" {
			above = append(above, darwinAbove(cwd, roots)...)
			if slices.ContainsFunc(roots, func(root string) bool { return posixWithin(cwd, root) }) {
				above = append(above, cwd)
			}
		}
		for _, dir := range sortedSet(above) {
			stat = append(stat, sbplPath{path: dir, literal: true})
		}
		b.WriteString(sbplRule("allow file-read-metadata", stat))
	}
	if p.Network.Mode == core.NetClosed {
		b.WriteString(";; Network: closed.\n")
		b.WriteString("(deny network*)\n")
	}
	b.WriteString(";; Processes: a confined run starts none.\n")
	b.WriteString("(deny process-fork)\n")
	b.WriteString("(deny process-exec)\n")
	return b.String(), nil
}

// sbplPath is a path filter of a profile rule: the path and everything
// beneath it (subpath), or the path alone (literal).
type sbplPath struct {
	path    string
	literal bool
}

// sbplRule prints (HEAD FILTER...), or nothing when there is no filter:
// a rule with no filter would match the operation everywhere.
func sbplRule(head string, filters []sbplPath) string {
	if len(filters) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("(" + head)
	for _, f := range filters {
		kind := "subpath"
		if f.literal {
			kind = "literal"
		}
		b.WriteString("\n    (" + kind + " " + sbplString(f.path) + ")")
	}
	b.WriteString(")\n")
	return b.String()
}

// posixWithin is budget.Within for the slash-separated paths of a profile,
// whatever the system that builds it.
func posixWithin(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// darwinOverlaps reports whether p lies within one of roots or holds one:
// only there are reads refused and need allowing back.
func darwinOverlaps(p string, roots []string) bool {
	for _, root := range roots {
		if posixWithin(p, root) || posixWithin(root, p) {
			return true
		}
	}
	return false
}

// darwinAbove returns the directories above p that lie within one of
// roots, from p's parent up to the root.
func darwinAbove(p string, roots []string) []string {
	var out []string
	for _, root := range roots {
		if p == root || !posixWithin(p, root) {
			continue
		}
		for dir := path.Dir(p); ; dir = path.Dir(dir) {
			out = append(out, dir)
			if dir == root {
				break
			}
		}
	}
	return out
}

// sortedSet returns list sorted, each string once.
func sortedSet(list []string) []string {
	set := map[string]bool{}
	for _, s := range list {
		set[s] = true
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// sbplString writes s as an SBPL string literal: backslash and double
// quote are escaped, and so is every control character (\n, \r, \t, and
// \xHH for the others), so that the literal ends at its closing quote and
// fits on one line.
func sbplString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
