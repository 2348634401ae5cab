package run

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/nobody"
	"github.com/sabline/sabline/lang"
)

// accountChildEnv names the account home the child of
// TestGuardHoldsTheAccountHome judges its guard set at.
const accountChildEnv = "SABLINE_TEST_ACCOUNT_HOME"

// TestGuardHoldsTheAccountHome: for a user whose home in the user
// database lies outside /home and is not /root (a service account: man,
// postgres), started with HOME naming another place (a CI job's scratch
// directory), a run's guard still holds that home as a home: its SSH keys
// refused to a grant of the home, its dot-entries held out of the kernel's
// rules (the home expanded, Dots), and so does lang.DefaultGuard, an
// Interp's in the caller's process. It guarded HOME's alone: a run granted
// fs:read of the account home's parent printed ~/.ssh/id_ed25519, in the
// language and under Landlock. The controls: the same child with HOME at
// the account home, and a plain file of the home, which a grant of it
// reaches.
func TestGuardHoldsTheAccountHome(t *testing.T) {
	if home := os.Getenv(accountChildEnv); home != "" {
		g := Guard(nil, nil)
		_, ssh := g.Refuses(filepath.Join(home, ".ssh", "id_ed25519"), home)
		_, notes := g.Refuses(filepath.Join(home, "notes.txt"), home)
		expanded := false
		for _, c := range g.CarveOuts() {
			expanded = expanded || c.Path == guard.Resolved(home) && c.Expand && c.Dots
		}
		// An Interp without Config.Guard (the caller's process) guards it too.
		_, lang := lang.DefaultGuard().Refuses(filepath.Join(home, ".ssh", "id_ed25519"), home)
		os.Stdout.WriteString("ssh\t" + strconv.FormatBool(ssh) + "\nnotes\t" +
			strconv.FormatBool(notes) + "\nexpanded\t" + strconv.FormatBool(expanded) +
			"\nlang\t" + strconv.FormatBool(lang) + "\n")
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to start a child as another user")
	}
	uid, home := serviceAccount(t)
	t.Logf("the account: uid %d, home %s", uid, home)
	dir := nobody.Dir(t)
	own := filepath.Join(dir, "home") // the child's HOME, another place
	if err := os.Mkdir(own, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(own, uid, uid); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "run.test")
	testkit.CopyExecutable(t, exe, bin)
	for _, tc := range []struct{ name, home string }{
		{name: "HOME names another place", home: own},
		{name: "control: HOME is the account's home", home: home},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			cmd := exec.Command(bin, "-test.run=^TestGuardHoldsTheAccountHome$", "-test.count=1")
			cmd.Env = append(os.Environ(), accountChildEnv+"="+home, "HOME="+tc.home,
				"TMPDIR="+own, "SABLINE_TEST_APART=")
			cmd.Dir = own
			cmd.Stdout, cmd.Stderr = &out, &errb
			cmd.SysProcAttr = &syscall.SysProcAttr{
				Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
			if err := cmd.Run(); err != nil {
				t.Fatalf("the child as uid %d: %v\n%s%s", uid, err, out.String(), errb.String())
			}
			said := map[string]string{}
			for _, line := range strings.Split(out.String(), "\n") {
				if k, v, ok := strings.Cut(line, "\t"); ok {
					said[k] = v
				}
			}
			if said["ssh"] != "true" || said["expanded"] != "true" || said["lang"] != "true" {
				t.Errorf("uid %d, HOME=%s: %s/.ssh/id_ed25519 refused %s (lang.DefaultGuard: %s), "+
					"the home expanded without its dot-entries %s; want each true (the child "+
					"said %q)", uid, tc.home, home, said["ssh"], said["lang"], said["expanded"],
					out.String())
			}
			if said["notes"] != "false" {
				t.Errorf("uid %d: %s/notes.txt refused to a grant of the home: %s, want false",
					uid, home, said["notes"])
			}
		})
	}
}

// serviceAccount is the uid and home of an account of /etc/passwd whose
// home is a directory it owns, outside /home and not /root or /: one a
// run guards only as the account's. The test is skipped where none is.
func serviceAccount(t *testing.T) (int, string) {
	t.Helper()
	f, err := os.Open("/etc/passwd")
	if err != nil {
		t.Skipf("no /etc/passwd to find a service account in: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 7 {
			continue
		}
		uid, err := strconv.Atoi(fields[2])
		home := filepath.Clean(fields[5])
		if err != nil || uid == 0 || !filepath.IsAbs(home) || home == "/" || home == "/root" ||
			guard.Within(home, "/home") {
			continue
		}
		fi, err := os.Stat(home)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
			return uid, home
		}
	}
	t.Skip("no account in /etc/passwd has a home of its own outside /home (and not /root or /)")
	return 0, ""
}
