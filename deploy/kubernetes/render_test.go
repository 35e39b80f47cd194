// Package kubernetes holds the kustomize manifests of a scale-out training
// run (base/ and overlays/); its tests render every kustomization in-process
// with the kustomize library (the one kubectl kustomize uses), so that they
// run where kubectl is not installed, and check what the manifests promise:
// the objects, the trainer's single replica, the credentials coming only
// from the Secret, the store URL.
//
//	cd deploy && go test ./...
package kubernetes

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
)

const (
	secretName   = "zerokit-store"     // the Secret the user creates
	storeMapName = "zerokit-store-url" // the generated ConfigMap (plus a hash suffix)
	storeKey     = "ZEROKIT_STORE"
	trainerName  = "zerokit-trainer"
	trainerCfg   = "/opt/zerokit/configs/wyb-store.yaml"
)

// object is one rendered Kubernetes object.
type object struct {
	kind, name string
	m          map[string]any
}

func (o object) id() string { return o.kind + "/" + o.name }

// generatedName matches the names of generated objects (a hash suffix).
var generatedName = regexp.MustCompile(`^(.*)-[a-z0-9]{10}$`)

// baseID is the object's id with a generated ConfigMap's hash suffix
// removed.
func (o object) baseID() string {
	if o.kind == "ConfigMap" {
		if m := generatedName.FindStringSubmatch(o.name); m != nil {
			return o.kind + "/" + m[1]
		}
	}
	return o.id()
}

// render builds the kustomization in dir as kubectl kustomize does.
func render(t *testing.T, dir string) ([]object, []byte) {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var objs []object
	for _, r := range rm.Resources() {
		m, err := r.Map()
		if err != nil {
			t.Fatalf("%s: %s: %v", dir, r.CurId(), err)
		}
		objs = append(objs, object{kind: r.GetKind(), name: r.GetName(), m: m})
	}
	out, err := rm.AsYaml()
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return objs, out
}

