// Package audit says what a program asks for and what each system would
// hold of it, without running it: the budget its leading `# allow:` line
// declares, the command that grants exactly that, the OS policy the
// budget derives and the confinement each system gives it. It sits above
// the language and confinement both, and reads nothing of the machine.
package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
)

// Audit is what `sabline audit` says of a program: the budget it declares,
// the command that grants exactly that (run in the program's own
// directory, against which the budget's relative paths are read, as the
// program's own relative paths are), the OS policy the budget derives,
// and the confinement each system of confine.Systems gives it where every
// layer that system has is present. It reads nothing of the machine, so its JSON is the same
// bytes wherever it is made.
type Audit struct {
	// Program is the program's path as given, with forward slashes.
	Program string `json:"program"`
	SHA256  string `json:"sha256"`
	// Declared is the program's `# allow:` line, canonical; "" when none.
	Declared string `json:"declared"`
	// Audited is the budget audited: --allow if given, else Declared.
	Audited string `json:"audited"`
	// RunIn is the directory SafeCommand runs in: the program's, as given.
	RunIn        string                 `json:"run_in"`
	SafeCommand  string                 `json:"safe_command"`
	Strict       bool                   `json:"strict"`
	OSPolicy     json.RawMessage        `json:"os_policy"`
	PolicySHA256 string                 `json:"os_policy_sha256"`
	Confinement  map[string]core.Result `json:"confinement"`
	WidenedBy    []core.Widening        `json:"widened_by"`
}

// maxDeclaredItems bounds the items (comma-separated) of a program's
// # allow: line that an audit reads. The line is the program's, which
// its auditor has not vetted yet, and the policy an audit derives costs
// time in the square of its items: a header of 32,000 items (500 KB) held
// `sabline audit` 48 s, and a program of 16 MiB holds a million. A door
// bounds them tighter still (256).
const maxDeclaredItems = 1024

// DeclaredBudget reads a program's leading `# allow: ITEMS` comment line.
// Only comment lines at the top of the file are read, each whole. Relative paths stay
// relative: the declaration is about the program, not a machine. A line
// of more than maxDeclaredItems items is E301.
func DeclaredBudget(src []byte) (text string, b budget.Budget, err error) {
	text, ok := DeclaredLine(src)
	if !ok {
		return "", budget.Budget{}, nil
	}
	if n := strings.Count(text, ",") + 1; n > maxDeclaredItems {
		e := codes.Errorf(codes.E301, "the program's # allow: line: %d budget items (a comma "+
			"separates items), more than the %d an audit reads", n, maxDeclaredItems)
		e.Do = "A program needs few grants: read what it declares in its source, and grant it " +
			"only those you would give (--allow)."
		return "", budget.Budget{}, e
	}
	b, err = budget.Parse([]string{text}, "")
	if err != nil {
		return "", budget.Budget{}, codes.Errorf(codes.E301, "the program's # allow: line: %w", err)
	}
	return text, b, nil
}

// DeclaredLine is the items of a program's leading `# allow:` line as
// DeclaredBudget reads them, not yet parsed; ok is false when the
// program has none. A caller that bounds what it audits (a door) counts
// them here, before the budget is parsed and its policy derived.
func DeclaredLine(src []byte) (text string, ok bool) {
	for raw := range bytes.Lines(src) { // every line, however long: src is bounded by its reader
		line := strings.TrimSpace(string(raw))
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			break
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(line, "#")), "allow:"); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// MakeAudit audits the program at path (as the operator wrote it) with
// source src. allow, when not empty, is the budget to audit in place of
// the declared one; relative paths in it stay relative, and are read, like
// the declared ones, against the program's directory (RunIn).
func MakeAudit(path string, src []byte, allow []string, mode core.Mode) (*Audit, error) {
	_, declared, err := DeclaredBudget(src)
	if err != nil {
		return nil, err
	}
	audited := declared
	if len(allow) > 0 {
		if audited, err = budget.Parse(allow, ""); err != nil {
			return nil, codes.Errorf(codes.E301, "--allow: %w", err)
		}
	}
	sum := sha256.Sum256(src)
	strict := mode == core.ModeStrict
	p := core.OSPolicy(audited, core.Options{Mode: mode})
	a := &Audit{
		Program:      filepath.ToSlash(path),
		SHA256:       hex.EncodeToString(sum[:]),
		Declared:     slashBudget(declared),
		Audited:      slashBudget(audited),
		Strict:       strict,
		OSPolicy:     json.RawMessage(p.JSON()),
		PolicySHA256: p.SHA256(),
		Confinement:  map[string]core.Result{},
		WidenedBy:    p.WidenedBy,
	}
	a.RunIn = filepath.ToSlash(filepath.Dir(path))
	a.SafeCommand = "sabline " + ShellQuote(filepath.Base(path))
	if a.Audited != "" {
		a.SafeCommand += " --allow " + ShellQuote(a.Audited)
	}
	if strict {
		a.SafeCommand += " --confine strict"
	}
	for _, sys := range confine.Systems() {
		a.Confinement[string(sys)] = confine.Predict(p, sys)
	}
	return a, nil
}

// JSON is the audit's document: indented, keys in a fixed order.
func (a *Audit) JSON() []byte {
	out, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		panic("audit: marshal: " + err.Error()) // every field is marshalable
	}
	return append(out, '\n')
}

// slashBudget prints a budget with forward slashes in its paths, so that
// a relative declaration reads the same on every system.
func slashBudget(b budget.Budget) string {
	return filepath.ToSlash(b.String())
}

// ShellQuote quotes s for a POSIX shell when it needs it: in single
// quotes, or, when s holds a character a terminal would not print (a
// control character, a byte that is not UTF-8), as $'...' with each such
// byte escaped (\xHH), so that the line printed, pasted into the shell,
// names s itself and moves no cursor (POSIX.1-2024's sh, bash, zsh and
// ksh read $'...').
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ',' || r == ':' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	if utf8.ValidString(s) &&
		strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r != utf8.RuneError && unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		default: // each byte of it, as the shell makes it again
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		}
		i += n
	}
	b.WriteString("'")
	return b.String()
}
