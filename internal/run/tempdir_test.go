package run

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/sabline/sabline/receipt"
)

// TestRunsDirMadeBeneathItsBaseOnly: a runs directory is made with the
// directories above it only up to its place's base, which must be there:
// a TMPDIR or a cache directory that names a place that is not is passed
// over, and nothing is made there; the next place is taken. The control:
// a base that is there has the runs directory made beneath it, with the
// directories between.
func TestRunsDirMadeBeneathItsBaseOnly(t *testing.T) {
	root := t.TempDir()
	gone := filepath.Join(root, "gone")
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	there := filepath.Join(root, "there")
	if err := os.Mkdir(there, 0o700); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(there, "cache", "sabline", "runs")
	got, err := firstRunsDir([]runsPlace{
		{gone, filepath.Join(gone, "sabline-runs-0")},
		{file, filepath.Join(file, "sabline-runs-0")},
		{there, want},
	})
	if err != nil || got != want {
		t.Fatalf("firstRunsDir: %q, %v; want %q", got, err, want)
	}
	if fi, err := os.Stat(want); err != nil || !fi.IsDir() {
		t.Errorf("%s: %v, want a directory", want, err)
	}
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it never made", gone, err)
	}

	_, err = firstRunsDir([]runsPlace{{gone, filepath.Join(gone, "sabline-runs-0")}})
	if err == nil || !strings.Contains(err.Error(), gone+" is not a directory") {
		t.Errorf("firstRunsDir with no base there: %v, want a refusal naming %s", err, gone)
	}
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it never made", gone, err)
	}
}

// TestRunsDirNotUTF8: with a cache directory whose path is not UTF-8
// (XDG_CACHE_HOME=c\xe9), the runs directory was made in it, and each
// worker was handed its temporary directory in a JSON string, where the
// byte became U+FFFD: the program's TMPDIR named a directory in
// c\ufffd, which is not there (nor was its crash file, nor the kernel's
// rule for it). Such a place is passed over now for the next, the
// system's temporary directory. The control: a cache directory named in
// UTF-8 holds the runs directory, and the TMPDIR a program is given lies
// in it.
func TestRunsDirNotUTF8(t *testing.T) {
	kept := runsDir
	t.Cleanup(func() { runsDir = kept })
	for _, name := range []string{"c\xe9", "control: cache"} {
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			cache, tmp := filepath.Join(work, strings.TrimPrefix(name, "control: ")),
				filepath.Join(work, "tmp")
			for _, d := range []string{cache, tmp} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Skipf("this file system takes no name %q: %v", d, err)
				}
			}
			runsDir = sync.OnceValues(func() (string, error) { // as runsDirs names them
				return firstRunsDir([]runsPlace{{work, filepath.Join(cache, "sabline", "runs")},
					{tmp, filepath.Join(tmp, "sabline-runs-0")}})
			})
			s := superviseProgram(t, `print(env.get("TMPDIR"))`, []string{"io", "env"}, nil)
			got := strings.TrimSuffix(s.stdout, "\n")
			// From outside: the directory the program was told is its own
			// lies in one on the disk, once the run has ended.
			fi, err := os.Stat(filepath.Dir(got))
			t.Logf("outcome %s %q; TMPDIR %q: the directory above it: %v", s.rec.Outcome.Status,
				s.rec.Outcome.Message, got, err)
			if s.rec.Outcome.Status != receipt.StatusOK || err != nil || !fi.IsDir() {
				t.Fatalf("the program's TMPDIR %q lies in no directory there: %v", got, err)
			}
			want := cache
			if !utf8.ValidString(cache) {
				want = tmp
			}
			if !strings.HasPrefix(got, want+string(filepath.Separator)) {
				t.Fatalf("TMPDIR %q, want it beneath %q", got, want)
			}
		})
	}
}
