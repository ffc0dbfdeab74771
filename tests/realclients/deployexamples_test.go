package realclients

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The examples' replicas use these, as the image does.
const (
	exampleImage = "ghcr.io/mcpship/mcpship:"
	exampleUser  = 65532
	examplePort  = 8080
)

// flagValues parses "--name=value" and "--name value" arguments.
func flagValues(t *testing.T, args []string) map[string]string {
	t.Helper()
	flags := map[string]string{}
	for i := 0; i < len(args); i++ {
		name, value, ok := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
		if !strings.HasPrefix(args[i], "--") {
			t.Fatalf("argument %q is not a flag", args[i])
		}
		if !ok && i+1 < len(args) {
			i++
			value = args[i]
		}
		flags[name] = value
	}
	return flags
}

// checkReplicaArgs checks the arguments an example gives the image's
// entry point: they listen on all interfaces on examplePort with a token
// and a session key from secret files under secretDir, with a drain bound
// and a drain grace under grace, the grace longer than detect (how long
// the balancer's health check may take to see a replica drain); and the
// real binary, given them (on loopback, with the secret files made here),
// serves and answers /healthz. It returns the drain bound.
func checkReplicaArgs(t *testing.T, args []string, secretDir string, grace, detect time.Duration) time.Duration {
	t.Helper()
	flags := flagValues(t, args)
	if flags["listen"] != fmt.Sprintf("0.0.0.0:%d", examplePort) {
		t.Errorf("--listen %q, want 0.0.0.0:%d (the image's port)", flags["listen"], examplePort)
	}
	drain, err := time.ParseDuration(flags["drain-timeout"])
	if err != nil {
		t.Fatalf("--drain-timeout %q: %v", flags["drain-timeout"], err)
	}
	if grace < drain+5*time.Second {
		t.Errorf("the grace period %v leaves less than 5 s after --drain-timeout %v: running calls would be killed", grace, drain)
	}
	drainGrace, err := time.ParseDuration(flags["drain-grace"])
	if err != nil {
		t.Fatalf("--drain-grace %q: %v", flags["drain-grace"], err)
	}
	if drainGrace <= detect {
		t.Errorf("--drain-grace %v is not longer than the %v the health check may take to see the drain: "+
			"the port would close while the balancer still sends requests to it", drainGrace, detect)
	}
	if grace < drainGrace+5*time.Second {
		t.Errorf("the grace period %v leaves less than 5 s after --drain-grace %v", grace, drainGrace)
	}
	dir := t.TempDir()
	run := []string{"serve", "--transport", "http"}
	addr := freeAddr(t)
	for _, a := range args {
		name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !ok {
			t.Fatalf("argument %q: the examples write flags as --name=value", a)
		}
		switch name {
		case "listen":
			value = addr
		case "auth-token-file", "session-key-file":
			if filepath.Dir(value) != secretDir {
				t.Errorf("--%s %s is not in the secrets' directory %s", name, value, secretDir)
			}
			local := filepath.Join(dir, filepath.Base(value))
			writeFile(t, local, []byte(randomHex(t, 32)+"\n"))
			if err := os.Chmod(local, 0o440); err != nil {
				t.Fatal(err)
			}
			value = local
		}
		run = append(run, "--"+name+"="+value)
	}
	cmd := exec.Command(binPath, run...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() { cmd.Process.Kill(); <-exited }()
	if !listening(addr, exited) {
		t.Fatalf("mcpship %s does not serve:\n%s", strings.Join(run, " "), stderr.String())
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz: %d, want 200", resp.StatusCode)
	}
	return drain
}

// TestKubernetesExample decodes examples/deploy/kubernetes.yaml strictly
// into the Kubernetes API types of k8s.io/api: a field the API does not
// have, or a value of the wrong type, fails. It does not run the API
// server's validation (required fields, ranges, admission); there is no
// cluster here. Then it checks what the objects must agree on: selectors
// and labels, the Service's target port and the probe's port, the probe
// on /healthz, the image's non-root user, the secret mounts, and a grace
// period that covers the preStop pause and the drain bound; and it runs
// the container's arguments with the real binary.
func TestKubernetesExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "deploy", "kubernetes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var deploy *appsv1.Deployment
	var svc *corev1.Service
	for i, doc := range strings.Split(string(data), "\n---\n") {
		var meta struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		var obj any
		switch meta.APIVersion + " " + meta.Kind {
		case "apps/v1 Deployment":
			deploy = &appsv1.Deployment{}
			obj = deploy
		case "v1 Service":
			svc = &corev1.Service{}
			obj = svc
		default:
			t.Fatalf("document %d is a %s %s, which the test does not know", i+1, meta.APIVersion, meta.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("document %d (%s): %v", i+1, meta.Kind, err)
		}
	}
	if deploy == nil || svc == nil {
		t.Fatal("the example needs a Deployment and a Service")
	}

	pod := deploy.Spec.Template
	labels := pod.Labels
	if deploy.Spec.Selector == nil || !subset(deploy.Spec.Selector.MatchLabels, labels) || len(deploy.Spec.Selector.MatchLabels) == 0 {
		t.Errorf("the Deployment's selector %v does not select its pods' labels %v", deploy.Spec.Selector, labels)
	}
	if !subset(svc.Spec.Selector, labels) || len(svc.Spec.Selector) == 0 {
		t.Errorf("the Service's selector %v does not select the pods' labels %v", svc.Spec.Selector, labels)
	}
	if r := deploy.Spec.Replicas; r == nil || *r < 2 {
		t.Errorf("replicas %v, want at least 2", r)
	}
	if ru := deploy.Spec.Strategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 0 {
		t.Errorf("the rolling update may take replicas away before new ones are ready: %+v", ru)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if !strings.HasPrefix(c.Image, exampleImage) {
		t.Errorf("image %q, want %s...", c.Image, exampleImage)
	}
	sc := pod.Spec.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != exampleUser {
		t.Errorf("the pod's security context %+v does not run as the image's non-root user %d", sc, exampleUser)
	}
	var port *corev1.ContainerPort
	for i := range c.Ports {
		if c.Ports[i].ContainerPort == examplePort {
			port = &c.Ports[i]
		}
	}
	if port == nil {
		t.Fatalf("the container declares no port %d: %+v", examplePort, c.Ports)
	}
	matches := func(what string, p string, n int32) {
		if p != port.Name && n != port.ContainerPort {
			t.Errorf("%s %q/%d is not the container's port %s/%d", what, p, n, port.Name, port.ContainerPort)
		}
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("the Service has %d ports, want 1", len(svc.Spec.Ports))
	}
	matches("the Service's targetPort", svc.Spec.Ports[0].TargetPort.StrVal, svc.Spec.Ports[0].TargetPort.IntVal)
	rp := c.ReadinessProbe
	if rp == nil || rp.HTTPGet == nil || rp.HTTPGet.Path != "/healthz" {
		t.Fatalf("the readiness probe %+v is not a GET of /healthz", rp)
	}
	matches("the readiness probe's port", rp.HTTPGet.Port.StrVal, rp.HTTPGet.Port.IntVal)
	if c.LivenessProbe != nil && c.LivenessProbe.HTTPGet != nil && c.LivenessProbe.HTTPGet.Path == "/healthz" {
		t.Error("a liveness probe on /healthz would restart a draining replica (it answers 503)")
	}

	var pause time.Duration
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
		if s := c.Lifecycle.PreStop.Sleep; s != nil {
			pause = time.Duration(s.Seconds) * time.Second
		} else {
			t.Error("preStop is not a sleep action: the image has no shell or sleep to exec")
		}
	}
	if pod.Spec.TerminationGracePeriodSeconds == nil {
		t.Fatal("no terminationGracePeriodSeconds: the default, 30 s, is the default drain bound with nothing to spare")
	}
	grace := time.Duration(*pod.Spec.TerminationGracePeriodSeconds)*time.Second - pause
	const secrets = "/etc/mcpship"
	var mounted bool
	for _, m := range c.VolumeMounts {
		if m.MountPath != secrets {
			continue
		}
		for _, v := range pod.Spec.Volumes {
			if v.Name == m.Name && v.Secret != nil {
				mounted = true
				mode := int32(0o644)
				if v.Secret.DefaultMode != nil {
					mode = *v.Secret.DefaultMode
				}
				if mode&0o002 != 0 || (mode&0o004 == 0 && (mode&0o040 == 0 || sc.FSGroup == nil)) {
					t.Errorf("secret mode %o: the user %d cannot read it, or anyone can write it", mode, exampleUser)
				}
			}
		}
	}
	if !mounted {
		t.Errorf("no secret volume is mounted at %s", secrets)
	}
	detect := time.Duration(rp.PeriodSeconds*max(rp.FailureThreshold, 1)) * time.Second
	drain := checkReplicaArgs(t, c.Args, secrets, grace, detect)
	t.Logf("grace period %ds = preStop %v + drain %v + %v", *pod.Spec.TerminationGracePeriodSeconds, pause, drain, grace-drain)
}

func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// TestComposeExample loads examples/deploy/compose.yaml with compose-go,
// the reference loader of the Compose Specification (what "docker compose
// config" uses), which validates it against the specification's schema
// and resolves its anchors and secrets; no Docker daemon is needed, and
// none runs. Then it checks the file against haproxy.cfg (a server line
// per replica service, at the image's port), the grace period against the
// drain bound, and runs each replica's command with the real binary.
func TestComposeExample(t *testing.T) {
	dir := filepath.Join(repoRoot, "examples", "deploy")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts, err := cli.NewProjectOptions([]string{filepath.Join(dir, "compose.yaml")}, cli.WithWorkingDirectory(dir))
	if err != nil {
		t.Fatal(err)
	}
	project, err := opts.LoadProject(ctx)
	if err != nil {
		t.Fatalf("compose-go refuses examples/deploy/compose.yaml: %v", err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "haproxy.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	var servers []string
	var inter time.Duration
	fall := 0
	for _, line := range strings.Split(string(cfg), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "server" {
			servers = append(servers, f[2])
		}
		if len(f) > 0 && f[0] == "default-server" {
			for i := 1; i+1 < len(f); i++ {
				switch f[i] {
				case "inter":
					inter, _ = time.ParseDuration(f[i+1])
				case "fall":
					fall, _ = strconv.Atoi(f[i+1])
				}
			}
		}
	}
	if inter <= 0 || fall <= 0 {
		t.Fatalf("haproxy.cfg's default-server line has no inter and fall: the drain grace cannot be checked against them")
	}
	var replicas []string
	for name, s := range project.Services {
		if !strings.HasPrefix(s.Image, exampleImage) {
			continue
		}
		replicas = append(replicas, fmt.Sprintf("%s:%d", name, examplePort))
		if s.StopGracePeriod == nil {
			t.Errorf("%s: no stop_grace_period; docker's default, 10 s, is shorter than the drain bound", name)
			continue
		}
		var secrets []string
		for _, sec := range s.Secrets {
			secrets = append(secrets, sec.Source)
		}
		if !slices.Contains(secrets, "mcpship-token") || !slices.Contains(secrets, "mcpship-session-key") {
			t.Errorf("%s: secrets %v, want mcpship-token and mcpship-session-key", name, secrets)
		}
		t.Run(name, func(t *testing.T) {
			checkReplicaArgs(t, s.Command, "/run/secrets", time.Duration(*s.StopGracePeriod), inter*time.Duration(fall))
		})
	}
	slices.Sort(replicas)
	slices.Sort(servers)
	if len(replicas) < 2 || !slices.Equal(replicas, servers) {
		t.Errorf("haproxy.cfg's servers %v are not the compose file's replicas %v", servers, replicas)
	}
	lb, ok := project.Services["haproxy"]
	if !ok {
		t.Fatal("no haproxy service")
	}
	var mountsCfg bool
	for _, v := range lb.Volumes {
		mountsCfg = mountsCfg || (filepath.Base(v.Source) == "haproxy.cfg" && v.Target == "/usr/local/etc/haproxy/haproxy.cfg" && v.ReadOnly)
	}
	if !mountsCfg {
		t.Errorf("the haproxy service does not mount haproxy.cfg read-only where the image reads it: %+v", lb.Volumes)
	}
}
