package importer

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Report says what an import read, wrote and left out. Its JSON form is
// what catalogimport -report writes; WriteText is what it prints.
type Report struct {
	Source string `json:"source"`
	// Input is the path read, when the import read one (Import).
	Input          string `json:"input,omitempty"`
	RecordsIn      int    `json:"recordsIn"`
	RecordsOut     int    `json:"recordsOut"`
	RecordsSkipped int    `json:"recordsSkipped"`
	// SkippedByReason counts skipped records by reason; a record counts
	// under every reason that applies to it, so the counts may add up to
	// more than RecordsSkipped.
	SkippedByReason map[string]int `json:"skippedByReason"`
	// Values lists every source value met, with its mapping and the number
	// of records (skipped ones included) that carry it, by field then
	// value. A value a name rule refined has one entry per rule that
	// applied and one for the records the table mapped.
	Values []Value `json:"values"`
	// Filled lists what the import set that the source does not say.
	Filled []Filled `json:"filled,omitempty"`
	// Skipped lists the skipped records, in source order.
	Skipped []Skip `json:"skipped"`
	// Licences counts the records out by the licence of their source data
	// (wger only; free-exercise-db is in the public domain).
	Licences map[string]int `json:"licences,omitempty"`
	// Attributions credit the authors of every record out (wger only):
	// its data is CC BY-SA, and anything redistributed from it must keep
	// the attribution and the licence.
	Attributions []Attribution `json:"attributions,omitempty"`

	index map[valueKey]int // position in Values while the import runs
}

// Value is one source value of one field and what it was mapped to.
type Value struct {
	Field string `json:"field"` // FieldLevel, FieldCategory, FieldEquipment or FieldMuscle
	Value string `json:"value"`
	// Rule names the name rule that mapped it, if one did.
	Rule string `json:"rule,omitempty"`
	// MappedTo is empty when the value is unmapped.
	MappedTo []string `json:"mappedTo"`
	Records  int      `json:"records"`
}

// Unmapped reports whether the value has no mapping.
func (v Value) Unmapped() bool { return len(v.MappedTo) == 0 }

// Filled is a value the import set on records whose source does not say it.
type Filled struct {
	Field   string `json:"field"`
	Value   string `json:"value"`
	Records int    `json:"records"`
	Reason  string `json:"reason"`
}

// Skip is a record left out.
type Skip struct {
	SourceID string   `json:"sourceId"`
	Name     string   `json:"name"` // as the source writes it
	Reasons  []string `json:"reasons"`
	// Detail names the unmapped values, or the record kept in place of a
	// duplicate.
	Detail string `json:"detail,omitempty"`
}

// Attribution credits the authors of one record out.
type Attribution struct {
	ID       string `json:"id"`   // our id
	Name     string `json:"name"` // our name
	SourceID string `json:"sourceId"`
	UUID     string `json:"uuid,omitempty"`
	// Licence and Author are those of the exercise data (muscles,
	// equipment, category); NameLicence and NameAuthor those of the
	// translation that gives the name.
	Licence     string `json:"licence"`
	Author      string `json:"author"`
	NameLicence string `json:"nameLicence"`
	NameAuthor  string `json:"nameAuthor"`
}

// Unmapped returns the unmapped source values.
func (r *Report) Unmapped() []Value {
	return slices.DeleteFunc(slices.Clone(r.Values), func(v Value) bool { return !v.Unmapped() })
}

type valueKey struct{ field, value, rule string }

func newReport(source string, in int) *Report {
	return &Report{Source: source, RecordsIn: in, SkippedByReason: map[string]int{}, Skipped: []Skip{}, index: map[valueKey]int{}}
}

// tally counts the values of one record, each once.
type tally struct {
	rep  *Report
	seen map[valueKey]bool
}

func (r *Report) tally() *tally {
	return &tally{rep: r, seen: map[valueKey]bool{}}
}

func (t *tally) count(field, value, rule string, to []string) {
	k := valueKey{field, value, rule}
	if t.seen[k] {
		return
	}
	t.seen[k] = true
	if i, ok := t.rep.index[k]; ok {
		t.rep.Values[i].Records++
		return
	}
	t.rep.index[k] = len(t.rep.Values)
	t.rep.Values = append(t.rep.Values, Value{Field: field, Value: value, Rule: rule, MappedTo: slices.Clone(to), Records: 1})
}

