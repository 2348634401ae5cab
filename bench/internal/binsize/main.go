// Command binsize says what a Go binary is made of: the size of the code
// and of the sized data each module's packages put in it, largest first,
// then the largest packages by code, from `go tool nm -size` and the
// module list `go version -m` prints.
//
//	binsize BINARY
//
// A symbol counts as code when it lies in .text, as data when it lies in
// another section the file holds (.rodata, .data, .noptrdata); bss, which
// takes no room in the file, is left out, and so is the function table
// (.gopclntab), which no symbol sizes: its size closes the table. Symbols
// of no package (go:func.*) are counted as "(no package)".
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: binsize BINARY")
		os.Exit(2)
	}
	if err := report(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "binsize:", err)
		os.Exit(1)
	}
}

type sizes struct{ text, data int64 }

func report(bin string) error {
	mods, err := modules(bin)
	if err != nil {
		return err
	}
	file, err := elf.Open(bin)
	if err != nil {
		return err
	}
	defer file.Close()
	section := func(addr uint64) string {
		for _, s := range file.Sections {
			if s.Addr != 0 && addr >= s.Addr && addr < s.Addr+s.Size {
				return s.Name
			}
		}
		return ""
	}
	out, err := exec.Command("go", "tool", "nm", "-size", bin).Output()
	if err != nil {
		return fmt.Errorf("go tool nm: %w", err)
	}
	by, byPkg := map[string]*sizes{}, map[string]*sizes{}
	var total sizes
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// ADDRESS SIZE KIND NAME
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			continue
		}
		addr, err1 := strconv.ParseUint(f[0], 16, 64)
		n, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		pkg := pkgOf(strings.Join(f[3:], " "))
		m := moduleOf(pkg, mods)
		for _, k := range []struct {
			in  map[string]*sizes
			key string
		}{{by, m}, {byPkg, pkg}} {
			if k.in[k.key] == nil {
				k.in[k.key] = &sizes{}
			}
			switch section(addr) {
			case ".text":
				k.in[k.key].text += n
			case ".rodata", ".data", ".noptrdata":
				k.in[k.key].data += n
			}
		}
		switch section(addr) {
		case ".text":
			total.text += n
		case ".rodata", ".data", ".noptrdata":
			total.data += n
		}
	}
	names := slices.SortedFunc(maps.Keys(by),
		func(a, b string) int { return cmp.Compare(by[b].text+by[b].data, by[a].text+by[a].data) })
	fmt.Printf("| module | code, KB | sized data, KB | share of the code |\n|---|---|---|---|\n")
	for _, m := range names {
		s := by[m]
		if s.text+s.data < 16<<10 {
			continue
		}
		fmt.Printf("| %s | %d | %d | %.1f%% |\n", m, s.text>>10, s.data>>10,
			100*float64(s.text)/float64(total.text))
	}
	fmt.Printf("| all (modules under 16 KB left out above) | %d | %d | |\n", total.text>>10,
		total.data>>10)
	if s := file.Section(".gopclntab"); s != nil {
		fmt.Printf("| the function table (.gopclntab), by no module | | %d | |\n", s.Size>>10)
	}
	pkgs := slices.SortedFunc(maps.Keys(byPkg),
		func(a, b string) int { return cmp.Compare(byPkg[b].text, byPkg[a].text) })
	fmt.Printf("\n| package (the 20 largest by code) | code, KB |\n|---|---|\n")
	for _, p := range pkgs[:min(20, len(pkgs))] {
		fmt.Printf("| %s | %d |\n", cmp.Or(p, "(no package)"), byPkg[p].text>>10)
	}
	return nil
}

// modules lists the module paths bin was built from, longest first.
func modules(bin string) ([]string, error) {
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("go version -m: %w", err)
	}
	var mods []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "mod" || f[0] == "dep") {
			mods = append(mods, f[1])
		}
	}
	slices.SortFunc(mods, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return mods, nil
}

// pkgOf is the package path a symbol belongs to: what comes before the
// first dot after its last slash ("go.starlark.net/starlark.(*Thread).Call"
// is go.starlark.net/starlark; "type:*os.File" is os), "" for a symbol of
// no package.
func pkgOf(sym string) string {
	if strings.HasPrefix(sym, "go:") {
		return "" // go:string.*, go:func.*: the linker's, of no package
	}
	sym = strings.TrimLeft(strings.TrimPrefix(sym, "type:"), "*[]")
	if i := strings.IndexAny(sym, "[( *"); i >= 0 {
		sym = sym[:i]
	}
	slash := strings.LastIndex(sym, "/")
	dot := strings.Index(sym[slash+1:], ".")
	if dot < 0 {
		return ""
	}
	return sym[:slash+1+dot]
}

// moduleOf is the module pkg is in: one of mods, the standard library,
// or "(no package)".
func moduleOf(pkg string, mods []string) string {
	if pkg == "" {
		return "(no package)"
	}
	for _, m := range mods {
		if pkg == m || strings.HasPrefix(pkg, m+"/") {
			return m
		}
	}
	if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") {
		return "standard library"
	}
	return pkg
}
