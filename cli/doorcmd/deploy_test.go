package doorcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/receipt/ship"
	"github.com/sabline/sabline/tenant"
)

// deployDir holds the Kubernetes manifests of a fleet.
const deployDir = "../../deploy/kubernetes"

// manifest is one YAML document of deployDir, decoded.
type manifest = map[string]any

// get follows keys (a string for a map, an int for a list) from v.
func get(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func str(v any, keys ...any) string  { s, _ := get(v, keys...).(string); return s }
func items(v any, keys ...any) []any { l, _ := get(v, keys...).([]any); return l }

// loadManifests decodes every document of every .yaml file in deployDir,
// by kind.
func loadManifests(t *testing.T) (byKind map[string][]manifest, files []string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(deployDir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests in %s: %v", deployDir, err)
	}
	byKind = map[string][]manifest{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var m manifest
			err := dec.Decode(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if m["kind"] == nil || m["apiVersion"] == nil {
				t.Errorf("%s: a document without kind and apiVersion", p)
			}
			byKind[str(m, "kind")] = append(byKind[str(m, "kind")], m)
		}
		files = append(files, filepath.Base(p))
	}
	return byKind, files
}

// one is the one manifest of kind.
func one(t *testing.T, byKind map[string][]manifest, kind string) manifest {
	t.Helper()
	if len(byKind[kind]) != 1 {
		t.Fatalf("%d manifests of kind %s, want 1", len(byKind[kind]), kind)
	}
	return byKind[kind][0]
}

// TestDeployKubernetes: every manifest of deploy/kubernetes parses; the
// kustomization lists each; the Deployment's command is sabline serve,
// each flag of its arguments is one of serve's and takes its value, and
// each path it names lies where the pod mounts what it needs (the
// tenants Secret, which parses as a tenants file; a writable volume for
// the receipts; /tmp, the root being read-only); the store agent and the
// command are where the Dockerfile puts them; the probes ask /healthz and
// /readyz, which the door answers (docs/openapi.yaml); the pod holds to
// what Landlock and seccomp need; the Service and the autoscaler name the
// Deployment's pods.
func TestDeployKubernetes(t *testing.T) {
	byKind, files := loadManifests(t)
	kust := one(t, byKind, "Kustomization")
	var listed []string
	for _, r := range items(kust, "resources") {
		listed = append(listed, r.(string))
	}
	for _, f := range files {
		if f != "kustomization.yaml" && !slices.Contains(listed, f) {
			t.Errorf("%s is not among the kustomization's resources %v", f, listed)
		}
	}
	for _, f := range listed {
		if !slices.Contains(files, f) {
			t.Errorf("the kustomization lists %s, which is not in %s", f, deployDir)
		}
	}

	dep := one(t, byKind, "Deployment")
	pod := get(dep, "spec", "template", "spec")
	if len(items(pod, "containers")) != 1 {
		t.Fatalf("%d containers, want 1", len(items(pod, "containers")))
	}
	c := get(pod, "containers", 0)
	cm := one(t, byKind, "ConfigMap")
	secret := one(t, byKind, "Secret")

	// The command, its doors and the store agent, where the image has
	// them: beside one another, as sabline looks for the other two.
	docker, err := os.ReadFile(filepath.Join(deployDir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	copied := map[string]string{} // destination -> the binary's name
	for _, m := range regexp.MustCompile(`(?m)^COPY --from=build /out/(\S+) (\S+)$`).FindAllStringSubmatch(string(docker), -1) {
		copied[m[2]] = m[1]
	}
	for _, cmd := range [][]string{{"./cmd/sabline", "sabline"}, {"./cmd/sabline-door", "sabline-door"},
		{"./cmd/sabline-store", "sabline-store"}} {
		if !strings.Contains(string(docker), "go build -trimpath -o /out/"+cmd[1]+" "+cmd[0]) {
			t.Errorf("the Dockerfile does not build %s into /out/%s", cmd[0], cmd[1])
		}
	}
	where := map[string]string{} // the binary's name -> its directory in the image
	for dest, name := range copied {
		where[name] = path.Dir(dest)
	}
	if where["sabline-door"] == "" || where["sabline-door"] != where["sabline"] {
		t.Errorf("the Dockerfile copies sabline-door to %q and sabline to %q: sabline serve "+
			"looks for it beside itself", where["sabline-door"], where["sabline"])
	}
	command := items(c, "command")
	if len(command) != 1 || copied[command[0].(string)] != "sabline" {
		t.Fatalf("command %v: want the sabline binary the Dockerfile copies (%v)", command, copied)
	}

	// $(VAR) in the arguments are the container's variables.
	vars := map[string]string{}
	for _, e := range items(c, "env") {
		name := str(e, "name")
		switch {
		case str(e, "valueFrom", "fieldRef", "fieldPath") == "metadata.name":
			vars[name] = "sabline-7c9f8d6b5-x2k4q"
		case get(e, "valueFrom", "configMapKeyRef") != nil:
			if str(e, "valueFrom", "configMapKeyRef", "name") != str(cm, "metadata", "name") {
				t.Errorf("env %s names ConfigMap %q, not the one of the manifests", name, str(e, "valueFrom", "configMapKeyRef", "name"))
			}
			key := str(e, "valueFrom", "configMapKeyRef", "key")
			if vars[name] = str(cm, "data", key); vars[name] == "" {
				t.Errorf("env %s: the ConfigMap has no %s", name, key)
			}
		default:
			vars[name] = str(e, "value")
		}
	}
	args := items(c, "args")
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("args %v: want serve first", args)
	}
	var argv []string
	for _, a := range args[1:] {
		s := regexp.MustCompile(`\$\((\w+)\)`).ReplaceAllStringFunc(a.(string), func(ref string) string {
			name := ref[2 : len(ref)-1]
			v, ok := vars[name]
			if !ok {
				t.Errorf("%s: the container has no variable %s", a, name)
			}
			return v
		})
		argv = append(argv, s)
	}
	fs, sf := serveFlagSet()
	for _, a := range argv {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if fs.Lookup(name) == nil {
			t.Errorf("%s: sabline serve has no flag --%s", a, name)
		}
	}
	if err := fs.Parse(argv); err != nil || fs.NArg() != 0 {
		t.Fatalf("sabline serve %s: %v (left %v)", strings.Join(argv, " "), err, fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, want := range []string{"tenants", "receipts-url", "replica", "require-confinement", "receipts", "store-agent"} {
		if !set[want] {
			t.Errorf("the Deployment does not give --%s", want)
		}
	}
	if sf.door.require != "full" {
		t.Errorf("--require-confinement %q: a replica whose kernel holds less than full must not be sent traffic", sf.door.require)
	}
	if copied[sf.fleet.agent] != "sabline-store" {
		t.Errorf("--store-agent %s: the Dockerfile puts sabline-store at %v", sf.fleet.agent, copied)
	}
	if u := sf.fleet.receiptsURL; !regexp.MustCompile(`^(s3|gs|azblob|file)://`).MatchString(u) {
		t.Errorf("--receipts-url %q: want s3://, gs://, azblob:// or file://", u)
	}
	if !ship.ValidReplica(sf.fleet.replica) {
		t.Errorf("--replica %q: a pod's name is not a replica id", sf.fleet.replica)
	}

	// The paths the flags name, against the pod's volumes.
	volumes := map[string]any{}
	for _, v := range items(pod, "volumes") {
		volumes[str(v, "name")] = v
	}
	mounts := map[string]any{} // mount path -> its volume
	readOnly := map[string]bool{}
	for _, m := range items(c, "volumeMounts") {
		v, ok := volumes[str(m, "name")]
		if !ok {
			t.Errorf("mount %s names no volume of the pod", str(m, "mountPath"))
		}
		mounts[str(m, "mountPath")] = v
		readOnly[str(m, "mountPath")] = get(m, "readOnly") == true
	}
	under := func(p string) (string, any) {
		for dir, v := range mounts {
			if p == dir || strings.HasPrefix(p, dir+"/") {
				return dir, v
			}
		}
		return "", nil
	}
	dir, v := under(sf.fleet.tenants)
	switch {
	case v == nil || str(v, "secret", "secretName") != str(secret, "metadata", "name"):
		t.Errorf("--tenants %s is not in a mount of the Secret %s", sf.fleet.tenants, str(secret, "metadata", "name"))
	default:
		key := strings.TrimPrefix(sf.fleet.tenants, dir+"/")
		data := str(secret, "stringData", key)
		if _, err := tenant.Parse([]byte(data)); err != nil {
			t.Errorf("the Secret's %s is not a tenants file: %v", key, err)
		}
		if mode, _ := get(v, "secret", "defaultMode").(int); mode&0o022 != 0 {
			t.Errorf("the tenants Secret's mode %#o lets others change it: sabline serve refuses it", mode)
		}
	}
	if dir, v := under(sf.door.receipts); v == nil || readOnly[dir] || get(v, "emptyDir") == nil && get(v, "persistentVolumeClaim") == nil {
		t.Errorf("--receipts %s is not in a writable volume", sf.door.receipts)
	}
	if _, v := under(sf.door.importRoot); v == nil {
		t.Errorf("--import-root %s is not in a mount", sf.door.importRoot)
	}
	sc := get(c, "securityContext")
	if get(sc, "readOnlyRootFilesystem") == true {
		if dir, v := under("/tmp"); v == nil || readOnly[dir] {
			t.Error("the root file system is read-only and /tmp is no writable mount: the workers' temporary directories go there")
		}
	}

	// The probes.
	spec := loadSpecPaths(t)
	ports := map[string]bool{}
	for _, p := range items(c, "ports") {
		ports[str(p, "name")] = true
	}
	for probe, want := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz"} {
		if got := str(c, probe, "httpGet", "path"); got != want || !slices.Contains(spec, want) {
			t.Errorf("%s asks %q, want %s, a path of docs/openapi.yaml (%v)", probe, got, want, spec)
		}
		if !ports[str(c, probe, "httpGet", "port")] {
			t.Errorf("%s's port %q is no port of the container", probe, str(c, probe, "httpGet", "port"))
		}
	}
	if !strings.HasSuffix(argv[slices.IndexFunc(argv, func(a string) bool { return strings.HasPrefix(a, "--listen=") })], ":8080") ||
		fmt.Sprint(get(c, "ports", 0, "containerPort")) != "8080" {
		t.Errorf("--listen and the container's port disagree")
	}

	// What Landlock and seccomp need of the pod.
	if get(sc, "allowPrivilegeEscalation") != false {
		t.Error("allowPrivilegeEscalation is not false: no_new_privs is what lets the workers install their filters unprivileged")
	}
	if caps := items(sc, "capabilities", "drop"); len(caps) != 1 || caps[0] != "ALL" {
		t.Errorf("capabilities drop %v, want ALL: a worker needs none", caps)
	}
	if str(pod, "securityContext", "seccompProfile", "type") != "RuntimeDefault" {
		t.Error("the pod's seccomp profile is not RuntimeDefault")
	}
	if get(pod, "runtimeClassName") != nil {
		t.Errorf("runtimeClassName %v: a runtime that replaces the kernel gives the workers less than full", get(pod, "runtimeClassName"))
	}

	// The Service and the autoscaler.
	labels := get(dep, "spec", "template", "metadata", "labels").(map[string]any)
	svc := one(t, byKind, "Service")
	for k, v := range get(svc, "spec", "selector").(map[string]any) {
		if labels[k] != v {
			t.Errorf("the Service selects %s=%v, which the pods do not carry", k, v)
		}
	}
	if !ports[str(svc, "spec", "ports", 0, "targetPort")] {
		t.Errorf("the Service's targetPort %q is no port of the container", str(svc, "spec", "ports", 0, "targetPort"))
	}
	hpa := one(t, byKind, "HorizontalPodAutoscaler")
	if str(hpa, "spec", "scaleTargetRef", "kind") != "Deployment" || str(hpa, "spec", "scaleTargetRef", "name") != str(dep, "metadata", "name") {
		t.Errorf("the autoscaler scales %v, not the Deployment", get(hpa, "spec", "scaleTargetRef"))
	}
	// Every Host the Service's in-cluster names give is one the server
	// admits; another is refused.
	name, ns := str(svc, "metadata", "name"), str(kust, "namespace")
	port := fmt.Sprint(get(svc, "spec", "ports", 0, "port"))
	var hosts []string
	for _, h := range []string{name, name + "." + ns, name + "." + ns + ".svc",
		name + "." + ns + ".svc.cluster.local"} {
		if port != "80" {
			h += ":" + port
		}
		hosts = append(hosts, h)
	}
	checkHosts(t, sf.origins, hosts)

	// Prometheus scrapes the pods' metrics port, which the Service does
	// not expose; the server logs JSON records.
	ann := get(dep, "spec", "template", "metadata", "annotations")
	if str(ann, "prometheus.io/scrape") != "true" || str(ann, "prometheus.io/path") != "/metrics" {
		t.Errorf("the pods' annotations %v: want prometheus.io/scrape \"true\" and path /metrics", ann)
	}
	_, mport, err := net.SplitHostPort(sf.observe.metricsListen)
	if err != nil {
		t.Fatalf("--metrics-listen %q: %v", sf.observe.metricsListen, err)
	}
	if str(ann, "prometheus.io/port") != mport {
		t.Errorf("prometheus.io/port %q, but --metrics-listen %s", str(ann, "prometheus.io/port"),
			sf.observe.metricsListen)
	}
	var containerPorts []string
	for _, p := range items(c, "ports") {
		containerPorts = append(containerPorts, fmt.Sprint(get(p, "containerPort")))
	}
	if !slices.Contains(containerPorts, mport) {
		t.Errorf("the metrics port %s is not a port of the container (%v)", mport, containerPorts)
	}
	for _, p := range items(svc, "spec", "ports") {
		if tp := fmt.Sprint(get(p, "targetPort")); tp == mport || tp == "metrics" {
			t.Errorf("the Service exposes the metrics port %s to clients", tp)
		}
	}
	if sf.observe.logFormat != logJSON {
		t.Errorf("--log-format %q: want json, one record a line for the cluster's log pipeline",
			sf.observe.logFormat)
	}
}

// checkHosts starts a door with the manifests' --allow-origin and asks
// it with each Host of hosts, which it must admit, and with a Host no
// manifest names, which it must refuse (403).
func checkHosts(t *testing.T, origins, hosts []string) {
	t.Helper()
	const token = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	srv, err := door.New(door.Config{Runner: nopRunner{}, Token: token, Origins: origins})
	if err != nil {
		t.Fatalf("a door with --allow-origin %v: %v", origins, err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	ask := func(host string) int {
		req, err := http.NewRequest("GET", ts.URL+"/v1/health", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, h := range hosts {
		if st := ask(h); st != http.StatusOK {
			t.Errorf("Host %s: %d, want 200: clients reach the Service by that name (--allow-origin %v)",
				h, st, origins)
		}
	}
	if st := ask("sabline.attacker.example"); st != http.StatusForbidden {
		t.Errorf("Host sabline.attacker.example: %d, want 403", st)
	}
}

// nopRunner is a door's Runner that is never asked to run anything.
type nopRunner struct{}

func (nopRunner) Run(context.Context, door.RunRequest) (door.RunReply, error) {
	return door.RunReply{}, errors.New("nopRunner runs nothing")
}

func (nopRunner) Audit(context.Context, door.AuditRequest) (door.AuditReply, error) {
	return door.AuditReply{}, errors.New("nopRunner audits nothing")
}

func (nopRunner) Receipt(context.Context, string, string) (json.RawMessage, error) {
	return nil, errors.New("nopRunner keeps no receipts")
}

// loadSpecPaths are the paths of docs/openapi.yaml, which the door's tests
// hold to its handlers.
func loadSpecPaths(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(path.Join("..", "..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Paths map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range spec.Paths {
		out = append(out, p)
	}
	return out
}