// get walks nested maps; nil when a key is missing.
func get(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func getMap(v any, path ...string) map[string]any {
	m, _ := get(v, path...).(map[string]any)
	return m
}

func getList(v any, path ...string) []any {
	l, _ := get(v, path...).([]any)
	return l
}

func getString(v any, path ...string) string {
	s, _ := get(v, path...).(string)
	return s
}

// podSpecPath is where a workload keeps its pod spec.
var podSpecPath = map[string][]string{
	"Pod":         {"spec"},
	"Deployment":  {"spec", "template", "spec"},
	"StatefulSet": {"spec", "template", "spec"},
	"DaemonSet":   {"spec", "template", "spec"},
	"ReplicaSet":  {"spec", "template", "spec"},
	"Job":         {"spec", "template", "spec"},
	"CronJob":     {"spec", "jobTemplate", "spec", "template", "spec"},
}

// container is one container of a workload's pod spec.
type container struct {
	owner string // Kind/name of the workload
	m     map[string]any
}

func (c container) String() string { return c.owner + " container " + getString(c.m, "name") }

func (c container) args() []string {
	var s []string
	for _, a := range getList(c.m, "command") {
		s = append(s, fmt.Sprint(a))
	}
	for _, a := range getList(c.m, "args") {
		s = append(s, fmt.Sprint(a))
	}
	return s
}

// flag returns the value following name in the container's arguments.
func (c container) flag(name string) (string, bool) {
	args := c.args()
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

func (c container) env(name string) map[string]any {
	for _, e := range getList(c.m, "env") {
		if getString(e, "name") == name {
			m, _ := e.(map[string]any)
			return m
		}
	}
	return nil
}

// writable: path is on one of the container's volumes.
func (c container) writable(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	for _, m := range getList(c.m, "volumeMounts") {
		mp := getString(m, "mountPath")
		if get(m, "readOnly") != true && (path == mp || strings.HasPrefix(path, strings.TrimSuffix(mp, "/")+"/")) {
			return true
		}
	}
	return false
}

// talksToStore: the zerokit containers, which take the store URL.
func (c container) talksToStore() bool {
	_, ok := c.flag("-store")
	return ok
}

func containers(objs []object) []container {
	var cs []container
	for _, o := range objs {
		path, ok := podSpecPath[o.kind]
		if !ok {
			continue
		}
		spec := get(o.m, path...)
		for _, key := range []string{"initContainers", "containers"} {
			for _, c := range getList(spec, key) {
				m, _ := c.(map[string]any)
				cs = append(cs, container{owner: o.id(), m: m})
			}
		}
	}
	return cs
}

func find(objs []object, kind, name string) (object, bool) {
	for _, o := range objs {
		if o.kind == kind && o.name == name {
			return o, true
		}
	}
	return object{}, false
}

// storeURL is the store URL of the rendered ConfigMap.
func storeURL(t *testing.T, objs []object) string {
	t.Helper()
	var urls []string
	for _, o := range objs {
		if o.baseID() == "ConfigMap/"+storeMapName {
			urls = append(urls, getString(o.m, "data", storeKey))
		}
	}
	if len(urls) != 1 {
		t.Fatalf("want one ConfigMap %s with %s, got %q", storeMapName, storeKey, urls)
	}
	return urls[0]
}

// credentialName: environment variables that carry credentials and must
// come from a Secret.
var credentialName = regexp.MustCompile(`SECRET|KEY|PASSWORD|TOKEN|CREDENTIAL|^AWS_|^MINIO_ROOT_|^AZURE_|^GOOGLE_`)

// credentialLiteral: strings that look like credentials (AWS access keys,
// MinIO's default root password, keys in URLs).
var credentialLiteral = regexp.MustCompile(`AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|minioadmin|://[^/\s]*:[^/\s]*@`)

var cases = []struct {
	dir     string
	objects []string // every object rendered, Kind/name (generated ones without the hash)
	workers string   // the workers' workload, Kind/name
	store   string   // the store URL
}{
	{
		dir: "base",
		objects: []string{
			"ConfigMap/" + storeMapName,
			"Deployment/" + trainerName,
			"Deployment/zerokit-worker",
		},
		workers: "Deployment/zerokit-worker",
		store:   "s3://zerokit/runs/wyb?region=us-east-1",
	},
	{
		dir: "overlays/minio",
		objects: []string{
			"ConfigMap/" + storeMapName,
			"Deployment/" + trainerName,
			"Deployment/zerokit-worker",
			"Deployment/minio",
			"Service/minio",
			"PersistentVolumeClaim/minio-data",
			"Job/minio-create-bucket",
		},
		workers: "Deployment/zerokit-worker",
		store:   "s3://zerokit/runs/wyb?endpoint=http://minio:9000&use_path_style=true&region=us-east-1",
	},
	{
		dir: "overlays/job",
		objects: []string{
			"ConfigMap/" + storeMapName,
			"Deployment/" + trainerName,
			"Job/zerokit-selfplay",
		},
		workers: "Job/zerokit-selfplay",
		store:   "s3://zerokit/runs/wyb?region=us-east-1",
	},
}

// TestKustomizationsCovered: every kustomization in this directory has a
// case.
func TestKustomizationsCovered(t *testing.T) {
	var dirs []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "kustomization.yaml" {
			dirs = append(dirs, filepath.ToSlash(filepath.Dir(p)))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var tested []string
	for _, c := range cases {
		tested = append(tested, c.dir)
	}
	sort.Strings(dirs)
	sort.Strings(tested)
	if !reflect.DeepEqual(dirs, tested) {
		t.Errorf("kustomizations %q, tested %q: add a case for each", dirs, tested)
	}
}

func TestRender(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			objs, yml := render(t, tc.dir)
			checkObjects(t, objs, tc.objects)
			checkCredentials(t, objs, yml)
			checkStoreContainers(t, objs, "zerokit:latest")
			checkTrainer(t, objs)
			checkWorkers(t, objs, tc.workers)
			checkPods(t, objs)
			if got := storeURL(t, objs); got != tc.store {
				t.Errorf("store URL %q, want %q", got, tc.store)
			}
			checkStoreURL(t, objs)
		})
	}
}

func checkObjects(t *testing.T, objs []object, want []string) {
	t.Helper()
	var got []string
	for _, o := range objs {
		got = append(got, o.baseID())
	}
	sort.Strings(got)
	want = slices.Clone(want)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("objects:\n got %q\nwant %q", got, want)
	}
	for _, o := range objs {
		if o.kind == "Secret" {
			t.Errorf("%s rendered: credentials belong in a Secret the user creates, not in the manifests", o.id())
		}
		if getString(o.m, "metadata", "namespace") != "" {
			t.Errorf("%s has a namespace: the manifests are namespace-agnostic", o.id())
		}
		if getString(o.m, "metadata", "labels", "app.kubernetes.io/part-of") != "zerokit" {
			t.Errorf("%s: no label app.kubernetes.io/part-of=zerokit", o.id())
		}
	}
}

