package deploy

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/pkg/tlsfiles"
)

// under reports whether file lies in one of the directories.
func under(file string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(file, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// checkCatalogTLS checks the gateway's catalog.tls: every file, and a
// client certificate, inside mounts.
func checkCatalogTLS(t *testing.T, where string, c *config.CatalogTLS, mounts []string) {
	t.Helper()
	if c == nil || c.CAFile == "" || c.CertFile == "" || c.ServerName != "catalog" {
		t.Errorf("%s: catalog.tls = %+v, want a CA, a client certificate and server_name catalog", where, c)
		return
	}
	for _, f := range []string{c.CAFile, c.CertFile, c.KeyFile} {
		if !under(f, mounts) {
			t.Errorf("%s: catalog.tls file %s is in none of the mounted directories %v", where, f, mounts)
		}
	}
}

// checkCatalogEnv checks the catalog's TLS environment: mTLS, from files
// inside mounts.
func checkCatalogEnv(t *testing.T, where string, env map[string]string, mounts []string) {
	t.Helper()
	for _, name := range []string{"CATALOG_TLS_CERT", "CATALOG_TLS_KEY", "CATALOG_TLS_CLIENT_CA"} {
		if !under(env[name], mounts) {
			t.Errorf("%s: %s = %q, not in a mounted directory %v", where, name, env[name], mounts)
		}
	}
}

// TestComposeTLS: the catalogs require the gateway's client certificate,
// both reading deploy/certs mounted as a directory (a file mount would
// pin the file replaced at rotation).
func TestComposeTLS(t *testing.T) {
	data, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
			Ports       []string          `yaml:"ports"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &compose); err != nil {
		t.Fatal(err)
	}
	certMounts := func(name string) []string {
		var dirs []string
		for _, v := range compose.Services[name].Volumes {
			if src, dst, ok := strings.Cut(v, ":"); ok && src == "./deploy/certs" {
				dirs = append(dirs, strings.TrimSuffix(dst, ":ro"))
			}
		}
		return dirs
	}
	checkCatalogEnv(t, "compose catalog", compose.Services["catalog"].Environment, certMounts("catalog"))
	if p := compose.Services["catalog"].Ports; len(p) != 0 {
		t.Errorf("the catalog publishes host ports %v", p)
	}
	cfg, err := config.Load("compose/gateway.yaml", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	checkCatalogTLS(t, "compose gateway", cfg.Catalog.TLS, certMounts("gateway"))
}

// k8sObject is what the checks read of a Kubernetes object.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Ports []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort any    `yaml:"targetPort"`
		} `yaml:"ports"` // Service
		Template struct {
			Spec struct {
				Containers []struct {
					Env []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
						SubPath   string `yaml:"subPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name   string `yaml:"name"`
					Secret *struct {
						SecretName string `yaml:"secretName"`
					} `yaml:"secret"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"` // Deployment
		PodSelector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"podSelector"`
		PolicyTypes []string `yaml:"policyTypes"`
		Ingress     []struct {
			From []struct {
				PodSelector *struct {
					MatchLabels map[string]string `yaml:"matchLabels"`
				} `yaml:"podSelector"`
				NamespaceSelector *struct{} `yaml:"namespaceSelector"`
			} `yaml:"from"`
			Ports []struct {
				Port int `yaml:"port"`
			} `yaml:"ports"`
		} `yaml:"ingress"` // NetworkPolicy
	} `yaml:"spec"`
	Data map[string]string `yaml:"data"`
}

func k8sObjects(t *testing.T) map[string]k8sObject {
	t.Helper()
	data, err := os.ReadFile("k8s/exercisedb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]k8sObject{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var o k8sObject
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			return objs
		} else if err != nil {
			t.Fatal(err)
		}
		objs[o.Kind+"/"+o.Metadata.Name] = o
	}
}

// secretMounts returns a Deployment's environment and the directories
// where whole Secrets are mounted, by Secret name.
func secretMounts(t *testing.T, d k8sObject) (env map[string]string, mounts map[string]string) {
	t.Helper()
	secrets := map[string]string{} // volume -> secret
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			secrets[v.Name] = v.Secret.SecretName
		}
	}
	env, mounts = map[string]string{}, map[string]string{}
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		for _, m := range c.VolumeMounts {
			if s, ok := secrets[m.Name]; ok && m.SubPath == "" {
				mounts[s] = m.MountPath
			}
		}
	}
	return env, mounts
}

// TestKubernetesTLS: the catalog requires mTLS with certificates from the
// Secret catalog-tls, the gateway presents one from gateway-tls, each
// Secret mounted whole so that updates reach the files.
func TestKubernetesTLS(t *testing.T) {
	objs := k8sObjects(t)
	env, mounts := secretMounts(t, objs["Deployment/catalog"])
	checkCatalogEnv(t, "Deployment/catalog", env, []string{mounts["catalog-tls"]})
	_, mounts = secretMounts(t, objs["Deployment/gateway"])
	cfg, err := config.Parse([]byte(objs["ConfigMap/gateway"].Data["gateway.yaml"]), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	checkCatalogTLS(t, "ConfigMap/gateway", cfg.Catalog.TLS, []string{mounts["gateway-tls"]})
}

// TestKubernetesNetworkPolicy: only gateway pods reach the catalog's gRPC
// port, and no Service carries an admin port.
func TestKubernetesNetworkPolicy(t *testing.T) {
	objs := k8sObjects(t)
	np, ok := objs["NetworkPolicy/catalog"]
	if !ok {
		t.Fatal("no NetworkPolicy/catalog")
	}
	if np.Spec.PodSelector.MatchLabels["app"] != "catalog" || len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != "Ingress" {
		t.Errorf("the policy selects %v for %v, want the catalog pods' ingress", np.Spec.PodSelector.MatchLabels, np.Spec.PolicyTypes)
	}
	grpcOpen := false
	for _, rule := range np.Spec.Ingress {
		grpc := len(rule.Ports) == 0 // no ports: every port
		for _, p := range rule.Ports {
			grpc = grpc || p.Port == 9090
		}
		if !grpc {
			continue
		}
		grpcOpen = true
		for _, f := range rule.From {
			if f.NamespaceSelector != nil || f.PodSelector == nil || f.PodSelector.MatchLabels["app"] != "gateway" {
				t.Errorf("a rule opens the gRPC port to %+v, not only to gateway pods", f)
			}
		}
		if len(rule.From) == 0 {
			t.Error("a rule opens the gRPC port to every source")
		}
	}
	if !grpcOpen {
		t.Error("no rule lets the gateways reach the gRPC port")
	}
	for name, o := range objs {
		if o.Kind != "Service" {
			continue
		}
		for _, p := range o.Spec.Ports {
			if p.Name == "admin" || p.Port == 9091 || p.Port == 9092 || p.TargetPort == "admin" {
				t.Errorf("%s carries the admin port %+v", name, p)
			}
		}
	}
}

// TestDevCerts runs deploy/dev-certs.sh, twice as for a rotation, and
// makes an mTLS handshake with what it made, as catalog and gateway.
func TestDevCerts(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	dir := t.TempDir()
	run := func() {
		t.Helper()
		cmd := exec.Command("sh", "dev-certs.sh", dir)
		cmd.Env = append(os.Environ(), "CATALOG_NAMES=catalog.exercisedb.svc.cluster.local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("dev-certs.sh: %v\n%s", err, out)
		}
	}
	run()
	ca, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	first, _ := os.ReadFile(filepath.Join(dir, "catalog.crt"))
	run()
	if again, _ := os.ReadFile(filepath.Join(dir, "ca.crt")); !bytes.Equal(ca, again) {
		t.Error("a second run made a new CA")
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "catalog.crt")); bytes.Equal(first, again) {
		t.Error("a second run did not issue a new catalog certificate")
	}

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	file := func(name string) string { return path.Join(dir, name) }
	server, err := tlsfiles.Load(tlsfiles.Files{CertFile: file("catalog.crt"), KeyFile: file("catalog.key"), CAFile: file("ca.crt")}, log)
	if err != nil {
		t.Fatal(err)
	}
	client, err := tlsfiles.Load(tlsfiles.Files{CertFile: file("gateway.crt"), KeyFile: file("gateway.key"), CAFile: file("ca.crt")}, log)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"catalog", "catalog.exercisedb.svc.cluster.local"} {
		if err := handshake(server, client, name); err != nil {
			t.Errorf("mTLS as %s: %v", name, err)
		}
	}
	if err := handshake(server, client, "elsewhere"); err == nil {
		t.Error("the catalog's certificate is accepted for another name")
	}
	if err := handshake(client, server, "catalog"); err == nil {
		t.Error("the certificates serve in each other's role")
	}
}

// handshake runs a TLS handshake between server and client material over
// an in-memory connection, both ends until they have verified the other.
func handshake(server, client *tlsfiles.Source, serverName string) error {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	errc := make(chan error, 1)
	go func() {
		s := tls.Server(a, server.ServerConfig())
		err := s.Handshake()
		if err == nil {
			_, err = s.Write([]byte("x")) // completes a TLS 1.3 client's wait
		}
		errc <- err
	}()
	c := tls.Client(b, client.ClientConfig(serverName))
	err := c.Handshake()
	if err == nil {
		_, err = c.Read(make([]byte, 1))
	}
	b.Close() // unblocks the server if the client gave up
	return errors.Join(err, <-errc)
}
