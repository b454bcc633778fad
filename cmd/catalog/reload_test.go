package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/exercisedb/exercisedb/catalog/dataset"
	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

// TestBinaryReloadsCatalogue changes the -data file under load: each new
// version is announced on the watch stream, a broken file keeps the old
// catalogue, and no call fails during the swaps.
func TestBinaryReloadsCatalogue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalogue.json")
	original := string(dataset.Default())
	write := func(content string) {
		t.Helper()
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(original)
	p := startBinary(t, "-data", path)
	conn := p.dial(t)
	waitServing(t, conn)
	client := catalogv1.NewCatalogServiceClient(conn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := client.WatchCatalogue(ctx, &catalogv1.WatchCatalogueRequest{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := watch.Recv()
	if err != nil {
		t.Fatal(err)
	}

	// Load: every call must succeed, whichever catalogue answers it.
	var calls, failures atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_, err := client.ListExercises(ctx, &catalogv1.ListExercisesRequest{Filter: &catalogv1.ExerciseFilter{BodyParts: []string{"chest"}}})
				if err != nil && ctx.Err() == nil {
					failures.Add(1)
					t.Logf("call failed during reload: %v", err)
				}
				calls.Add(1)
			}
		}()
	}

	versions := map[string]bool{first.CatalogueVersion: true}
	for i, name := range []string{"barbell bench press (flat)", "barbell bench press (competition)"} {
		write(strings.Replace(original, `"name": "barbell bench press"`, `"name": "`+name+`"`, 1))
		next, err := watch.Recv()
		if err != nil {
			t.Fatalf("swap %d: %v", i, err)
		}
		if versions[next.CatalogueVersion] {
			t.Errorf("swap %d announced an old version %s", i, next.CatalogueVersion)
		}
		versions[next.CatalogueVersion] = true
	}
	write("{not json")
	p.Signal(t, syscall.SIGHUP)
	testnet.Eventually(t, "a broken file reported as a failed reload", func() error {
		_, body := p.get(t, "/metrics")
		return testnet.Unless(strings.Contains(body, `exercisedb_catalog_reloads_total{result="error"}`), "no failed reload on /metrics")
	})
	cancel()
	wg.Wait()
	if failures.Load() > 0 || calls.Load() == 0 {
		t.Errorf("%d of %d calls failed during the reloads", failures.Load(), calls.Load())
	}
	// The last good catalogue is still served.
	if r, err := client.ListBodyParts(context.Background(), &catalogv1.ListBodyPartsRequest{}); err != nil || !versions[r.CatalogueVersion] || r.CatalogueVersion == first.CatalogueVersion {
		t.Errorf("after the broken file: %v, %v", r.GetCatalogueVersion(), err)
	}
}