// checkCredentials: credential variables come from the Secret only, and no
// literal credential appears anywhere.
func checkCredentials(t *testing.T, objs []object, yml []byte) {
	t.Helper()
	if m := credentialLiteral.Find(yml); m != nil {
		t.Errorf("rendered YAML holds what looks like a credential: %q", m)
	}
	for _, c := range containers(objs) {
		for _, e := range getList(c.m, "env") {
			name := getString(e, "name")
			if !credentialName.MatchString(name) {
				continue
			}
			if v := get(e, "value"); v != nil {
				t.Errorf("%s: env %s has a literal value; it must come from the Secret", c, name)
			}
			if ref := getString(e, "valueFrom", "secretKeyRef", "name"); ref != secretName {
				t.Errorf("%s: env %s: valueFrom.secretKeyRef.name %q, want %q", c, name, ref, secretName)
			}
		}
		for _, e := range getList(c.m, "envFrom") {
			if get(e, "configMapRef") != nil {
				t.Errorf("%s: envFrom a ConfigMap: its keys could carry credentials", c)
			}
			if ref := getMap(e, "secretRef"); ref != nil && getString(ref, "name") != secretName {
				t.Errorf("%s: envFrom secret %q, want %q", c, getString(ref, "name"), secretName)
			}
		}
	}
}

// checkStoreContainers: the containers that talk to the store run image
// and take the store's URL from the ConfigMap and its credentials from the
// Secret (not optional).
func checkStoreContainers(t *testing.T, objs []object, image string) {
	t.Helper()
	n := 0
	for _, c := range containers(objs) {
		if !c.talksToStore() {
			continue
		}
		n++
		if v, _ := c.flag("-store"); v != "$("+storeKey+")" {
			t.Errorf("%s: -store %q, want $(%s)", c, v, storeKey)
		}
		e := c.env(storeKey)
		ref := getMap(e, "valueFrom", "configMapKeyRef")
		if ref == nil || getString(ref, "key") != storeKey {
			t.Errorf("%s: env %s not from a ConfigMap key %s: %v", c, storeKey, storeKey, e)
		} else if cm, ok := find(objs, "ConfigMap", getString(ref, "name")); !ok {
			t.Errorf("%s: env %s refers to ConfigMap %q, which is not rendered", c, storeKey, getString(ref, "name"))
		} else if getString(cm.m, "data", storeKey) == "" {
			t.Errorf("%s: ConfigMap %s has no %s", c, cm.name, storeKey)
		}
		fromSecret := false
		for _, e := range getList(c.m, "envFrom") {
			ref := getMap(e, "secretRef")
			if ref != nil && getString(ref, "name") == secretName {
				fromSecret = true
				if opt, _ := ref["optional"].(bool); opt {
					t.Errorf("%s: secretRef %s is optional: the store needs its credentials", c, secretName)
				}
			}
		}
		if !fromSecret {
			t.Errorf("%s: no envFrom secretRef %s for the store's credentials", c, secretName)
		}
		checkProcs(t, c)
		if img := getString(c.m, "image"); img != image {
			t.Errorf("%s: image %q, want %q", c, img, image)
		}
		// libtorch's Go binding (gotch) creates $HOME/.cache/gotch when
		// the binary starts and exits if it cannot.
		if get(c.m, "securityContext", "readOnlyRootFilesystem") == true {
			home := getString(c.env("HOME"), "value")
			if !c.writable(home) {
				t.Errorf("%s: read-only root file system and HOME %q not on a mounted volume", c, home)
			}
			if run, ok := c.flag("-run"); ok && !c.writable(run) {
				t.Errorf("%s: read-only root file system and -run %q not on a mounted volume", c, run)
			}
		}
	}
	if n == 0 {
		t.Error("no container takes -store")
	}
}

