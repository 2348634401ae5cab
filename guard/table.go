package guard

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// named is one entry of the table of credential locations. A Path that
// begins with "/" is absolute; any other lies beneath every home. Its
// last component may be a pattern (path.Match).
type named struct {
	Path  string
	Holds string // what is kept there, for messages and the docs
}

// credentials is the one table of credential locations: the system's,
// outside any home, and those beneath every home. Every dot-entry of a
// home is out of reach anyway unless a grant names it (DotEntry); the
// entries beneath homes here are the ones that stay out of reach even
// then, because they hold secrets (a grant of ~/.config does not reach
// ~/.config/gh). docs/language.md renders it (Markdown).
var credentials = []named{
	{"/etc/shadow*", "local users' password hashes, and their backups"},
	{"/etc/gshadow*", "local groups' password hashes, and their backups"},
	{"/etc/security/opasswd", "users' former password hashes"},
	{"/etc/ssh/ssh_host_*_key", "the SSH server's private host keys"},
	{"/etc/ssl/private", "TLS private keys"},
	{"/etc/pki/tls/private", "TLS private keys (Red Hat's layout)"},
	{"/etc/letsencrypt", "ACME accounts and certificates' private keys"},
	{"/etc/krb5.keytab", "Kerberos service keys"},
	{"/etc/ipsec.secrets", "IPsec pre-shared keys and private keys"},
	{"/etc/ipsec.d/private", "IPsec private keys"},
	{"/etc/ppp/chap-secrets", "PPP passwords"},
	{"/etc/ppp/pap-secrets", "PPP passwords"},
	{"/etc/NetworkManager/system-connections", "Wi-Fi and VPN passwords"},
	{"/etc/wpa_supplicant", "Wi-Fi passwords"},
	{"/etc/kubernetes", "Kubernetes cluster keys and administrator credentials"},
	{"/etc/rancher", "k3s and RKE2 cluster credentials"},
	{"/var/lib/sss", "SSSD's cached credentials"},
	{"/run/secrets", "secrets a container runtime mounts"},
	{"/var/run/secrets", "service account tokens Kubernetes mounts"},
	{".ssh", "SSH keys and authorized_keys"},
	{".gnupg", "GnuPG keys"},
	{".password-store", "pass, the password store"},
	{".netrc", "passwords for FTP, curl, git over HTTP"},
	{".pgpass", "PostgreSQL passwords"},
	{".my.cnf", "MySQL passwords"},
	{".s3cfg", "S3 keys of s3cmd"},
	{".git-credentials", "git's stored credentials"},
	{".config/git/credentials", "git's stored credentials"},
	{".config/gh", "GitHub CLI tokens"},
	{".config/hub", "hub, GitHub tokens"},
	{".config/github-copilot", "GitHub Copilot tokens"},
	{".config/rclone", "rclone's remotes and their keys"},
	{".config/sops", "sops and age keys"},
	{".config/age", "age keys"},
	{".config/google-chrome", "Chrome's saved passwords and cookies"},
	{".config/chromium", "Chromium's saved passwords and cookies"},
	{".config/BraveSoftware", "Brave's saved passwords and cookies"},
	{".config/microsoft-edge", "Edge's saved passwords and cookies"},
	{".config/gcloud", "Google Cloud credentials"},
	{".config/openai", "OpenAI API keys"},
	{".local/share/keyrings", "GNOME keyrings"},
	{".local/share/kwalletd", "KDE wallets"},
	{".mozilla", "Firefox's saved passwords and cookies"},
	{".npmrc", "npm registry tokens"},
	{".pypirc", "PyPI upload credentials"},
	{".cargo/credentials", "crates.io token"},
	{".cargo/credentials.toml", "crates.io token"},
	{".gem/credentials", "RubyGems API key"},
	{".m2/settings.xml", "Maven repository passwords"},
	{".docker/config.json", "container registry logins"},
	{".kube", "Kubernetes cluster credentials"},
	{".aws", "AWS keys"},
	{".azure", "Azure CLI tokens"},
	{".oci", "Oracle Cloud keys"},
	{".vault-token", "HashiCorp Vault token"},
	{".terraform.d/credentials.tfrc.json", "Terraform Cloud tokens"},
	{".anthropic", "Anthropic API keys"},
	{".claude/.credentials.json", "Claude Code login"},
	{".codex/auth.json", "Codex CLI login"},
	{".cache/huggingface/token", "Hugging Face token"},
	{".huggingface/token", "Hugging Face token"},
	{".bitcoin", "Bitcoin wallets"},
	{".electrum", "Electrum wallets"},
	{".ethereum", "Ethereum keystores"},
	{".bash_history", "shell history, which holds what was typed, passwords too"},
	{".zsh_history", "shell history"},
	{".local/share/fish/fish_history", "shell history"},
	{".python_history", "Python's interactive history"},
	{".psql_history", "psql's history"},
	{".mysql_history", "the MySQL client's history"},
	{"Library/Keychains", "macOS keychains"},
	{"Library/Cookies", "macOS cookies"},
	{"Library/Application Support/Google/Chrome", "Chrome's saved passwords and cookies on macOS"},
	{"Library/Application Support/Firefox", "Firefox's saved passwords and cookies on macOS"},
}

// kernelSurfaces are the kernel's own files: never a file to a program.
// Devices is the one that keeps a few of its entries reachable.
var kernelSurfaces = []struct {
	Path    string
	Holds   string
	Allowed []string
	OS      []string // the systems it exists on
}{
	{"/proc", "the kernel's view of processes and its settings (/proc/sys)", nil, []string{"linux"}},
	{"/sys", "the kernel's devices, drivers and settings", nil, []string{"linux"}},
	{"/dev", "devices", devices, []string{"linux", "darwin"}},
}

// devices are the devices a grant may reach (Devices).
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// Devices are the devices a grant may reach: the ones that hold no data
// and change nothing outside the run. Every other device, and a block
// device anywhere, is out of reach. The slice is the caller's own.
func Devices() []string { return slices.Clone(devices) }

// Markdown is the table of credential locations docs/language.md shows,
// rendered from the table the runtime checks.
func Markdown() []byte {
	var b bytes.Buffer
	b.WriteString("| location | what is kept there |\n|---|---|\n")
	for _, l := range credentials {
		where := "`~/" + l.Path + "`"
		if strings.HasPrefix(l.Path, "/") {
			where = "`" + l.Path + "`"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", where, l.Holds)
	}
	fmt.Fprintf(&b, "| each path in `%s` | what the operator names |\n", CredentialsEnv)
	return b.Bytes()
}
