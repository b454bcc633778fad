package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// count is one row of a stats table.
type count struct {
	name string
	n    int
}

// writeStats prints the counts of the README's table: the total, then the
// records per body part, equipment, type and difficulty, each in vocabulary
// order so that unused values show as 0.
func writeStats(w io.Writer, f *exercise.File) error {
	bodyParts, equipments := map[string]int{}, map[string]int{}
	types, difficulties := map[string]int{}, map[string]int{}
	for _, x := range f.Exercises {
		tally(bodyParts, x.BodyParts...)
		tally(equipments, x.Equipments...)
		tally(types, x.ExerciseTypes...)
		tally(difficulties, x.Difficulty)
	}
	v := f.Vocabularies
	tables := []struct {
		title string
		rows  []count
	}{
		{"Total", []count{{"exercises", len(f.Exercises)}}},
		{"Body part", rows(bodyParts, exercise.Names(v.BodyParts))},
		{"Equipment", rows(equipments, exercise.Names(v.Equipments))},
		{"Exercise type", rows(types, exercise.Names(v.ExerciseTypes))},
		{"Difficulty", rows(difficulties, exercise.Names(v.Difficulties))},
	}
	var buf bytes.Buffer
	for i, t := range tables {
		if i > 0 {
			buf.WriteString("\n")
		}
		fmt.Fprintf(&buf, "| %s | Exercises |\n| --- | ---: |\n", t.title)
		for _, r := range t.rows {
			fmt.Fprintf(&buf, "| %s | %d |\n", r.name, r.n)
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func tally(m map[string]int, values ...string) {
	for _, v := range values {
		m[v]++
	}
}

func rows(m map[string]int, order []string) []count {
	out := make([]count, len(order))
	for i, name := range order {
		out[i] = count{name, m[name]}
	}
	return out
}
