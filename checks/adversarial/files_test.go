package adversarial_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sabline/sabline/confine/core"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/checks/internal/escape"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// fileTarget is a read that must be refused, by the language on the
// normal build (E302) and by Landlock on the knock-out build (EACCES),
// and its control, a read the same budget grants, which goes through on
// both.
type fileTarget struct {
	setup   func(s *escape.Scratch) error // nil for the scratch world as it is made
	budget  string
	attempt string // a program
	control string // a program
}

// read is a program that reads path and prints RESULT ok.
func read(path string) string {
	return "data = fs.read(" + path + ")\nprint(\"RESULT ok bytes=%d\" % len(data))\n"
}

// links makes symbolic links in the scratch world: each key, beneath
// $GRANT, points at its value, in which $GRANT and $OUTSIDE are expanded.
func links(pairs map[string]string) func(s *escape.Scratch) error {
	return func(s *escape.Scratch) error {
		for name, target := range pairs {
			target, err := s.Expand(target)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, filepath.Join(s.Grant, name)); err != nil {
				return err
			}
		}
		return nil
	}
}

var _ = DescribeTable("file targets: refused by the language and by the kernel, while the control goes through",
	func(t fileTarget) {
		landlockOnly()
		for _, b := range []struct {
			bin, want string
		}{{bins.Normal, "E302"}, {bins.Knockout, "EACCES"}} {
			for _, p := range []struct {
				program, want string
			}{{t.attempt, b.want}, {t.control, escape.Went}} {
				s := newScratch("file")
				if t.setup != nil {
					Expect(t.setup(s)).To(Succeed())
				}
				r := run(s, b.bin, t.budget, nil, p.program)
				Expect(result(r)).To(Equal(p.want), "%s\n%s%s", filepath.Base(b.bin), r.Stdout, r.Stderr)
			}
		}
	},
	Entry(".. climbing out of the grant", fileTarget{
		budget:  "io,fs:read:$GRANT",
		attempt: read(`"$GRANT/../outside/secret.txt"`),
		control: read(`"$GRANT/sub/../data.txt"`),
	}),
	Entry("a path of 4,000 characters that climbs out at its end", fileTarget{
		budget:  "io,fs:read:$GRANT",
		attempt: read(`"$GRANT/" + "sub/../" * 600 + "../outside/secret.txt"`),
		control: read(`"$GRANT/" + "sub/../" * 600 + "data.txt"`),
	}),
	Entry("a symbolic link inside the grant to a file outside it", fileTarget{
		setup:   links(map[string]string{"inner": "$GRANT/data.txt"}),
		budget:  "io,fs:read:$GRANT",
		attempt: read(`"$GRANT/link"`),
		control: read(`"$GRANT/inner"`),
	}),
	Entry("a chain of links that leaves the grant at its last hop", fileTarget{
		setup: links(map[string]string{
			"hop1": "$GRANT/hop2", "hop2": "$OUTSIDE/secret.txt",
			"in1": "$GRANT/in2", "in2": "$GRANT/data.txt",
		}),
		budget:  "io,fs:read:$GRANT",
		attempt: read(`"$GRANT/hop1"`),
		control: read(`"$GRANT/in1"`),
	}),
	Entry("a linked directory inside the grant that leads outside", fileTarget{
		setup:   links(map[string]string{"door": "$OUTSIDE", "room": "$GRANT/sub"}),
		budget:  "io,fs:read:$GRANT",
		attempt: read(`"$GRANT/door/secret.txt"`),
		control: read(`"$GRANT/room/keep.txt"`),
	}),
	Entry("a newline in a grant: the directory named with it is granted, its namesake without is not", fileTarget{
		setup: func(s *escape.Scratch) error {
			for _, dir := range []string{"a\nb", "a"} {
				if err := os.MkdirAll(filepath.Join(s.Grant, dir), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(s.Grant, dir, "f.txt"), []byte(dir), 0o644); err != nil {
					return err
				}
			}
			return nil
		},
		budget:  "io,fs:read:$GRANT/a\nb",
		attempt: read(`"$GRANT/a/f.txt"`),
		control: read(`"$GRANT/a\nb/f.txt"`),
	}),
)

