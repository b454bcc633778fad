package exercise

import "slices"

// neighbourPatterns maps a movement pattern to the patterns an
// alternatives list falls back on, nearest first, when nothing of the
// pattern itself fits the filter. A neighbour trains the same muscles by
// another path (a vertical pull's lats by a row or a pullover); a
// neighbour's records must still share a target muscle with the
// exercise. Patterns that have no close neighbour (static holds,
// locomotion, conditioning, inversions, soft tissue) are left out: a far
// substitute is worse than none.
var neighbourPatterns = map[string][]string{
	"horizontal push":   {"chest fly", "vertical push"},
	"vertical push":     {"horizontal push", "shoulder raise"},
	"horizontal pull":   {"vertical pull", "rear delt"},
	"vertical pull":     {"horizontal pull", "pullover"},
	"chest fly":         {"horizontal push"},
	"pullover":          {"vertical pull", "horizontal pull"},
	"squat":             {"lunge", "knee extension"},
	"lunge":             {"squat"},
	"hinge":             {"bridge", "spinal extension", "knee flexion"},
	"bridge":            {"hinge"},
	"knee extension":    {"squat", "lunge"},
	"knee flexion":      {"hinge", "bridge"},
	"hip abduction":     {"bridge"},
	"hip adduction":     {"lunge"},
	"hip flexion":       {"trunk flexion"},
	"ankle":             {"jump"},
	"elbow flexion":     {"vertical pull", "horizontal pull"},
	"elbow extension":   {"horizontal push", "vertical push"},
	"wrist and grip":    {"carry"},
	"shoulder raise":    {"vertical push"},
	"rear delt":         {"horizontal pull", "shoulder rotation"},
	"shrug":             {"carry"},
	"shoulder rotation": {"rear delt", "scapular control"},
	"scapular control":  {"shoulder rotation", "rear delt"},
	"trunk flexion":     {"anti-extension", "hip flexion"},
	"anti-extension":    {"trunk flexion"},
	"rotation":          {"lateral flexion", "trunk flexion"},
	"lateral flexion":   {"rotation"},
	"spinal extension":  {"hinge", "bridge"},
	"carry":             {"wrist and grip", "shrug"},
	"jump":              {"squat", "lunge"},
	"throw":             {"rotation"},
	"olympic lift":      {"jump", "hinge"},
	"stretch":           {"mobility"},
	"mobility":          {"stretch"},
}

// NeighbourTable returns every pattern that has neighbours, with them.
func NeighbourTable() map[string][]string {
	t := make(map[string][]string, len(neighbourPatterns))
	for p, ns := range neighbourPatterns {
		t[p] = slices.Clone(ns)
	}
	return t
}
