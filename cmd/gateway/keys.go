package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/pgstore"
	"github.com/exercisedb/exercisedb/gateway/plan"
	"github.com/exercisedb/exercisedb/pkg/english"
)

// keysUsage lists the keys subcommands.
const keysUsage = "usage: gateway keys create|list|disable|rotate|delete -config gateway.yaml ... (gateway keys VERB -h, or gateway -h, tells more)"

// flagOf is the flag of each field a store's InputError may name.
var flagOf = map[string]string{"id": "-id", "name": "-name", "products": "-product", "expiresAt": "-expires", "overlap": "-overlap"}

// asFlag names the flag, not the admin API's field, in a value the store
// refused ("-expires: the time is not in the future").
func asFlag(err error) error {
	var in *keys.InputError
	if errors.As(err, &in) && flagOf[in.Field] != "" {
		return &keys.InputError{Field: flagOf[in.Field], Message: in.Message}
	}
	return err
}

// keysCommand runs "gateway keys <verb>" against the store of the
// configuration: the keys file, or PostgreSQL with keys_postgres_url.
// Messages name the subcommand ("keys create: ..."); main prefixes them
// with the program's name.
func keysCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(keysUsage)
	}
	verb, args := args[0], args[1:]
	switch verb {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	name := "keys " + verb
	fs := flag.NewFlagSet("gateway "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, help goes to stdout
	configPath := fs.String("config", "gateway.yaml", "`path` of the YAML configuration (names the key store and the products)")
	var run func(s keys.Store, products *plan.Table) error
	var synopsis string
	takesID := false
	switch verb {
	case "create":
		synopsis = "-config gateway.yaml [-name NAME] -product PRODUCT=PLAN [-product ...] [-id ID] [-expires TIME]"
		keyName := fs.String("name", "", "what the key is for, e.g. the customer's application (default: none)")
		id := fs.String("id", "", "key id (default: a new random key_ id)")
		expires := fs.String("expires", "", "expiry: an RFC 3339 time, or a duration from now such as 720h (default: none)")
		var subs productFlags
		fs.Var(&subs, "product", "`PRODUCT=PLAN` subscription; repeat for several products, each once")
		run = func(s keys.Store, products *plan.Table) error {
			if len(subs) == 0 {
				return errors.New("keys create: give at least one -product PRODUCT=PLAN")
			}
			if err := products.CheckSubscriptions(subs); err != nil {
				return fmt.Errorf("keys create: %s: %w", *configPath, err)
			}
			exp, err := parseExpiry(*expires)
			if err != nil {
				return fmt.Errorf("keys create: %w", err)
			}
			c, err := s.Create(ctx, keys.New{ID: *id, Name: *keyName, Products: subs, ExpiresAt: exp})
			if err != nil {
				return fmt.Errorf("keys create: %w", asFlag(err))
			}
			fmt.Fprintf(stderr, "added key %s to %s; the key is printed once and not stored: keep it now\n", c.ID, storeName(s, *configPath))
			fmt.Fprintln(stdout, c.Secret)
			return nil
		}
	case "list":
		synopsis = "-config gateway.yaml"
		run = func(s keys.Store, _ *plan.Table) error { return listKeys(ctx, s, stdout) }
	case "disable":
		synopsis, takesID = "-config gateway.yaml [-enable] ID", true
		enable := fs.Bool("enable", false, "enable the key again instead")
		run = withID(name, fs, func(s keys.Store, id string) error {
			disabled := !*enable
			if _, err := s.Update(ctx, id, keys.Change{Disabled: &disabled}); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "key %s: disabled %v\n", id, disabled)
			return nil
		})
	case "rotate":
		synopsis, takesID = "-config gateway.yaml [-overlap 24h] ID", true
		overlap := fs.Duration("overlap", 24*time.Hour, "how long the old key keeps working")
		run = withID(name, fs, func(s keys.Store, id string) error {
			next, old, err := s.Rotate(ctx, id, *overlap)
			if err != nil {
				return asFlag(err)
			}
			fmt.Fprintf(stderr, "key %s replaces %s, which expires at %s; the new key is printed once: keep it now\n",
				next.ID, old.ID, old.ExpiresAt.Format(time.RFC3339))
			fmt.Fprintln(stdout, next.Secret)
			return nil
		})
	case "delete":
		synopsis, takesID = "-config gateway.yaml ID", true
		run = withID(name, fs, func(s keys.Store, id string) error {
			if err := s.Delete(ctx, id); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "key %s deleted\n", id)
			return nil
		})
	default:
		return fmt.Errorf("unknown command %q; %s", "keys "+verb, keysUsage)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "Usage: gateway %s %s\n\nFlags:\n", name, synopsis)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return fmt.Errorf("%s: %w (gateway %s -h lists its flags)", name, err, name)
	}
	if err := checkArgs(name, fs.Args(), takesID); err != nil {
		return err
	}
	cfg, err := config.Load(*configPath, getenv)
	if err != nil {
		return err
	}
	products, err := plan.NewTable(cfg.Products)
	if err != nil {
		return err
	}
	var store keys.Store = keys.FileAt(cfg.KeysFile)
	if cfg.KeysPostgresURL != "" {
		pg, err := pgstore.OpenKeys(ctx, cfg.KeysPostgresURL, pgstore.KeysOptions{})
		if err != nil {
			return err
		}
		store = pg
	}
	defer store.Close()
	return run(store, products)
}