var _ = Describe("a store named through a link that climbs out of another link", func() {
	// store -> x/../realstore, x -> deep/d: the kernel takes store to
	// deep/realstore, where the guard must hold it, not to realstore
	// beside x, where the text of the target reads.
	It("is held where the kernel goes, by the language and by the kernel, while a write beside it goes through", func() {
		landlockOnly()
		const plant = "fs.write(\"$GRANT/%s/planted.json\", \"{}\")\nprint(\"RESULT ok\")\n"
		for _, b := range []struct {
			bin, want string
		}{{bins.Normal, "E318"}, {bins.Knockout, "EACCES"}} {
			for _, p := range []struct {
				dir, want string
			}{{"deep/realstore", b.want}, {"sub", escape.Went}} {
				s := newScratch("dotdot-store")
				for _, d := range []string{"deep/d", "deep/realstore"} {
					Expect(os.MkdirAll(filepath.Join(s.Grant, d), 0o755)).To(Succeed())
				}
				Expect(links(map[string]string{"x": "$GRANT/deep/d", "store": "x/../realstore"})(s)).
					To(Succeed())
				r := run(s, b.bin, "io,fs:read:$GRANT,fs:write:$GRANT",
					[]string{"--receipts", filepath.Join(s.Grant, "store")}, fmt.Sprintf(plant, p.dir))
				Expect(result(r)).To(Equal(p.want), "%s %s\n%s%s", filepath.Base(b.bin), p.dir, r.Stdout, r.Stderr)
				_, err := os.Lstat(filepath.Join(s.Grant, p.dir, "planted.json"))
				Expect(err == nil).To(Equal(p.want == escape.Went), "planted.json in %s: %v", p.dir, err)
			}
		}
	})
})

var _ = Describe("file targets the grants let through, as documented", func() {
	It("reads through a hard link planted in the grant before the run: a hard link is a name beneath the grant", func() {
		for _, bin := range []string{bins.Normal, bins.Knockout} {
			s := newScratch("hardlink")
			Expect(os.Link(filepath.Join(s.Outside, "secret.txt"), filepath.Join(s.Grant, "hard"))).To(Succeed())
			r := run(s, bin, "io,fs:read:$GRANT", nil, read(`"$GRANT/hard"`))
			Expect(result(r)).To(Equal(escape.Went), "%s%s", r.Stdout, r.Stderr)
		}
	})

	It("follows a granted directory swapped for a link between two runs: a grant is the path as it resolves when the run starts", func() {
		for _, bin := range []string{bins.Normal, bins.Knockout} {
			s := newScratch("swap-between")
			Expect(os.WriteFile(filepath.Join(s.Outside, "data.txt"), []byte("outside\n"), 0o644)).To(Succeed())
			program := "print(\"RESULT ok \" + fs.read(\"$GRANT/data.txt\").strip())\n"
			first := run(s, bin, "io,fs:read:$GRANT", nil, program)
			Expect(first.Stdout).To(ContainSubstring("RESULT ok data the budget grants"), first.Stderr)
			swap(s)
			second := run(s, bin, "io,fs:read:$GRANT", nil, program)
			Expect(second.Stdout).To(ContainSubstring("RESULT ok outside"), second.Stderr)
		}
	})
})

// swap moves the granted directory aside and puts a link to $OUTSIDE in
// its place.
func swap(s *escape.Scratch) {
	GinkgoHelper()
	Expect(os.Rename(s.Grant, s.Grant+".moved")).To(Succeed())
	Expect(os.Symlink(s.Outside, s.Grant)).To(Succeed())
}

