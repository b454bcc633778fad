package search

import (
	"maps"
	"slices"
)

// stopWords are left out of a query's required words: "lunge with
// dumbbells" need not find "with" in a name, nor "leg day" "day", nor
// "lower back pain" "pain" (which a typo would turn into "pin"), nor
// "dumbbell only" "only", nor "bigger arms" "bigger", nor "ankle rehab"
// "rehab", nor "glutes for women" "women".
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "with": true, "on": true, "for": true, "of": true,
	"and": true, "to": true, "in": true, "using": true, "at": true, "exercise": true, "exercises": true,
	"workout": true, "workouts": true, "day": true, "variation": true, "variations": true, "pain": true,
	"only": true, "just": true, "routine": true, "routines": true, "drill": true, "drills": true,
	// Goals' adjectives: "bigger arms", "strong core", "grow glutes".
	"bigger": true, "toned": true, "strong": true, "stronger": true, "grow": true, "growth": true, "build": true, "better": true,
	"lose": true, "rehab": true, "prehab": true, "heavy": true,
	// Who it is for does not choose the exercise: "glutes for women".
	"women": true, "woman": true, "men": true, "ladies": true, "female": true, "male": true, "girls": true, "guys": true,
	// Asking and judging: "how do i do a proper push up", "best glute
	// exercise please", "exercise to tone arms".
	"how": true, "do": true, "does": true, "my": true, "me": true, "please": true, "proper": true, "properly": true,
	"correct": true, "correctly": true, "form": true, "technique": true, "good": true, "best": true,
	"effective": true, "version": true, "some": true, "want": true, "need": true, "should": true, "is": true, "are": true,
	"tone": true, "toning": true, "friendly": true, "gentle": true, "after": true, "athletes": true,
	// Both sides at once is the plain form: "bilateral calf raise".
	"bilateral": true,
}

// insteadWords ask for another exercise than the one named ("pull-up
// alternative", "instead of leg press"): a search answers with its
// alternatives (see InsteadOf). They are stop words too, so that
// a query naming no one exercise finds what its other words do, rather
// than "alternative" read as a typo of "alternating".
var insteadWords = map[string]bool{
	"alternative": true, "alternatives": true, "substitute": true, "substitutes": true, "instead": true,
	"replacement": true, "replacements": true, "swap": true, "replace": true,
}

func init() { maps.Copy(stopWords, insteadWords) }

// asksInstead reports whether a query asks for another exercise than the
// one it names.
func asksInstead(q string) bool {
	return slices.ContainsFunc(words(q), func(w string) bool { return insteadWords[w] })
}
