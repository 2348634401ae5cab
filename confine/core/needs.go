package core

// NeedPath is one path of the machine that an interpreter need names.
type NeedPath struct {
	Need  string // NeedExecutable and the rest
	Path  string
	Write bool // read and written; read only otherwise
	File  bool // known to be a file, not a directory
	// Operator is true for a path the operator's environment names rather
	// than one Sabline knows (Needs.OperatorTLSRoots): it is held as a
	// grant is, on an entry of a data file system and nowhere no grant
	// may reach, and skipped where it does not exist.
	Operator bool
}

// NeedPaths resolves the needs p.Interpreter names through n, in the
// policy's order. A need with no path on the machine (n gives "" or an
// empty list) gets none, and so does a need this code does not know: what
// is not named is refused.
func NeedPaths(p Policy, n Needs) []NeedPath {
	var out []NeedPath
	add := func(need string, paths []string, write, file bool) {
		for _, path := range paths {
			if path != "" {
				out = append(out, NeedPath{Need: need, Path: path, Write: write, File: file})
			}
		}
	}
	operator := func(need string, paths []string) {
		for _, path := range paths {
			if path != "" {
				out = append(out, NeedPath{Need: need, Path: path, Operator: true})
			}
		}
	}
	for _, need := range p.Interpreter {
		switch need {
		case NeedExecutable:
			add(need, []string{n.Executable}, false, true)
		case NeedDevNull:
			add(need, []string{"/dev/null"}, true, true)
		case NeedURandom:
			add(need, []string{"/dev/urandom"}, false, true)
		case NeedTemp:
			add(need, []string{n.TempDir}, true, false)
		case NeedTZData:
			add(need, n.TZData, false, false)
		case NeedResolver:
			add(need, n.Resolver, false, true)
		case NeedTLSRoots:
			add(need, n.TLSRoots, false, false)
			operator(need, n.OperatorTLSRoots)
		}
	}
	return out
}
