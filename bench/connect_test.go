package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// connections is how many connections BenchmarkConnect's program opens.
const connections = 100

// BenchmarkConnect: a run that opens 100 connections to a loopback
// listener, sending a line on each and reading the answer, confined (the
// supervisor makes each connection and hands it in) beside --no-confine
// (the worker dials each itself): brokered/direct is the figure.
func BenchmarkConnect(b *testing.B) {
	port := testkit.Serve(b, testkit.EchoLine(""))
	dir := b.TempDir()
	prog := filepath.Join(dir, "connect.vel")
	src := "for i in range(" + strconv.Itoa(connections) + "):\n" +
		"    c = net.connect(\"127.0.0.1\", " + port + ")\n" +
		"    c.send(\"ping\\n\")\n" +
		"    if c.recv(16) != \"ping\\n\":\n" +
		"        fail(\"no answer\")\n" +
		"    c.close()\n"
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	sab, rc, allow := sabline(b), b.TempDir(), "io,net:127.0.0.1:"+port
	sideBySide(b,
		variant{name: "direct", argv: []string{sab, "--receipts", rc, "--allow", allow, "--no-confine", prog}},
		variant{name: "brokered", argv: []string{sab, "--receipts", rc, "--allow", allow, prog}},
	)
}