func (r *Report) skip(s Skip) {
	r.Skipped = append(r.Skipped, s)
	for _, reason := range s.Reasons {
		r.SkippedByReason[reason]++
	}
}

func (r *Report) attribute(a Attribution) {
	if r.Licences == nil {
		r.Licences = map[string]int{}
	}
	r.Licences[a.Licence]++
	r.Attributions = append(r.Attributions, a)
}

// finish sorts the values and sets the totals.
func (r *Report) finish(out int) {
	r.RecordsOut = out
	r.RecordsSkipped = len(r.Skipped)
	r.index = nil
	for i := range r.Values {
		if r.Values[i].MappedTo == nil {
			r.Values[i].MappedTo = []string{}
		}
	}
	slices.SortStableFunc(r.Values, func(a, b Value) int {
		return cmp.Or(
			cmp.Compare(slices.Index(fieldOrder, a.Field), slices.Index(fieldOrder, b.Field)),
			cmp.Compare(a.Value, b.Value),
			cmp.Compare(a.Rule, b.Rule),
		)
	})
}

// WriteText writes the report for a person: totals, skips by reason, the
// unmapped values, then every mapping with its record count, the values
// filled in, the duplicates dropped and the licences. The list of skipped
// records is only in the JSON form, except for duplicates.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", r.Source)
	if r.Input != "" {
		fmt.Fprintf(&b, " (%s)", r.Input)
	}
	fmt.Fprintf(&b, ": %d records in, %d out, %d skipped\n", r.RecordsIn, r.RecordsOut, r.RecordsSkipped)
	if len(r.SkippedByReason) > 0 {
		b.WriteString("skipped, by reason (a record counts under each reason that applies):\n")
		reasons := slices.SortedFunc(maps.Keys(r.SkippedByReason), func(a, c string) int {
			return cmp.Or(cmp.Compare(r.SkippedByReason[c], r.SkippedByReason[a]), cmp.Compare(a, c))
		})
		for _, reason := range reasons {
			fmt.Fprintf(&b, "  %-24s %5d\n", reason+":", r.SkippedByReason[reason])
		}
	}
	if un := r.Unmapped(); len(un) > 0 {
		b.WriteString("unmapped source values (records carrying the value, skipped ones included):\n")
		for _, v := range un {
			fmt.Fprintf(&b, "  %s %q: unmapped (%s)\n", v.Field, v.Value, plural(v.Records, "record"))
		}
	}
	b.WriteString("mapped source values:\n")
	for _, v := range r.Values {
		if v.Unmapped() {
			continue
		}
		rule := ""
		if v.Rule != "" {
			rule = " [" + v.Rule + "]"
		}
		to := make([]string, len(v.MappedTo))
		for i, t := range v.MappedTo {
			to[i] = fmt.Sprintf("%q", t)
		}
		fmt.Fprintf(&b, "  %s %q%s → %s (%s)\n", v.Field, v.Value, rule, strings.Join(to, ", "), plural(v.Records, "record"))
	}
	for _, f := range r.Filled {
		fmt.Fprintf(&b, "filled in: %s %q on %s: %s\n", f.Field, f.Value, plural(f.Records, "record"), f.Reason)
	}
	var dups []Skip
	for _, s := range r.Skipped {
		if slices.Contains(s.Reasons, ReasonDuplicateName) || slices.Contains(s.Reasons, ReasonIDCollision) {
			dups = append(dups, s)
		}
	}
	if len(dups) > 0 {
		b.WriteString("dropped as duplicates:\n")
		for _, s := range dups {
			fmt.Fprintf(&b, "  %q (source id %s): %s\n", s.Name, s.SourceID, s.Detail)
		}
	}
	if len(r.Licences) > 0 {
		b.WriteString("licences of the records out (attribution required; the JSON report lists the authors):")
		for _, l := range slices.Sorted(maps.Keys(r.Licences)) {
			fmt.Fprintf(&b, " %s %d;", l, r.Licences[l])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