// checkProcs: a zerokit container has a CPU limit, and runs no more Go
// threads at once than it allows: GOMAXPROCS, when set, is at most the
// limit (rounded up). Without it zerokit takes the Go runtime's default,
// which is the limit.
func checkProcs(t *testing.T, c container) {
	t.Helper()
	limit := getString(c.m, "resources", "limits", "cpu")
	var cpus float64
	if m, ok := strings.CutSuffix(limit, "m"); ok {
		n, err := strconv.ParseFloat(m, 64)
		cpus = n / 1000
		if err != nil {
			cpus = 0
		}
	} else if n, err := strconv.ParseFloat(limit, 64); err == nil {
		cpus = n
	}
	if !(cpus > 0) {
		t.Errorf("%s: limits.cpu %q: want a CPU limit", c, limit)
		return
	}
	e := c.env("GOMAXPROCS")
	if e == nil {
		return
	}
	n, err := strconv.Atoi(getString(e, "value"))
	if err != nil || n < 1 {
		t.Errorf("%s: GOMAXPROCS %v: want a positive number", c, e)
	} else if float64(n) > math.Ceil(cpus) {
		t.Errorf("%s: GOMAXPROCS %d under limits.cpu %s: more running threads than the limit only get the pod throttled", c, n, limit)
	}
}

// checkTrainer: one replica, never two at once, and its command.
func checkTrainer(t *testing.T, objs []object) {
	t.Helper()
	o, ok := find(objs, "Deployment", trainerName)
	if !ok {
		t.Fatalf("no Deployment %s", trainerName)
	}
	if r := get(o.m, "spec", "replicas"); fmt.Sprint(r) != "1" {
		t.Errorf("trainer replicas %v, want 1", r)
	}
	if s := getString(o.m, "spec", "strategy", "type"); s != "Recreate" {
		t.Errorf("trainer strategy %q, want Recreate", s)
	}
	cs := containers([]object{o})
	if len(cs) != 1 {
		t.Fatalf("trainer: %d containers, want 1", len(cs))
	}
	c := cs[0]
	if args := c.args(); len(args) == 0 || args[0] != "train" {
		t.Errorf("trainer args %q, want train ...", args)
	}
	if v, _ := c.flag("-config"); v != trainerCfg {
		t.Errorf("trainer -config %q, want %s", v, trainerCfg)
	}
	run, ok := c.flag("-run")
	if !ok {
		t.Fatal("trainer has no -run")
	}
	mounted := false
	for _, m := range getList(c.m, "volumeMounts") {
		if getString(m, "mountPath") == run {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("trainer -run %s is not a mounted volume", run)
	}
	checkGrace(t, o)
}

// checkGrace: time to save a checkpoint or upload finished games on SIGTERM.
func checkGrace(t *testing.T, o object) {
	t.Helper()
	g, _ := getMap(o.m, podSpecPath[o.kind]...)["terminationGracePeriodSeconds"].(int)
	if g < 60 {
		t.Errorf("%s: terminationGracePeriodSeconds %d, want at least 60", o.id(), g)
	}
}

func checkWorkers(t *testing.T, objs []object, id string) {
	t.Helper()
	kind, name, _ := strings.Cut(id, "/")
	o, ok := find(objs, kind, name)
	if !ok {
		t.Fatalf("no %s", id)
	}
	cs := containers([]object{o})
	if len(cs) != 1 {
		t.Fatalf("%s: %d containers, want 1", id, len(cs))
	}
	if args := cs[0].args(); len(args) == 0 || args[0] != "worker" {
		t.Errorf("%s args %q, want worker ...", id, args)
	}
	switch kind {
	case "Deployment":
		if r, _ := get(o.m, "spec", "replicas").(int); r < 1 {
			t.Errorf("%s replicas %d", id, r)
		}
	case "Job":
		if p, _ := get(o.m, "spec", "parallelism").(int); p < 1 {
			t.Errorf("%s parallelism %d", id, p)
		}
		// A Job's pods must end: they play for -max-minutes.
		if _, ok := cs[0].flag("-max-minutes"); !ok {
			t.Errorf("%s: workers in a Job need -max-minutes", id)
		}
	}
	checkGrace(t, o)
}

// checkPods: non-root pods with requests, and selectors that match their
// pods.
func checkPods(t *testing.T, objs []object) {
	t.Helper()
	var podLabels []map[string]any
	for _, o := range objs {
		path, ok := podSpecPath[o.kind]
		if !ok {
			continue
		}
		spec := get(o.m, path...)
		if get(spec, "securityContext", "runAsNonRoot") != true {
			t.Errorf("%s: pod securityContext.runAsNonRoot is not true", o.id())
		}
		for _, c := range containers([]object{o}) {
			if getMap(c.m, "resources", "requests") == nil {
				t.Errorf("%s: no resource requests", c)
			}
			if get(c.m, "securityContext", "allowPrivilegeEscalation") != false {
				t.Errorf("%s: allowPrivilegeEscalation is not false", c)
			}
		}
		labels := getMap(o.m, append(path[:len(path)-1:len(path)-1], "metadata", "labels")...)
		podLabels = append(podLabels, labels)
		if sel := getMap(o.m, "spec", "selector", "matchLabels"); o.kind != "Job" && o.kind != "Pod" {
			if len(sel) == 0 || !subset(sel, labels) {
				t.Errorf("%s: selector %v does not match its pod labels %v", o.id(), sel, labels)
			}
		}
	}
	for _, o := range objs {
		if o.kind != "Service" {
			continue
		}
		sel := getMap(o.m, "spec", "selector")
		matched := false
		for _, l := range podLabels {
			matched = matched || subset(sel, l)
		}
		if len(sel) == 0 || !matched {
			t.Errorf("%s: selector %v matches no pod", o.id(), sel)
		}
	}
}

func subset(a, b map[string]any) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkStoreURL: no credentials in the URL; an endpoint that is a Service
// of the manifests (or outside them) on its port.
func checkStoreURL(t *testing.T, objs []object) {
	t.Helper()
	s := storeURL(t, objs)
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("store URL %q: %v", s, err)
	}
	if u.User != nil {
		t.Errorf("store URL %q has user info: credentials come from the Secret", s)
	}
	switch u.Scheme {
	case "s3", "gs", "azblob", "file":
	default:
		t.Errorf("store URL %q: scheme %q", s, u.Scheme)
	}
	for k := range u.Query() {
		if credentialName.MatchString(strings.ToUpper(k)) {
			t.Errorf("store URL %q: parameter %s looks like a credential", s, k)
		}
	}
	ep := u.Query().Get("endpoint")
	if ep == "" {
		return
	}
	e, err := url.Parse(ep)
	if err != nil || e.Hostname() == "" {
		t.Fatalf("store URL %q: endpoint %q: %v", s, ep, err)
	}
	svc, ok := find(objs, "Service", e.Hostname())
	if !ok {
		return // a store outside the manifests
	}
	if u.Query().Get("use_path_style") != "true" {
		t.Errorf("store URL %q: an in-cluster S3 endpoint needs use_path_style=true", s)
	}
	port := false
	for _, p := range getList(svc.m, "spec", "ports") {
		port = port || fmt.Sprint(get(p, "port")) == e.Port()
	}
	if !port {
		t.Errorf("store URL %q: Service %s has no port %s", s, svc.name, e.Port())
	}
}

