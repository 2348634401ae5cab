// Command doordeps is workerdeps with what the two doors link besides
// (net/http and the MCP SDK): one start of it, beside workerdeps, is what
// the doors cost every process of the sabline binary, the worker too.
package main

import (
	"fmt"

	_ "net/http"

	_ "github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/sabline/sabline/internal/run"
)

func main() { fmt.Println("hello, world") }
