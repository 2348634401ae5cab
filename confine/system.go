package confine

import (
	"runtime"
	"slices"
)

// System is an operating system this package has confinement for, named
// as GOOS names it: the key of every per-system table (an ENFORCES row's
// cells, RefusedBy's errnos, what each system applies).
type System string

// The systems, as GOOS names them.
const (
	Linux   System = "linux"
	Darwin  System = "darwin"
	Windows System = "windows"
)

// systems are the systems this package has confinement for, in the order
// the ENFORCES table's columns, the levels table and every list of them
// give them. It is the one list: code that goes over the systems reads it.
var systems = []System{Linux, Darwin, Windows}

// systemTitles are the systems' names as prose and table headers give
// them.
var systemTitles = map[System]string{Linux: "Linux", Darwin: "macOS", Windows: "Windows"}

// Title is the system's name as prose gives it: "Linux", "macOS",
// "Windows"; the GOOS name for a system not in Systems.
func (s System) Title() string {
	if t, ok := systemTitles[s]; ok {
		return t
	}
	return string(s)
}

// SystemOf returns the System goos names, and false for a system this
// package has no confinement for.
func SystemOf(goos string) (System, bool) {
	for _, s := range systems {
		if string(s) == goos {
			return s, true
		}
	}
	return System(goos), false
}

// ThisSystem is the system this build runs on, and whether this package
// has confinement for it.
func ThisSystem() (System, bool) { return SystemOf(runtime.GOOS) }

// Systems returns the systems Sabline has a plan for, in the order the
// tables and reports list them; a copy, so that no caller can change
// what every other reads.
func Systems() []System { return slices.Clone(systems) }
