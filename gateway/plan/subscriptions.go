package plan

import (
	"fmt"
	"maps"
	"slices"

	"github.com/exercisedb/exercisedb/pkg/english"
)

// CheckSubscriptions reports, as an error naming it, the first product of
// subs (product name → plan name, as a key holds them) that the table does
// not configure, or whose plan the product does not offer.
func (t *Table) CheckSubscriptions(subs map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(subs)) {
		p, ok := t.byName[name]
		if !ok {
			return fmt.Errorf("no product %q; the products are %s", name, english.List(slices.Sorted(maps.Keys(t.byName)), "and"))
		}
		if _, ok := p.Plan(subs[name]); !ok {
			return fmt.Errorf("product %q has no plan %q; its plans are %s", name, subs[name], english.List(slices.Sorted(maps.Keys(p.plans)), "and"))
		}
	}
	return nil
}
