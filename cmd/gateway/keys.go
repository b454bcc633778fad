package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/plan"
)

// createKey makes a new key, appends its hash to the keys file, and prints
// the key (alone, on stdout) once.
func createKey(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gateway keys create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "gateway.yaml", "`path` of the YAML configuration (names the keys file and the products)")
	name := fs.String("name", "", "what the key is for, e.g. the customer's application")
	id := fs.String("id", "", "key id (default: a new random key_ id)")
	var subs productFlags
	fs.Var(&subs, "product", "`PRODUCT=PLAN` subscription; repeat for several products")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(subs) == 0 {
		return errors.New("keys create: give at least one -product PRODUCT=PLAN")
	}
	cfg, err := config.Load(*configPath, getenv)
	if err != nil {
		return err
	}
	products, err := plan.NewTable(cfg.Products)
	if err != nil {
		return err
	}
	for product, planName := range subs {
		p, ok := products.ByName(product)
		if !ok {
			return fmt.Errorf("keys create: no product %q in %s", product, *configPath)
		}
		if _, ok := p.Plan(planName); !ok {
			return fmt.Errorf("keys create: product %q has no plan %q", product, planName)
		}
	}
	if *id == "" {
		*id = keys.NewID()
	}
	key, hash, err := keys.Generate()
	if err != nil {
		return err
	}
	if err := keys.Append(cfg.KeysFile, keys.Key{ID: *id, Name: *name, Products: subs}, hash); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "added key %s to %s; the key is printed once and not stored: keep it now\n", *id, cfg.KeysFile)
	fmt.Fprintln(stdout, key)
	return nil
}

// productFlags collects -product PRODUCT=PLAN flags.
type productFlags map[string]string

func (p *productFlags) String() string {
	var parts []string
	for k, v := range *p {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

func (p *productFlags) Set(s string) error {
	product, planName, ok := strings.Cut(s, "=")
	if !ok || product == "" || planName == "" {
		return fmt.Errorf("want PRODUCT=PLAN, got %q", s)
	}
	if *p == nil {
		*p = productFlags{}
	}
	(*p)[product] = planName
	return nil
}
