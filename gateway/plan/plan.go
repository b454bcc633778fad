// Package plan holds the products the gateway sells and their plans, as
// data: which operations a plan may call, its rate limit, its quota and its
// record cap. Nothing else in the gateway branches on a plan's name.
package plan

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/limit"
	"github.com/exercisedb/exercisedb/gateway/medialink"
)

// Operation names an operation of the public API, as plans list them.
type Operation string

// The operations of the public API.
const (
	ExercisesByBodyParts Operation = "exercisesByBodyParts"
	Exercises            Operation = "exercises"
	Exercise             Operation = "exercise"
	ExerciseVariations   Operation = "exerciseVariations"
	ExerciseAlternatives Operation = "exerciseAlternatives"
	ExerciseTypes        Operation = "exerciseTypes"
	BodyParts            Operation = "bodyParts"
	Muscles              Operation = "muscles"
	Equipments           Operation = "equipments"
	MovementPatterns     Operation = "movementPatterns"
	Liveness             Operation = "liveness"
	// Usage, a caller's own figures, is allowed on every plan and never
	// counted against its limits (see Free).
	Usage Operation = "usage"
	// Changelog, what each catalogue version changed, is allowed on every
	// plan (see OnEveryPlan) but counted like any call: it is what lets a
	// client keep the records it cached instead of fetching them again.
	Changelog Operation = "changelog"
)

// operations are every operation, in the order messages list them.
var operations = []Operation{
	ExercisesByBodyParts, Exercises, Exercise, ExerciseVariations, ExerciseAlternatives, ExerciseTypes,
	BodyParts, Muscles, Equipments, MovementPatterns, Liveness, Usage, Changelog,
}

// AllOperations, in a plan's list of operations, grants every operation.
const AllOperations = "*"

// ParseOperation returns the operation a plan's list names.
func ParseOperation(s string) (Operation, error) {
	if op := Operation(s); slices.Contains(operations, op) {
		return op, nil
	}
	names := make([]string, len(operations))
	for i, op := range operations {
		names[i] = string(op)
	}
	return "", fmt.Errorf("unknown operation %q (known: %s)", s, strings.Join(names, ", "))
}

// Free reports whether op is allowed on every plan, whatever its list of
// operations, and counted against no rate limit or quota.
func (op Operation) Free() bool { return op == Usage }

// OnEveryPlan reports whether op is allowed on every plan, whatever its
// list of operations.
func (op Operation) OnEveryPlan() bool { return op.Free() || op == Changelog }

// Plan is what a subscription allows.
type Plan struct {
	Name       string
	all        bool
	operations map[Operation]bool
	// Rate and Quota are nil when the plan has none.
	Rate  *limit.Rate
	Quota *limit.Quota
	// RecordCap, when positive, is how many records of a listing the plan
	// can reach.
	RecordCap int
	// MaxMediaHeight is the tallest demonstration the plan offers.
	MaxMediaHeight int
}

// DefaultMaxMediaHeight is a plan's MaxMediaHeight unless it sets one: the
// height of imageUrl.
const DefaultMaxMediaHeight = 360

// Allows reports whether the plan may call op.
func (p *Plan) Allows(op Operation) bool { return p.all || p.operations[op] || op.OnEveryPlan() }

// Limited reports whether the plan has a rate limit or a quota.
func (p *Plan) Limited() bool { return p.Rate != nil || p.Quota != nil }

// Product is a product variant: its hosts, media and plans.
type Product struct {
	Name string
	// MediaKind is the kind of demonstration the product sells.
	MediaKind medialink.Kind
	// MediaBase is where a published media set lives; "" means the
	// gateway's own /media.
	MediaBase string
	// imagePrefix and imageSuffix surround the media key in an image URL
	// when the product has a template of its own (templated).
	imagePrefix, imageSuffix string
	templated                bool
	plans                    map[string]*Plan
}

// Plan returns the product's plan of the given name.
func (p *Product) Plan(name string) (*Plan, bool) {
	pl, ok := p.plans[name]
	return pl, ok
}

// ImageTemplate returns what surrounds a media key in the product's image
// URLs when it has a template of its own (media.image_url): its imageUrl
// then points at media hosted elsewhere, and ok is true.
func (p *Product) ImageTemplate() (prefix, suffix string, ok bool) {
	return p.imagePrefix, p.imageSuffix, p.templated
}

// Table finds products by host.
type Table struct {
	byHost map[string]*Product
	byName map[string]*Product
}

// NewTable builds the table from validated configuration.
func NewTable(products []config.Product) (*Table, error) {
	t := &Table{byHost: map[string]*Product{}, byName: map[string]*Product{}}
	for _, cp := range products {
		prefix, suffix, _ := strings.Cut(cp.Media.ImageURL, "{mediaKey}")
		p := &Product{Name: cp.Name, MediaKind: cp.Media.Kind, MediaBase: cp.Media.BaseURL,
			imagePrefix: prefix, imageSuffix: suffix, templated: cp.Media.ImageURL != "", plans: map[string]*Plan{}}
		for name, cpl := range cp.Plans {
			pl, err := newPlan(name, cpl)
			if err != nil {
				return nil, fmt.Errorf("product %s: plan %s: %w", cp.Name, name, err)
			}
			p.plans[name] = pl
		}
		for _, h := range cp.Hosts {
			t.byHost[normalHost(h)] = p
		}
		t.byName[p.Name] = p
	}
	return t, nil
}

func newPlan(name string, c config.Plan) (*Plan, error) {
	p := &Plan{Name: name, operations: map[Operation]bool{}, RecordCap: c.RecordCap,
		MaxMediaHeight: cmp.Or(c.MaxMediaHeight, DefaultMaxMediaHeight)}
	var errs []error
	for _, name := range c.Operations {
		if name == AllOperations {
			p.all = true
			continue
		}
		op, err := ParseOperation(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("operations: %w", err))
		}
		p.operations[op] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if c.Rate != nil {
		p.Rate = &limit.Rate{Requests: c.Rate.Requests, Per: c.Rate.Per, Burst: c.Rate.Burst}
	}
	if c.Quota != nil {
		p.Quota = &limit.Quota{Requests: c.Quota.Requests, Period: c.Quota.Per}
	}
	return p, nil
}

// ByHost returns the product addressed by host, which may carry a port and
// any letter case.
func (t *Table) ByHost(host string) (*Product, bool) {
	p, ok := t.byHost[normalHost(host)]
	return p, ok
}

// ByName returns the product of the given name.
func (t *Table) ByName(name string) (*Product, bool) {
	p, ok := t.byName[name]
	return p, ok
}

func normalHost(h string) string {
	h = strings.TrimSpace(h)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}
