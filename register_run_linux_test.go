package sabline_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// TestRunJoinsItsReceiptsDirectory: the receipts directory a sabline.Run
// makes joins the register, as a store's and a command line's do, so that
// a run of another Sabline on the machine, granted a directory above it,
// plants nothing there: the language refuses it (E318) and, through a
// host module's own I/O, the kernel (E319). It never joined: both
// plants went through, each witness read from outside the worker. The
// control, a register the first run never joined, plants both.
func TestRunJoinsItsReceiptsDirectory(t *testing.T) {
	shared, top, store := joinFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := sabline.Run(ctx, sabline.Program{Path: filepath.Join(top, "hello.vel"),
		Source: []byte(hello)}, sabline.Options{Budget: budget.MustParse(top, "io"), Receipts: store,
		Cwd: top})
	if err != nil || res.Err() != nil {
		t.Fatalf("the other Sabline's run: %v, %v", err, res.Err())
	}
	attacks := []struct{ name, src, want string }{
		{name: "the language", src: "fs.write(ARGS[0], \"{}\")\n", want: "E318"},
		{name: "the kernel", src: "ffi.module(\"pathlib\").write_text(ARGS[0], \"{}\")\n",
			want: "E319"},
	}
	planted := func(tag string, i int) string {
		return filepath.Join(store, tag+"-planted-"+attacks[i].want+".json")
	}
	attack := func(t *testing.T, register, tag string) []error {
		t.Setenv(guard.RegisterEnv, register)
		var errs []error
		for i, a := range attacks {
			res, err := sabline.Run(ctx, sabline.Program{Path: filepath.Join(top, "plant.vel"),
				Source: []byte(a.src)}, sabline.Options{
				Budget:   budget.MustParse(top, "io,fs:read:"+top+",fs:write:"+top+",ffi:pathlib"),
				Receipts: filepath.Join(top, "own", "receipts"), Cwd: top,
				Args: []string{planted(tag, i)}})
			if err == nil {
				err = res.Err()
			}
			errs = append(errs, err)
		}
		return errs
	}
	t.Run("joined", func(t *testing.T) {
		for i, err := range attack(t, shared, "joined") {
			if code := codes.CodeOf(err); code != codes.Code(attacks[i].want) {
				t.Errorf("%s: %v (%s); want it refused, %s", attacks[i].name, err, code,
					attacks[i].want)
			}
			if _, err := os.Lstat(planted("joined", i)); err == nil {
				t.Errorf("%s: %s was planted", attacks[i].name, planted("joined", i))
			}
		}
	})
	t.Run("control: a register it never joined", func(t *testing.T) {
		other := testkit.NewRegister(t)
		for i, err := range attack(t, other, "control") {
			if _, serr := os.Lstat(planted("control", i)); serr != nil {
				t.Errorf("%s: nothing was planted (%v): the test proves nothing", attacks[i].name,
					err)
			}
		}
	})
	if got, err := guard.ReadRegister(shared); err != nil ||
		!strings.Contains(strings.Join(got.Paths, "\n"), store) {
		t.Errorf("the register holds %q (%v), want %s among its paths", got.Paths, err, store)
	}
}

