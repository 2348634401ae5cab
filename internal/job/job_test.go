package job

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/lang"
)

// TestRun walks a job's turns: a program that compiles runs between the
// hooks, in order; a Compiled hook's error refuses it before its first
// statement (nothing printed); a compile error calls no hook.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.vel"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("refused by the hook")
	tests := []struct {
		name        string
		source      string
		refuse      bool
		wantOut     string
		wantTurns   []string
		wantStarted bool
		wantErr     error // nil, refuse, or errAny
	}{
		{name: "runs", source: `load("lib.vel", "x")` + "\nprint(x)\n", wantOut: "1\n",
			wantTurns: []string{"compiled", "running", "ended"}, wantStarted: true},
		{name: "refused by the hook", source: `print("never")`, refuse: true,
			wantTurns: []string{"compiled"}, wantErr: refuse},
		{name: "does not compile", source: "print(", wantErr: errAny},
		{name: "a name no one binds", source: "print(nowhere)", wantErr: errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			var turns []string
			cfg := lang.Config{Budget: budget.MustParse(dir, "io"), Cwd: dir, Stdout: &out}
			p := Program{Path: filepath.Join(dir, "main.vel"), Source: []byte(tt.source), Root: dir}
			ran, err := Run(cfg, p, Hooks{
				Compiled: func(*lang.Interp, *lang.Compiled) error {
					turns = append(turns, "compiled")
					if tt.refuse {
						return refuse
					}
					return nil
				},
				Running: func(*lang.Interp) func() {
					turns = append(turns, "running")
					return func() { turns = append(turns, "ended") }
				},
			})
			switch {
			case tt.wantErr == nil && err != nil, tt.wantErr == errAny && err == nil,
				tt.wantErr == refuse && !errors.Is(err, refuse):
				t.Fatalf("Run: %v, want %v", err, tt.wantErr)
			}
			if out.String() != tt.wantOut || !slices.Equal(turns, tt.wantTurns) {
				t.Errorf("printed %q, turns %q; want %q, %q", out.String(), turns, tt.wantOut, tt.wantTurns)
			}
			if ran.Started != tt.wantStarted || (len(ran.Files) > 0) != (tt.wantErr != errAny) {
				t.Errorf("started %v, %d files", ran.Started, len(ran.Files))
			}
			if tt.wantStarted && len(ran.Files) != 2 {
				t.Errorf("files %v, want the program and lib.vel", ran.Files)
			}
		})
	}
	// Every job compiles against one map of the predeclared names: none
	// of the jobs above changed it.
	if got := predeclaredNames(); !maps.Equal(got, lang.PredeclaredNames()) {
		t.Errorf("the predeclared names after the jobs: %v, want %v", got, lang.PredeclaredNames())
	}
}

// errAny stands for any error in TestRun.
var errAny = errors.New("any error")