// checkArgs refuses the arguments after the flags that the subcommand
// name does not take: none, or one key id when takesID.
func checkArgs(name string, args []string, takesID bool) error {
	// flag stops at the first argument that is not a flag: flags after
	// it were not read.
	hint := ""
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") }) {
		hint = "; flags go before the id"
		if !takesID {
			hint = "; flags after an argument are not read"
		}
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	switch {
	case !takesID && len(args) > 0:
		return fmt.Errorf("%s: takes no arguments after the flags, got %s%s", name, strings.Join(quoted, " "), hint)
	case takesID && len(args) == 0:
		return fmt.Errorf("%s: give the key's id after the flags", name)
	case takesID && len(args) > 1:
		return fmt.Errorf("%s: takes one key id, got %d arguments: %s%s", name, len(args), strings.Join(quoted, " "), hint)
	}
	return nil
}

// withID runs f with the one argument after the flags, the key's id
// (checkArgs made sure there is one).
func withID(name string, fs *flag.FlagSet, f func(s keys.Store, id string) error) func(keys.Store, *plan.Table) error {
	return func(s keys.Store, _ *plan.Table) error {
		if err := f(s, fs.Arg(0)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
}

// storeName says where keys live, for messages.
func storeName(s keys.Store, configPath string) string {
	if _, ok := s.(*pgstore.Keys); ok {
		return "PostgreSQL (keys_postgres_url of " + configPath + ")"
	}
	return "the keys file of " + configPath
}

// listKeys prints every key, one line each, in id order.
func listKeys(ctx context.Context, s keys.Store, stdout io.Writer) error {
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tPRODUCTS\tDISABLED\tEXPIRES\tCREATED")
	when := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.Format(time.RFC3339)
	}
	var invalid []string
	for after := ""; ; {
		p, err := s.List(ctx, after, 100)
		if err != nil {
			return fmt.Errorf("keys list: %w", err)
		}
		for _, bad := range p.Invalid {
			invalid = append(invalid, fmt.Sprintf("%q (%s)", bad.ID, bad.Problem))
		}
		for _, k := range p.Keys {
			var subs []string
			for _, product := range slices.Sorted(maps.Keys(k.Products)) {
				subs = append(subs, product+"="+k.Products[product])
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\t%s\n", printable(k.ID), printable(cmp.Or(k.Name, "-")), printable(strings.Join(subs, ",")),
				k.Disabled, when(k.ExpiresAt), when(k.CreatedAt))
		}
		if !p.More {
			break
		}
		after = p.Keys[len(p.Keys)-1].ID
	}
	if err := w.Flush(); err != nil {
		return err
	}
	switch len(invalid) {
	case 0:
	case 1:
		return fmt.Errorf("keys list: the row of key %s in gateway_keys is invalid, so it is not listed and its key is refused; fix the row or delete the key", invalid[0])
	default:
		return fmt.Errorf("keys list: %s of gateway_keys are invalid, so they are not listed and their keys are refused; fix each row or delete its key: %s",
			english.Count(len(invalid), "row"), strings.Join(invalid, "; "))
	}
	return nil
}

// printable returns s for a terminal: as it is when it is valid UTF-8 of
// printable characters and spaces, else quoted with Go's escapes, so that
// a name written into the store by hand cannot send control sequences to
// the operator's terminal, hide text or break the columns.
func printable(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		return strconv.Quote(s)
	}
	return s
}

// parseExpiry reads -expires: RFC 3339, or a duration from now.
func parseExpiry(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := keys.ParseTime(s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return time.Now().Add(d), nil
	}
	return time.Time{}, fmt.Errorf("-expires %q: want an RFC 3339 time such as 2027-01-31T00:00:00Z or a duration such as 720h", s)
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
	if _, dup := (*p)[product]; dup {
		return fmt.Errorf("product %q is given twice; give each product once", product)
	}
	(*p)[product] = planName
	return nil
}
