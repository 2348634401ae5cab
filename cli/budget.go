package cli

import (
	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
)

// registered refuses a budget given by --allow that grants a host
// module this binary does not have (sabline.CheckModules).
func registered(b budget.Budget) error { return sabline.CheckModules("--allow", b) }