// TestRunJoinsItsReceiptsDirectoryAgain: a receipts directory a run made
// joins the register again where an earlier run of this process had
// joined it, since it was removed and its entry pruned, and a directory
// joins each register its runs name (SABLINE_REGISTER), not only the
// first. Either was left out of the register, so that another Sabline's
// run granted a directory above it reached it: each is judged from the
// register's entries on disk. The controls: the entry there after the
// first run, and gone after the prune.
func TestRunJoinsItsReceiptsDirectoryAgain(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(t *testing.T, register, store string) {
		t.Helper()
		t.Setenv(guard.RegisterEnv, register)
		res, err := sabline.Run(ctx, sabline.Program{Path: filepath.Join(top, "hello.vel"),
			Source: []byte(hello)}, sabline.Options{Budget: budget.MustParse(top, "io"),
			Receipts: store, Cwd: top})
		if err != nil || res.Err() != nil {
			t.Fatalf("the run: %v, %v", err, res.Err())
		}
	}
	holds := func(t *testing.T, register, store string) bool {
		t.Helper()
		got, err := guard.ReadRegister(register)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(got.Paths, store)
	}
	t.Run("made again after its entry was pruned", func(t *testing.T) {
		reg, store := testkit.NewRegister(t), filepath.Join(top, "again", "receipts")
		run(t, reg, store)
		if !holds(t, reg, store) {
			t.Fatalf("the control: the register %s does not hold %s after the first run", reg,
				store)
		}
		if err := os.RemoveAll(filepath.Dir(store)); err != nil {
			t.Fatal(err)
		}
		// A join that adds an entry prunes those that name nothing now.
		if err := guard.Join(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		if holds(t, reg, store) {
			t.Fatalf("the control: the register %s holds %s after the prune", reg, store)
		}
		run(t, reg, store)
		if !holds(t, reg, store) {
			t.Errorf("the register %s does not hold %s, made again by a run", reg, store)
		}
	})
	t.Run("a second register", func(t *testing.T) {
		first, second := testkit.NewRegister(t), testkit.NewRegister(t)
		store := filepath.Join(top, "two", "receipts")
		run(t, first, store)
		run(t, second, store)
		for _, reg := range []string{first, second} {
			if !holds(t, reg, store) {
				t.Errorf("the register %s does not hold %s, a run's receipts directory", reg,
					store)
			}
		}
	})
}

// TestRunJoinsItsReceiptsDirectoryMadeAgain: a receipts directory this
// process's runs made known to the register, then removed (its entry
// pruned by the next Join that found it missing) and made again by
// another process, is made known again by the next run that keeps a
// receipt there, so that a run of another Sabline granted a directory
// above it plants nothing there (E318). It was joined once a process:
// the run made nothing, so it joined nothing, and the plant went through,
// the witness read from outside the worker. The control: before the
// directory is removed, the register names it and the plant is refused.
func TestRunJoinsItsReceiptsDirectoryMadeAgain(t *testing.T) {
	shared, top, store := joinFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	keep := func(t *testing.T) {
		t.Helper()
		res, err := sabline.Run(ctx, sabline.Program{Path: filepath.Join(top, "hello.vel"),
			Source: []byte(hello)}, sabline.Options{Budget: budget.MustParse(top, "io"),
			Receipts: store, Cwd: top})
		if err != nil || res.Err() != nil {
			t.Fatalf("the run that keeps its receipt in %s: %v, %v", store, err, res.Err())
		}
	}
	known := func() bool {
		got, err := guard.ReadRegister(shared)
		return err == nil && slices.Contains(got.Paths, store)
	}
	plant := func(t *testing.T, tag string) (error, bool) {
		t.Helper()
		witness := filepath.Join(store, tag+"-planted.json")
		res, err := sabline.Run(ctx, sabline.Program{Path: filepath.Join(top, "plant.vel"),
			Source: []byte("fs.write(ARGS[0], \"{}\")\n")}, sabline.Options{
			Budget:   budget.MustParse(top, "io,fs:write:"+top),
			Receipts: filepath.Join(top, "own", "receipts"), Cwd: top, Args: []string{witness}})
		if err == nil {
			err = res.Err()
		}
		_, serr := os.Lstat(witness)
		return err, serr == nil
	}
	keep(t)
	t.Run("control: joined", func(t *testing.T) {
		if !known() {
			t.Fatalf("the register does not name %s after a run kept its receipt there", store)
		}
		if err, planted := plant(t, "control"); planted || codes.CodeOf(err) != codes.E318 {
			t.Fatalf("the plant: %v, planted %v; want E318, nothing planted", err, planted)
		}
	})
	if err := os.RemoveAll(store); err != nil {
		t.Fatal(err)
	}
	// The next Join that adds an entry prunes the one whose path is gone.
	if err := guard.Join(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if known() {
		t.Fatalf("the register still names %s, removed: the prune the test relies on did not "+
			"happen", store)
	}
	if err := os.MkdirAll(store, 0o700); err != nil { // another process's
		t.Fatal(err)
	}
	keep(t)
	if !known() {
		t.Errorf("the register does not name %s, made again, after a run kept its receipt there",
			store)
	}
	if err, planted := plant(t, "again"); planted || codes.CodeOf(err) != codes.E318 {
		t.Errorf("the plant in the directory made again: %v, planted %v; want E318, nothing "+
			"planted", err, planted)
	}
}

// joinFixture skips t, saying why, where the kernel has no Landlock, and
// makes a register of t's own (set for the runs t starts), a directory
// top and the path of a receipts directory beneath it, not made.
func joinFixture(t *testing.T) (shared, top, store string) {
	t.Helper()
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	shared = testkit.NewRegister(t)
	t.Setenv(guard.RegisterEnv, shared)
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return shared, top, filepath.Join(top, "other", "receipts")
}
