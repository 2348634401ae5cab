package bucket

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// overwriting is a store that ignores If-None-Match: every Create
// writes, over whatever the key held.
type overwriting struct {
	mu      sync.Mutex
	objects map[string][]byte
}

func (o *overwriting) Create(ctx context.Context, key string, data []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.objects[key] = append([]byte(nil), data...)
	return nil
}

func (o *overwriting) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.objects[key]
	if !ok {
		return nil, ErrNotExist
	}
	return append([]byte(nil), d...), nil
}

func (o *overwriting) List(ctx context.Context, prefix string) ([]string, error) { return nil, nil }
func (o *overwriting) Close() error                                              { return nil }

// TestCreateOnly: a store that keeps create-only writes passes the check
// and is written; one that ignores If-None-Match is refused by Check and
// by every Create after it, which writes nothing; a store that is down
// is not settled: the check is made again once it is back.
func TestCreateOnly(t *testing.T) {
	ctx := context.Background()
	t.Run("create-only", func(t *testing.T) {
		m := NewMemory()
		c := NewCreateOnly(m)
		if err := c.Check(ctx); err != nil {
			t.Fatalf("Check over Memory: %v", err)
		}
		if err := c.Create(ctx, "k", []byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(ctx, "k", []byte("y")); !errors.Is(err, ErrExist) {
			t.Errorf("a second Create: %v, want ErrExist", err)
		}
		keys, _ := m.List(ctx, ProbePrefix)
		if len(keys) != 1 {
			t.Errorf("probe keys %q, want one", keys)
		}
	})
	t.Run("ignores If-None-Match", func(t *testing.T) {
		o := &overwriting{objects: map[string][]byte{}}
		c := NewCreateOnly(o)
		if err := c.Check(ctx); !errors.Is(err, ErrNotCreateOnly) {
			t.Fatalf("Check over a store that overwrites: %v, want ErrNotCreateOnly", err)
		}
		if err := c.Create(ctx, "segments/k", []byte("x")); !errors.Is(err, ErrNotCreateOnly) {
			t.Errorf("Create after the refusal: %v, want ErrNotCreateOnly", err)
		}
		if _, err := o.Read(ctx, "segments/k", 0, -1); !errors.Is(err, ErrNotExist) {
			t.Errorf("a Create refused wrote its object: %v", err)
		}
	})
	t.Run("down, then back", func(t *testing.T) {
		m := NewMemory()
		m.Fail = errors.New("the store is down")
		c := NewCreateOnly(m)
		if err := c.Check(ctx); err == nil || errors.Is(err, ErrNotCreateOnly) {
			t.Fatalf("Check while down: %v, want the store's failure", err)
		}
		if err := c.Create(ctx, "k", []byte("x")); err == nil || errors.Is(err, ErrNotCreateOnly) {
			t.Fatalf("Create while down: %v, want the store's failure", err)
		}
		m.Fail = nil
		if err := c.Create(ctx, "k", []byte("x")); err != nil {
			t.Fatalf("Create once the store is back: %v", err)
		}
		keys, _ := m.List(ctx, ProbePrefix)
		if len(keys) != 1 {
			t.Errorf("probe keys %q, want the one check that was made", keys)
		}
	})
}

// hanging is a store whose every call waits for its context to end.
type hanging struct{}

func (hanging) Create(ctx context.Context, key string, data []byte) error {
	<-ctx.Done()
	return ctx.Err()
}

func (hanging) Read(ctx context.Context, key string, off, n int64) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hanging) List(ctx context.Context, prefix string) ([]string, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hanging) Close() error { return nil }

// TestWithTimeout: each call to a store that hangs ends with a deadline
// error naming the call and its bound, though its caller gave none.
func TestWithTimeout(t *testing.T) {
	b := WithTimeout(hanging{}, 20*time.Millisecond)
	ctx := context.Background()
	calls := map[string]func() error{
		"create": func() error { return b.Create(ctx, "k", nil) },
		"read":   func() error { _, err := b.Read(ctx, "k", 0, -1); return err },
		"list":   func() error { _, err := b.List(ctx, "p"); return err },
	}
	for name, call := range calls {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "20ms") {
				t.Errorf("%s on a store that hangs: %v; want a deadline named", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s on a store that hangs has not returned in 10s", name)
		}
	}
}
