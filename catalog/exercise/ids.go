package exercise

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// MaxIDs bounds the ids of one Fetch.
const MaxIDs = 100

// Fetch returns the exercises that ids name, in the order given, as one
// page (no cursors, no further page), and the ids that name no exercise,
// in the order given. A repeated id is answered once, at its first place.
// ids holds 1 to MaxIDs ids. A listing's filter, limit and cursors cannot
// be combined with ids: f and p must be zero but for p.RecordCap, which
// keeps only the first RecordCap records found, as a listing's cap keeps
// only its first records reachable. Errors are an *ArgumentError listing
// every problem.
func (c *Catalogue) Fetch(ids []string, f Filter, p PageRequest) (Page, []string, error) {
	var bad ArgumentError
	switch {
	case len(ids) == 0:
		bad.add(FieldIDs, "", "must name at least one exercise")
	case len(ids) > MaxIDs:
		bad.add(FieldIDs, strconv.Itoa(len(ids))+" ids", "must name at most %d exercises", MaxIDs)
	}
	for _, set := range fetchConflicts(f, p) {
		bad.add(set.field, set.value, "cannot be combined with ids, which names the records itself, all on one page")
	}
	if p.RecordCap < 0 {
		bad.add(FieldRecordCap, strconv.Itoa(p.RecordCap), "must not be negative")
	}
	if err := bad.orNil(); err != nil {
		return Page{}, nil, err
	}
	page := newPage(0, len(ids))
	var missing []string
	seen := make(map[uint32]bool, len(ids))
	for _, id := range ids {
		pos, ok := c.position(id)
		switch {
		case !ok:
			missing = append(missing, id)
		case seen[pos]:
		case p.RecordCap > 0 && len(page.Exercises) >= p.RecordCap:
			seen[pos] = true // found, but beyond what the cap reaches
		default:
			seen[pos] = true
			page.add(c, pos)
		}
	}
	page.Total = len(page.Exercises)
	return page, missing, nil
}

// fetchConflicts returns the parts of a listing's filter and page request
// that are set, none of which Fetch takes, with their values.
func fetchConflicts(f Filter, p PageRequest) []struct{ field, value string } {
	var out []struct{ field, value string }
	for _, s := range []struct{ field, value string }{
		{FieldBodyParts, strings.Join(f.BodyParts, ",")},
		{FieldEquipments, strings.Join(f.Equipments, ",")},
		{FieldDifficulties, strings.Join(f.Difficulties, ",")},
		{FieldExerciseTypes, strings.Join(f.ExerciseTypes, ",")},
		{FieldTargetMuscles, strings.Join(f.TargetMuscles, ",")},
		{FieldSecondaryMuscles, strings.Join(f.SecondaryMuscles, ",")},
		{FieldName, f.Name},
		{FieldQuery, f.Query},
		{FieldLimit, strconv.Itoa(p.Limit)},
		{FieldAfter, p.After},
		{FieldBefore, p.Before},
	} {
		if s.value != "" && s.value != "0" {
			out = append(out, s)
		}
	}
	if len(out) == 0 && !reflect.ValueOf(f).IsZero() {
		// A filter field this list does not know yet is set.
		out = append(out, struct{ field, value string }{FieldFilter, fmt.Sprintf("%+v", f)})
	}
	return out
}
