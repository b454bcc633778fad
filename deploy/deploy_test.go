// Package deploy holds the deployment files (docker compose, Kubernetes)
// and the tests that keep them valid where no container engine runs.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/keys"
)

func noEnv(string) string { return "" }

// TestCompose parses docker-compose.yml and checks the shape the docs
// promise: Redis, two catalogs, two gateways on Redis, health checks, and
// the media set published once into SeaweedFS.
func TestCompose(t *testing.T) {
	data, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Build struct {
				Target string            `yaml:"target"`
				Args   map[string]string `yaml:"args"`
			} `yaml:"build"`
			Restart     string            `yaml:"restart"`
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			Deploy      struct {
				Replicas  int `yaml:"replicas"`
				Resources struct {
					Limits struct {
						Memory string `yaml:"memory"`
					} `yaml:"limits"`
				} `yaml:"resources"`
			} `yaml:"deploy"`
			Healthcheck struct {
				Test []string `yaml:"test"`
			} `yaml:"healthcheck"`
			DependsOn map[string]struct {
				Condition string `yaml:"condition"`
			} `yaml:"depends_on"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &compose); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, s := range compose.Services {
		names = append(names, name)
		if len(s.Healthcheck.Test) == 0 && s.Restart != "no" { // a one-shot has none
			t.Errorf("service %s has no health check", name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"catalog", "gateway", "media-publish", "redis", "seaweedfs"}) {
		t.Fatalf("services = %v", names)
	}
	if s := compose.Services["media-publish"]; s.Build.Target != "mediagen" || s.Build.Args["CMD"] != "mediagen" ||
		s.DependsOn["seaweedfs"].Condition != "service_healthy" {
		t.Errorf("media-publish: target %q, cmd/%s, seaweedfs %q; want mediagen, after a healthy seaweedfs",
			s.Build.Target, s.Build.Args["CMD"], s.DependsOn["seaweedfs"].Condition)
	}
	for _, name := range []string{"catalog", "gateway"} {
		s := compose.Services[name]
		if s.Deploy.Replicas != 2 || s.Build.Args["CMD"] != name {
			t.Errorf("%s: %d replicas, built from cmd/%s; want 2 from cmd/%s", name, s.Deploy.Replicas, s.Build.Args["CMD"], name)
		}
		checkMemLimit(t, name, s.Deploy.Resources.Limits.Memory, s.Environment["GOMEMLIMIT"])
	}
	for _, dep := range []string{"catalog", "redis"} {
		if compose.Services["gateway"].DependsOn[dep].Condition != "service_healthy" {
			t.Errorf("the gateway does not wait for a healthy %s", dep)
		}
	}
	cfg, err := config.Load("compose/gateway.yaml", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Catalog.Target != "dns:///catalog:9090" || cfg.RateLimit.Store != "redis" || cfg.RateLimit.RedisURL != "redis://redis:6379/0" {
		t.Errorf("compose gateway: catalog %q, store %q at %q", cfg.Catalog.Target, cfg.RateLimit.Store, cfg.RateLimit.RedisURL)
	}
	if _, err := os.Stat(cfg.KeysFile); err != nil {
		t.Errorf("compose keys file: %v", err)
	}
}

// TestKubernetes parses the Kubernetes example, and the configuration and
// keys its ConfigMap carries.
func TestKubernetes(t *testing.T) {
	data, err := os.ReadFile("k8s/exercisedb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var kinds []string
	var preStop, grace int
	var gateway *config.Config
	for {
		var doc struct {
			Kind     string `yaml:"kind"`
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
			Spec struct {
				ClusterIP string `yaml:"clusterIP"`
				Template  struct {
					Spec struct {
						TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
						Containers                    []struct {
							Name string `yaml:"name"`
							Env  []struct {
								Name  string `yaml:"name"`
								Value string `yaml:"value"`
							} `yaml:"env"`
							Resources struct {
								Limits struct {
									Memory string `yaml:"memory"`
								} `yaml:"limits"`
							} `yaml:"resources"`
							Lifecycle struct {
								PreStop struct {
									Sleep struct {
										Seconds int `yaml:"seconds"`
									} `yaml:"sleep"`
								} `yaml:"preStop"`
							} `yaml:"lifecycle"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
			Data map[string]string `yaml:"data"`
		}
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, doc.Kind+"/"+doc.Metadata.Name)
		for _, c := range doc.Spec.Template.Spec.Containers {
			gomemlimit := ""
			for _, e := range c.Env {
				if e.Name == "GOMEMLIMIT" {
					gomemlimit = e.Value
				}
			}
			checkMemLimit(t, c.Name, c.Resources.Limits.Memory, gomemlimit)
		}
		switch doc.Kind + "/" + doc.Metadata.Name {
		case "Service/catalog":
			if doc.Spec.ClusterIP != "None" {
				t.Error("the catalog Service must be headless for dns:/// round-robin")
			}
		case "Deployment/gateway":
			pod := doc.Spec.Template.Spec
			grace = pod.TerminationGracePeriodSeconds
			if len(pod.Containers) > 0 {
				preStop = pod.Containers[0].Lifecycle.PreStop.Sleep.Seconds
			}
		case "ConfigMap/gateway":
			cfg, err := config.Parse([]byte(doc.Data["gateway.yaml"]), noEnv)
			gateway = cfg
			if err != nil {
				t.Errorf("ConfigMap gateway.yaml: %v", err)
			} else if cfg.Catalog.Target != "dns:///catalog:9090" {
				t.Errorf("ConfigMap gateway.yaml: catalog target %q", cfg.Catalog.Target)
			}
			if _, err := keys.Parse([]byte(doc.Data["keys.yaml"])); err != nil {
				t.Errorf("ConfigMap keys.yaml: %v", err)
			}
		}
	}
	// A stopping gateway leaves the load balancers before its listener
	// closes, and finishes within the grace period.
	if gateway != nil {
		drain, shutdown := gateway.Shutdown.DrainDelay, gateway.ShutdownTimeout
		if preStop < 1 || drain <= 0 || time.Duration(grace)*time.Second < time.Duration(preStop)*time.Second+drain+shutdown {
			t.Errorf("gateway shutdown: preStop sleep %ds, drain_delay %v, shutdown_timeout %v, terminationGracePeriodSeconds %d; want a sleep, a delay, and a grace period covering all three",
				preStop, drain, shutdown, grace)
		}
	}
	slices.Sort(kinds)
	want := []string{"ConfigMap/gateway", "Deployment/catalog", "Deployment/gateway", "NetworkPolicy/catalog", "Service/catalog", "Service/gateway"}
	if !slices.Equal(kinds, want) {
		t.Errorf("objects = %v, want %v", kinds, want)
	}
}

