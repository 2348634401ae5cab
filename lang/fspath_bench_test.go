package lang

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
)

// BenchmarkFileEffect measures one file effect on a warm file, judged and
// done, side by side in one loop: "before", the check as it was (the path
// string resolved by hand with lstat, then the effect on the resulting
// string), and "after", the walk of fspath.go. Each iteration runs both in
// turn, so the ratio is taken under the same load. The file lies in a
// granted directory (narrow) or under a broad grant, named by a relative
// path (the working directory) or an absolute one.
func BenchmarkFileEffect(b *testing.B) {
	for _, bc := range []struct {
		name, grant, path string
		write             bool
	}{
		{name: "read/narrow/relative", grant: "fs:read:$G", path: "data.txt"},
		{name: "read/narrow/absolute", grant: "fs:read:$G", path: "$G/sub/data.txt"},
		{name: "read/broad/absolute", grant: "fs:read", path: "$G/sub/data.txt"},
		{name: "write/narrow/relative", grant: "fs:write:$G", path: "data.txt", write: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			g, err := filepath.EvalSymlinks(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			for _, p := range []string{filepath.Join(g, "data.txt"), filepath.Join(g, "sub", "data.txt")} {
				must(b, os.MkdirAll(filepath.Dir(p), 0o755))
				must(b, os.WriteFile(p, []byte("warm data\n"), 0o644))
			}
			p := strings.ReplaceAll(bc.path, "$G", g)
			in := NewInterp(Config{Budget: budget.MustParse(g, strings.ReplaceAll(bc.grant, "$G", g)), Cwd: g,
				Guard: guardOf(filepath.Join(g, "home")), Stdout: &bytes.Buffer{}, Stdin: strings.NewReader("")})
			legacy := legacyInterp(in)
			before := func() error {
				if bc.write {
					return legacy.write(budget.Write, p, "warm data\n")
				}
				return legacy.read(p)
			}
			after := func() error {
				var err error
				if bc.write {
					_, err = in.fsWrite("fs.write", p, "warm data\n", os.O_TRUNC)
				} else {
					_, err = in.fsRead("fs.read", p)
				}
				return err
			}
			for _, f := range []func() error{before, after} { // warm, and fail early
				must(b, f())
			}
			var tb, ta time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := before(); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := after(); err != nil {
					b.Fatal(err)
				}
				tb, ta = tb+t1.Sub(t0), ta+time.Since(t1)
			}
			b.StopTimer()
			b.ReportMetric(float64(tb.Nanoseconds())/float64(b.N), "before-ns/effect")
			b.ReportMetric(float64(ta.Nanoseconds())/float64(b.N), "after-ns/effect")
			b.ReportMetric(float64(ta)/float64(tb), "after/before")
		})
	}
}

// legacy is the check as it was before the walk, kept here only as the
// benchmark's baseline: the program's path cleaned, its links resolved by
// hand with lstat, the result checked, and the effect done on that string.
type legacy struct{ in *Interp }

func legacyInterp(in *Interp) legacy { return legacy{in} }

func (l legacy) op(access budget.Access, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.in.cwd, p)
	}
	path := legacyResolve(filepath.Clean(p))
	return path, l.in.check(budget.Effect{Kind: budget.FS, Access: access, Path: path})
}

func (l legacy) read(p string) error {
	path, err := l.op(budget.Read, p)
	if err != nil {
		return err
	}
	_, err = os.ReadFile(path)
	return err
}

func (l legacy) write(access budget.Access, p, s string) error {
	path, err := l.op(access, p)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_TRUNC|os.O_WRONLY|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.WriteString(s)
		err = errors.Join(err, f.Close())
	}
	return err
}

// legacyResolve is the resolver the runtime used before the walk.
func legacyResolve(p string) string {
	vol := filepath.VolumeName(p)
	sep := string(filepath.Separator)
	todo := strings.Split(strings.TrimPrefix(p[len(vol):], sep), sep)
	cur := vol + sep
	for links := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, todo...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if links++; err != nil || links > maxLinks {
			return filepath.Join(append([]string{next}, todo...)...)
		}
		if filepath.IsAbs(target) {
			tvol := filepath.VolumeName(target)
			cur = tvol + sep
			target = target[len(tvol):]
		}
		todo = append(strings.Split(strings.TrimPrefix(target, sep), sep), todo...)
	}
	return cur
}