var _ = Describe("a granted directory swapped for a link while the program runs", func() {
	// The program reads the grant, says READY and waits for a line; the
	// check swaps the directory for a link to $OUTSIDE, which holds a
	// data.txt of its own, and answers; the program reads the same path
	// again.
	const program = `print("BEFORE " + fs.read("$GRANT/data.txt").strip())
print("READY")
io.read_line()
print("RESULT ok " + fs.read("$GRANT/data.txt").strip())
`
	for _, b := range []struct {
		name, want string
		knockout   bool
	}{
		{"is refused by the language on the normal build, which resolved the grant when the run started", "E302", false},
		{"is refused by Landlock on the knock-out build, whose rule holds the directory it was given", "EACCES", true},
	} {
		It(b.name, func() {
			landlockOnly()
			bin := bins.Normal
			if b.knockout {
				bin = bins.Knockout
			}
			s := newScratch("swap-during")
			Expect(os.WriteFile(filepath.Join(s.Outside, "data.txt"), []byte("outside\n"), 0o644)).To(Succeed())
			cmd, err := s.Command(bin, "io,fs:read:$GRANT", nil, program)
			Expect(err).NotTo(HaveOccurred())
			stdin, err := cmd.StdinPipe()
			Expect(err).NotTo(HaveOccurred())
			stdout, err := cmd.StdoutPipe()
			Expect(err).NotTo(HaveOccurred())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			Expect(cmd.Start()).To(Succeed())
			var out strings.Builder
			lines := bufio.NewScanner(stdout)
			for lines.Scan() {
				out.WriteString(lines.Text() + "\n")
				if lines.Text() == "READY" {
					swap(s)
					_, err := stdin.Write([]byte("go\n"))
					Expect(err).NotTo(HaveOccurred())
					stdin.Close()
				}
			}
			exit := 0
			if err := cmd.Wait(); err != nil {
				exit = cmd.ProcessState.ExitCode()
			}
			r := escape.Parse(out.String(), stderr.String(), exit)
			Expect(r.Stdout).To(ContainSubstring("BEFORE data the budget grants\nREADY\n"), "the control, before the swap\n%s", r.Stderr)
			Expect(result(r)).To(Equal(b.want), "%s%s", r.Stdout, r.Stderr)
		})
	}
})

var _ = Describe("grants the command line cannot carry, or that name nothing yet", func() {
	It("refuses a NUL in a grant as a usage error (E301): no path can hold one", func() {
		// A command line cannot carry a NUL, so the grant comes from the
		// program's declared budget, which sabline audit reads.
		s := newScratch("nul")
		prog := filepath.Join(s.Work, "nul.vel")
		Expect(os.WriteFile(prog, []byte("# allow: io,fs:read:/srv/a\x00b\nprint(1)\n"), 0o644)).To(Succeed())
		for _, bin := range []string{bins.Normal, bins.Knockout} {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "audit", prog)
			cmd.Stderr = &stderr
			err := cmd.Run()
			Expect(err).To(HaveOccurred())
			Expect(cmd.ProcessState.ExitCode()).To(Equal(codes.ExitUsage))
			Expect(stderr.String()).To(ContainSubstring("E301"))
			Expect(stderr.String()).To(ContainSubstring("contains a NUL byte"))
		}
	})

	It("holds a grant of a missing directory beneath the nearest one that exists, and says the level is partial", func() {
		landlockOnly()
		const budget = "io,fs:read:$GRANT/missing/deeper"
		for _, b := range []struct {
			bin             string
			besideMissing   string // reading $GRANT/data.txt, beside the missing directory
			outsideTheGrant string // reading $OUTSIDE/secret.txt
		}{
			{bins.Normal, "E302", "E302"},
			{bins.Knockout, escape.Went, "EACCES"},
		} {
			for _, p := range []struct{ path, want string }{
				{`"$GRANT/data.txt"`, b.besideMissing},
				{`"$OUTSIDE/secret.txt"`, b.outsideTheGrant},
			} {
				s := newScratch("missing")
				r := run(s, b.bin, budget, nil, read(p.path))
				Expect(result(r)).To(Equal(p.want), "%s: %s%s", p.path, r.Stdout, r.Stderr)
				runs, err := receipt.List(filepath.Join(s.Base, "receipts"))
				Expect(err).NotTo(HaveOccurred())
				Expect(runs).To(HaveLen(1))
				params := runs[0].RunParameters
				Expect(params.Confinement).To(Equal(core.Partial))
				Expect(params.ConfinementReason).To(ContainSubstring(filepath.Join(s.Grant, "missing", "deeper") + " does not exist yet"))
			}
		}
	})
})