// checkMemLimit checks that a container with a memory limit sets
// GOMEMLIMIT to 75-95% of it, so that the Go runtime collects before the
// container is killed, leaving room for memory the runtime does not count.
func checkMemLimit(t *testing.T, container, limit, gomemlimit string) {
	t.Helper()
	lim, ok := mebibytes(limit)
	if !ok {
		t.Errorf("%s: memory limit %q; want one in Mi or M", container, limit)
		return
	}
	soft, ok := mebibytes(strings.TrimSuffix(gomemlimit, "B"))
	if !ok {
		t.Errorf("%s: GOMEMLIMIT %q; want one in MiB", container, gomemlimit)
		return
	}
	if share := soft / lim; share < 0.75 || share > 0.95 {
		t.Errorf("%s: GOMEMLIMIT %s is %.0f%% of the memory limit %s; want 75-95%%", container, gomemlimit, 100*share, limit)
	}
}

// mebibytes reads a memory size in Mi (Kubernetes) or M (Compose, also
// binary), as mebibytes.
func mebibytes(s string) (float64, bool) {
	n, ok := strings.CutSuffix(s, "Mi")
	if !ok {
		n, ok = strings.CutSuffix(s, "M")
	}
	v, err := strconv.ParseFloat(n, 64)
	return v, ok && err == nil && v > 0
}
