package sabline_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt"
)

// TestPoolOptionsKeyNamesEachOption: two options that differ in any
// setting but Stderr are two pools of a registry (PoolOptions.Key): one
// that differed only in its guarded locations or its least level shared
// the pool the other made, and its runs were held to the other's. The
// control: a copy of the options, and the options with another Stderr,
// are the same pool. A field added to PoolOptions fails the test until
// it is given a value here.
func TestPoolOptionsKeyNamesEachOption(t *testing.T) {
	base := sabline.PoolOptions{Budget: budget.MustParse("/", "io"), Receipts: "/srv/receipts"}
	other := map[string]func(o *sabline.PoolOptions){
		"Budget":          func(o *sabline.PoolOptions) { o.Budget = budget.MustParse("/", "io,clock") },
		"Workers":         func(o *sabline.PoolOptions) { o.Workers = 2 },
		"MaxIdle":         func(o *sabline.PoolOptions) { o.MaxIdle = 2 },
		"IdleTimeout":     func(o *sabline.PoolOptions) { o.IdleTimeout = time.Hour },
		"OnDemand":        func(o *sabline.PoolOptions) { o.OnDemand = true },
		"Timeout":         func(o *sabline.PoolOptions) { o.Timeout = time.Second },
		"MaxMemoryMB":     func(o *sabline.PoolOptions) { o.MaxMemoryMB = 256 },
		"Confine":         func(o *sabline.PoolOptions) { o.Confine = sabline.ConfineStrict },
		"Require":         func(o *sabline.PoolOptions) { o.Require = core.Full },
		"ImportRoot":      func(o *sabline.PoolOptions) { o.ImportRoot = "/srv/programs" },
		"Receipts":        func(o *sabline.PoolOptions) { o.Receipts = "/srv/other" },
		"Guarded":         func(o *sabline.PoolOptions) { o.Guarded = []string{"/srv/token"} },
		"LendCredentials": func(o *sabline.PoolOptions) { o.LendCredentials = []string{"/srv/cred"} },
		"Durability":      func(o *sabline.PoolOptions) { o.Durability = receipt.None },
	}
	for f := range reflect.TypeFor[sabline.PoolOptions]().Fields() {
		if _, ok := other[f.Name]; !ok && f.Name != "Stderr" {
			t.Errorf("PoolOptions.%s is given no other value here", f.Name)
		}
	}
	for name, set := range other {
		o := base
		set(&o)
		if o.Key() == base.Key() {
			t.Errorf("options with another %s have the same key: one pool", name)
		}
	}
	same := base
	same.Stderr = new(nopWriter)
	if same.Key() != base.Key() {
		t.Error("the control: options with another Stderr have another key")
	}
}

// TestPoolRegistryListsAreExact: two options whose lists of locations
// differ are two pools of a registry. A location may hold any byte but
// NUL, and the one guarded location "DIR/a\x01DIR/b" was the key of the
// two DIR/a and DIR/b: options guarding both were given the pool made
// for the first, which guards neither, and options lending both the pool
// lending neither. Judged from the pool each caller was given (its
// Options); the control: the same options, copied, are the same pool.
func TestPoolRegistryListsAreExact(t *testing.T) {
	root, rc, dir := importRoot(t), t.TempDir(), t.TempDir()
	one := []string{dir + "/a\x01" + dir + "/b"}
	two := []string{dir + "/a", dir + "/b"}
	for _, tt := range []struct {
		name string
		set  func(o *sabline.PoolOptions, l []string)
		get  func(o sabline.PoolOptions) []string
	}{
		{name: "guarded", set: func(o *sabline.PoolOptions, l []string) { o.Guarded = l },
			get: func(o sabline.PoolOptions) []string { return o.Guarded }},
		{name: "lent", set: func(o *sabline.PoolOptions, l []string) { o.LendCredentials = l },
			get: func(o sabline.PoolOptions) []string { return o.LendCredentials }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := sabline.NewPoolRegistry(4)
			t.Cleanup(func() { reg.Close() })
			acquire := func(l []string) *sabline.Pool {
				o := sabline.PoolOptions{Budget: budget.MustParse(root, "io"), ImportRoot: root,
					Receipts: rc, OnDemand: true}
				tt.set(&o, append([]string(nil), l...))
				p, release, err := reg.Acquire(o)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(release)
				return p
			}
			first := acquire(one)
			if got := tt.get(acquire(two).Options()); !slices.Equal(got, two) {
				t.Errorf("options of %q were given the pool of %q", two, got)
			}
			if acquire(one) != first {
				t.Error("the control: the same options, copied, were given another pool")
			}
		})
	}
}

type nopWriter struct{}

func (*nopWriter) Write(p []byte) (int, error) { return len(p), nil }
