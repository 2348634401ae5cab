package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// agentEnv makes the test binary a store agent over a Memory bucket (see
// TestMain); its value "die" makes it exit at its first request.
const agentEnv = "SABLINE_BUCKET_TEST_AGENT"

func TestMain(m *testing.M) {
	switch os.Getenv(agentEnv) {
	case "memory":
		if err := ServeAgent(context.Background(), os.Stdin, os.Stdout, NewMemory()); err != nil {
			fmt.Fprintln(os.Stderr, "agent:", err)
			os.Exit(2)
		}
		os.Exit(0)
	case "talk":
		// what a store's library can write on the agent's standard error
		fmt.Fprint(os.Stderr, "SDK WARN the store said \x1b[2J\u202e\nsabline serve: listening\n")
		_ = ServeAgent(context.Background(), os.Stdin, os.Stdout, NewMemory())
		fmt.Fprint(os.Stderr, "panic: a last line without its end")
		os.Exit(2)
	case "die":
		var b [1]byte
		os.Stdin.Read(b[:])
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func startTestAgent(t *testing.T, mode string) *Agent {
	t.Helper()
	return startTestAgentLogging(t, mode, os.Stderr)
}

// startTestAgentLogging starts the test binary as an agent in mode, its
// standard error written to stderr.
func startTestAgentLogging(t *testing.T, mode string, stderr io.Writer) *Agent {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(agentEnv, mode)
	a, err := StartAgent(exe, "mem://", stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestAgent: through the agent, an object is created once and a second
// create of its key is refused (ErrExist) and changes nothing; a range
// reads the bytes asked for; a missing object is ErrNotExist; a list
// gives the keys of its prefix in order, a key with a line's end in it
// whole; calls in flight together each get their own reply.
func TestAgent(t *testing.T) {
	ctx := context.Background()
	for _, b := range []struct {
		name string
		b    Bucket
	}{{"memory", NewMemory()}, {"agent", startTestAgent(t, "memory")}} {
		t.Run(b.name, func(t *testing.T) {
			if err := b.b.Create(ctx, "s/r1/1", []byte("hello, world")); err != nil {
				t.Fatal(err)
			}
			if err := b.b.Create(ctx, "s/r1/1", []byte("other")); !errors.Is(err, ErrExist) {
				t.Errorf("a second create of a key: %v, want ErrExist", err)
			}
			if got, err := b.b.Read(ctx, "s/r1/1", 0, -1); err != nil || string(got) != "hello, world" {
				t.Errorf("read after the refused create = %q, %v; want the first bytes", got, err)
			}
			if got, err := b.b.Read(ctx, "s/r1/1", 7, 5); err != nil || string(got) != "world" {
				t.Errorf("read 7+5 = %q, %v; want world", got, err)
			}
			if got, err := b.b.Read(ctx, "s/r1/1", 7, 100); err != nil || string(got) != "world" {
				t.Errorf("read past the end = %q, %v; want world", got, err)
			}
			if _, err := b.b.Read(ctx, "s/r1/9", 0, -1); !errors.Is(err, ErrNotExist) {
				t.Errorf("read of a missing object: %v, want ErrNotExist", err)
			}
			errs := make(chan error, 20)
			for i := range 20 {
				go func() {
					key := fmt.Sprintf("s/r2/%02d", i)
					if err := b.b.Create(ctx, key, bytes.Repeat([]byte{byte(i)}, i)); err != nil {
						errs <- err
						return
					}
					got, err := b.b.Read(ctx, key, 0, -1)
					if err == nil && !bytes.Equal(got, bytes.Repeat([]byte{byte(i)}, i)) {
						err = fmt.Errorf("%s read back %v", key, got)
					}
					errs <- err
				}()
			}
			for range 20 {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			keys, err := b.b.List(ctx, "s/r2/")
			if err != nil || len(keys) != 20 || keys[0] != "s/r2/00" || keys[19] != "s/r2/19" {
				t.Errorf("list s/r2/ = %v, %v; want the 20 keys in order", keys, err)
			}
			if keys, err := b.b.List(ctx, "none/"); err != nil || len(keys) != 0 {
				t.Errorf("list of an empty prefix = %v, %v", keys, err)
			}
			// A key is the store's, any bytes: one with a line's end in it
			// is listed as one key, not two that name no object.
			odd := "s/r3/a\nreceipts/r1/0123456789abcdef/00000099.journal"
			if err := b.b.Create(ctx, odd, []byte("odd")); err != nil {
				t.Fatal(err)
			}
			if keys, err := b.b.List(ctx, "s/r3/"); err != nil || len(keys) != 1 || keys[0] != odd {
				t.Errorf("list s/r3/ = %q, %v; want the one key %q", keys, err, odd)
			}
		})
	}
}

// TestAgentEnds: a call to an agent that ended is an error, not a wait,
// and so is every call after it; Done is closed and Err says why; a
// closed agent refuses calls.
func TestAgentEnds(t *testing.T) {
	a := startTestAgent(t, "die")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Create(ctx, "k", []byte("v")); err == nil || !strings.Contains(err.Error(), "ended") {
		t.Fatalf("a call to an agent that exits: %v, want an error saying it ended", err)
	}
	select {
	case <-a.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed once the agent ended")
	}
	if err := a.Err(); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("Err = %v, want the agent's exit", err)
	}
	if _, err := a.List(ctx, ""); err == nil {
		t.Error("a call after the agent ended succeeded")
	}
	b := startTestAgent(t, "memory")
	b.Close()
	if err := b.Create(ctx, "k2", nil); !errors.Is(err, errClosed) {
		t.Errorf("a call after Close: %v, want errClosed", err)
	}
	if err := b.Err(); err != nil {
		t.Errorf("Err after Close = %v, want nil", err)
	}
}

// TestAgentsWordsAreItsOwn: what the agent's process writes on its
// standard error, its own or a library's, and a last line it did not
// end, reaches the caller's log each as a line begun with the agent's
// name, escaped; the agent serves meanwhile (the control).
func TestAgentsWordsAreItsOwn(t *testing.T) {
	var log bytes.Buffer
	a := startTestAgentLogging(t, "talk", &log)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Create(ctx, "k", []byte("v")); err != nil {
		t.Fatalf("a call to the agent: %v", err)
	}
	a.Close()
	want := "sabline-store: SDK WARN the store said \\x1b[2J\\u202e\n" +
		"sabline-store: sabline serve: listening\n" +
		"sabline-store: panic: a last line without its end\n"
	if got := log.String(); got != want {
		t.Errorf("the caller's log got %q; want %q", got, want)
	}
}

// TestMessageBounds: a message part over its bound is refused before it
// is read, and a stream cut short is an error.
func TestMessageBounds(t *testing.T) {
	var buf bytes.Buffer
	buf.Write([]byte{0xff, 0xff, 0xff, 0xff})
	if _, err := readMessage(&buf, &reply{}); err == nil || !strings.Contains(err.Error(), "over the bound") {
		t.Errorf("a header of 4 GiB: %v", err)
	}
	buf.Reset()
	if err := writeMessage(&buf, reply{ID: 1}, []byte("body")); err != nil {
		t.Fatal(err)
	}
	cut := buf.Bytes()[:buf.Len()-1]
	if _, err := readMessage(bytes.NewReader(cut), &reply{}); err == nil {
		t.Error("a message cut short read without error")
	}
	if err := writeMessage(&buf, reply{}, make([]byte, MaxObjectBytes+1)); err == nil {
		t.Error("a body over MaxObjectBytes was written")
	}
}