// TestUserOverlay: the README's way of pointing the manifests at a
// registry and a store works: an overlay of the user's own with images and
// a merged store URL.
func TestUserOverlay(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs("overlays/minio")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		t.Fatal(err)
	}
	const (
		image = "registry.example.com/zerokit:v1"
		store = "s3://my-bucket/runs/wyb?region=eu-west-1"
	)
	k := fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: zerokit
resources:
  - %s
images:
  - name: zerokit
    newName: registry.example.com/zerokit
    newTag: v1
configMapGenerator:
  - name: %s
    behavior: merge
    literals:
      - %s=%s
`, filepath.ToSlash(rel), storeMapName, storeKey, store)
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, _ := render(t, dir)
	if got := storeURL(t, objs); got != store {
		t.Errorf("store URL %q, want %q", got, store)
	}
	checkStoreContainers(t, objs, image)
	for _, o := range objs {
		if ns := getString(o.m, "metadata", "namespace"); ns != "zerokit" {
			t.Errorf("%s: namespace %q, want zerokit", o.id(), ns)
		}
	}
}

// TestKubectlAgrees: where kubectl is installed, kubectl kustomize renders
// the same objects as the library.
func TestKubectlAgrees(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			_, want := render(t, tc.dir)
			var stderr bytes.Buffer
			cmd := exec.Command(kubectl, "kustomize", tc.dir)
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("kubectl kustomize %s: %v\n%s", tc.dir, err, stderr.Bytes())
			}
			g, w := parse(t, got), parse(t, want)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("kubectl kustomize %s differs from the library's rendering:\nkubectl:\n%s\nlibrary:\n%s", tc.dir, got, want)
			}
		})
	}
}

// parse reads a YAML stream into objects keyed by Kind/name.
func parse(t *testing.T, b []byte) map[string]map[string]any {
	t.Helper()
	nodes, err := kio.FromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	objs := make(map[string]map[string]any)
	for _, n := range nodes {
		m, err := n.Map()
		if err != nil {
			t.Fatal(err)
		}
		objs[n.GetKind()+"/"+n.GetName()] = m
	}
	return objs
}
