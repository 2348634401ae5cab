package core

import (
	"maps"
	"sort"
	"sync"
)

// Widen is what a granted ffi module widens the OS policy to.
type Widen string

// The widenings, from none to all.
const (
	widenNothing         Widen = "nothing"
	WidenAnyPath         Widen = "any path"
	WidenAnyHost         Widen = "any host"
	WidenAnyPathAndHost  Widen = "any path and any host"
	WidenNothingEnforced Widen = "nothing enforced"
)

// paths reports whether the widening opens every path.
func (w Widen) paths() bool {
	return w == WidenAnyPath || w == WidenAnyPathAndHost || w == WidenNothingEnforced
}

// hosts reports whether the widening opens every host.
func (w Widen) hosts() bool {
	return w == WidenAnyHost || w == WidenAnyPathAndHost || w == WidenNothingEnforced
}

// ffiWidening is the widening table as the compiler lays it out: each
// widening with the module names that widen to it.
var ffiWidening = [...]struct {
	widen Widen
	names []string
}{
	{widenNothing, []string{"abc", "array", "ast", "base64", "binascii", "bisect", "calendar", "cmath",
		"collections", "colorsys", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib",
		"email", "enum", "fnmatch", "fractions", "functools", "gc", "hashlib", "heapq", "hmac",
		"html", "ipaddress", "itertools", "json", "keyword", "math", "numbers", "operator",
		"pprint", "random", "re", "reprlib", "secrets", "shlex", "statistics", "string", "struct",
		"textwrap", "threading", "time", "tomllib", "typing", "unicodedata", "uuid", "zlib",
		"zoneinfo"}},
	{WidenAnyPath, []string{"bz2", "codecs", "configparser", "dbm", "fileinput", "glob", "gzip", "io",
		"lzma", "pathlib", "shutil", "sqlite3", "tarfile", "tempfile", "xml", "zipfile"}},
	{WidenAnyHost, []string{"ftplib", "http", "imaplib", "poplib", "select", "selectors", "smtplib",
		"socket", "ssl", "urllib", "xmlrpc"}},
	{WidenAnyPathAndHost, []string{"aiohttp", "httpx", "logging", "requests", "urllib3"}},
	{WidenNothingEnforced, []string{"asyncio", "builtins", "code", "concurrent", "ctypes", "importlib",
		"multiprocessing", "nt", "os", "pdb", "pickle", "pkgutil", "platform", "posix", "pty",
		"runpy", "shelve", "signal", "site", "subprocess", "sys", "venv", "webbrowser", "winreg",
		"zipimport"}},
}

// FFIWidens returns the widening table: for each module name a granted ffi
// item may carry, what the module's own code reaches, and so what the OS
// policy must allow for it unless --confine strict is given. A module the
// table does not name widens to nothing enforced: what it needs is not
// known. Plain ffi, which grants every module, does too. Each call returns
// a copy: no caller can change what another reads.
func FFIWidens() map[string]Widen { return maps.Clone(ffiWidens()) }

// ffiWidens is the widening table as a map, built on first use and shared.
var ffiWidens = sync.OnceValue(func() map[string]Widen {
	m := map[string]Widen{}
	for _, row := range ffiWidening {
		for _, n := range row.names {
			m[n] = row.widen
		}
	}
	return m
})

// WidensTo returns what granting module widens the policy to, and whether
// the table names it. The empty name is plain ffi.
func WidensTo(module string) (Widen, bool) {
	if module == "" {
		return WidenNothingEnforced, false
	}
	w, ok := ffiWidens()[module]
	if !ok {
		return WidenNothingEnforced, false
	}
	return w, true
}

// WidenOrder lists the widenings in the order the table prints them.
func WidenOrder() []Widen {
	return []Widen{widenNothing, WidenAnyPath, WidenAnyHost, WidenAnyPathAndHost, WidenNothingEnforced}
}

// ModulesWidening returns the table's module names for w, sorted.
func ModulesWidening(w Widen) []string {
	var out []string
	for n, x := range ffiWidens() {
		if x == w {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
