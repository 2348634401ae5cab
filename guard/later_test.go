package guard

import (
	"encoding/json"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sabline/sabline/budget"
)

// TestLater: a Set made with Later is built once, when first consulted,
// and then answers as the Set Build makes; a budget with no file item is
// admitted without building it, and one with a file item builds it and
// is judged by it (refused where the built Set refuses it).
func TestLater(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake machine is a Linux one")
	}
	var builds atomic.Int32
	set := Later(func() *Set { builds.Add(1); return build() })
	if err := set.Admit(budget.MustParse("/", "io"), nil); err != nil || builds.Load() != 0 {
		t.Fatalf("a budget of no file: %v, %d builds; want admitted, none", err, builds.Load())
	}
	if err := set.Admit(budget.MustParse("/", "fs:read:/etc/shadow"), nil); err == nil {
		t.Error("fs:read:/etc/shadow admitted, want refused as the built Set refuses it")
	}
	if err := set.Admit(budget.MustParse("/", "fs:read:/root/dotfiles"), nil); err != nil {
		t.Errorf("fs:read:/root/dotfiles: %v, want admitted", err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { set.Refuses("/root/.ssh/id_rsa", "/root") })
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds, want one", n)
	}
	want := build()
	for _, p := range []string{"/root/.ssh/id_rsa", "/root/notes.txt", "/etc/shadow", "/root/.new"} {
		gl, gok := set.Refuses(p, "/root")
		wl, wok := want.Refuses(p, "/root")
		if gok != wok || gl.Path != wl.Path {
			t.Errorf("Refuses(%s): %v %v; Build's answers %v %v", p, gl, gok, wl, wok)
		}
	}
	got, _ := json.Marshal(set.Wire())
	wantJSON, _ := json.Marshal(want.Wire())
	if string(got) != string(wantJSON) || len(set.CarveOuts()) != len(want.CarveOuts()) ||
		len(set.Homes()) != len(want.Homes()) || len(set.Locations()) != len(want.Locations()) {
		t.Errorf("the later set reads otherwise than Build's:\n%s\n%s", got, wantJSON)
	}
}
