package source

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/exercisedb/exercisedb/catalog/exercise"
)

// The coherence rules catch what a family's templates say wrongly of a
// variant that differs from the family: a hold described as reps, a target
// muscle whose joint action the steps never perform, a muscle the
// description says it works but the record does not list, a one-sided
// record that never turns to the other side, a tip about an action the
// record never does, a muscle both switched off and doing the work, and gym
// myths. Each returns the problems of one record.

// isHold reports whether a record is held still rather than repeated: its
// name says isometric, hold or static, or its pattern is a static hold and
// a step times it in seconds (a static hold family may hold drills that
// move, such as a lever raise or a get-up).
func isHold(x *exercise.Exercise) bool {
	ws := strings.Fields(words(x.Name))
	if slices.Contains(ws, "isometric") || slices.Contains(ws, "hold") || slices.Contains(ws, "static") {
		return true
	}
	return x.Pattern == "static hold" && slices.ContainsFunc(x.Instructions, func(s string) bool { return strings.Contains(s, "seconds") })
}

// noActionCheck are the patterns whose records need not move the joints of
// their target muscles: they stretch, roll or hold them.
var noActionCheck = map[string]bool{
	"stretch": true, "yoga pose": true, "soft tissue": true, "mobility": true, "carry": true, "static hold": true,
}

// repWords are how a text describes repetitions: a hold has none.
var repWords = regexp.MustCompile(`(?i)\b(rise again|reps?|repetitions?|lower and rise|up and down again)\b`)

// cycleWords are how a description goes through a rep, and tipRangeWords
// how a tip speaks of moving through a range: a hold does neither.
var (
	cycleWords    = regexp.MustCompile(`(?i)\b(and|then) (lower|return|come back down|sink back)\w*\b`)
	tipRangeWords = regexp.MustCompile(`(?i)\b(full range|end of the range|past your real range)\b`)
)

// holdProblems: a held record whose text speaks of reps, of going up and
// back down, or of moving through a range.
func holdProblems(x *exercise.Exercise) []string {
	if !isHold(x) {
		return nil
	}
	var out []string
	check := func(field, text string, res ...*regexp.Regexp) {
		for _, re := range res {
			if m := re.FindString(text); m != "" {
				out = append(out, fmt.Sprintf("a hold, but its %s speaks of moving through reps (%q)", field, m))
			}
		}
	}
	check("description", x.Description, repWords, cycleWords)
	for i, s := range x.Instructions {
		check(fmt.Sprintf("instructions[%d]", i), s, repWords)
	}
	for i, s := range x.Tips {
		check(fmt.Sprintf("tips[%d]", i), s, repWords, tipRangeWords)
	}
	return out
}

// jointActions are, for a muscle whose work is one joint action, the words
// of steps that perform it: a record that targets the muscle must have one.
// The triceps straighten the elbows; the biceps bend them.
var jointActions = map[string]*regexp.Regexp{
	"triceps brachii":   regexp.MustCompile(`(?i)\b(straight\w*|extend\w*|extension|lock\w*|kick\w* back)\b`),
	"biceps brachii":    regexp.MustCompile(`(?i)\b(curl\w*|bend\w*|bent|pull\w*|row\w*|flex\w*|chin\w*)\b`),
	"gastrocnemius":     regexp.MustCompile(`(?i)\b(heels?|toes?|balls? of|ankles?|calf|calves|tiptoe\w*|bounc\w*|hop\w*|jump\w*|run\w*|sprint\w*|skip\w*|spring\w*|push\w* off|pedal\w*|climb\w*|step\w*|jog\w*|walk\w*|march\w*)\b`),
	"soleus":            regexp.MustCompile(`(?i)\b(heels?|toes?|balls? of|ankles?|calf|calves|tiptoe\w*|bounc\w*|hop\w*|jump\w*|run\w*|sprint\w*|skip\w*|spring\w*|push\w* off|pedal\w*|climb\w*|step\w*|jog\w*|walk\w*|march\w*)\b`),
	"tibialis anterior": regexp.MustCompile(`(?i)\b(toes?|dorsiflex\w*|shins?|front of the foot|forefoot|heels?)\b`),
}

// actionProblems: a target muscle whose joint action no step performs.
func actionProblems(x *exercise.Exercise) []string {
	if noActionCheck[x.Pattern] || isHold(x) {
		return nil
	}
	var out []string
	steps := strings.Join(x.Instructions, " ")
	for _, m := range x.TargetMuscles {
		if re := jointActions[m]; re != nil && !re.MatchString(steps) {
			out = append(out, fmt.Sprintf("targets the %s, but no step performs its joint action", m))
		}
	}
	return out
}

// tipActions are cues that belong to one kind of movement: a tip that uses
// one speaks of something the record does, so its description or steps say
// so too. A tip written for one family or variant and inherited by another
// that moves differently fails it: a boxer's guard on a punch straight up,
// the pull of a cable on a push against a door frame.
var tipActions = []struct {
	tip, text *regexp.Regexp
}{
	// A fighter's guard: the record takes a fighting stance or guards.
	{regexp.MustCompile(`(?i)\bhit back\b|\bguard\b`), regexp.MustCompile(`(?i)\b(guard|fighting stance)\b`)},
	// Power from turning the hips: the record turns.
	{regexp.MustCompile(`(?i)\b(turn|rotate|twist)\w* from the hips\b`), regexp.MustCompile(`(?i)\b(turn\w*|rotat\w*|twist\w*|pivot\w*)\b`)},
	// The legs lifted or lowered: the record moves or holds the legs up.
	{regexp.MustCompile(`(?i)\bwhenever the legs are low\b|\b(lift|raise|lower)\w* (the|your) legs (higher|lower)\b`), regexp.MustCompile(`(?i)\b(lift|rais|lower|extend|straighten|reach|kick|circl|scissor|swing|open|bring)\w* (both |one |your |the |each |it |them )?(straight |bent )?(legs?|knees?|feet|foot)\b|\blegs? (up|out|lifted|raised)\b|\blegs? [^.]{0,30}off the (floor|mat|ground)\b`)},
	// The pull of the resistance or of the lift: a cable, band or pulley
	// pulls, or the record pulls.
	{regexp.MustCompile(`(?i)\b(the|a heavy|a steady) pull\b`), regexp.MustCompile(`(?i)\b(cable|band|pulley|rope)s?\b|\bpull\w*`)},
}

// tipProblems: a tip about an action the record never performs.
func tipProblems(x *exercise.Exercise) []string {
	var out []string
	text := strings.Join(append([]string{x.Description}, x.Instructions...), " ")
	for i, tip := range x.Tips {
		for _, a := range tipActions {
			if m := a.tip.FindString(tip); m != "" && !a.text.MatchString(text) {
				out = append(out, fmt.Sprintf("tips[%d] speaks of %q, which its description and steps never do", i, m))
			}
		}
	}
	return out
}

// namedMuscles are the plain names a description gives muscles, and the
// muscles of the vocabulary each stands for.
var namedMuscles = []struct {
	re      *regexp.Regexp
	muscles []string
}{
	{regexp.MustCompile(`(?i)\btriceps\b`), []string{"triceps brachii"}},
	{regexp.MustCompile(`(?i)\bbiceps\b`), []string{"biceps brachii", "brachialis"}},
	{regexp.MustCompile(`(?i)\blats\b`), []string{"latissimus dorsi"}},
	{regexp.MustCompile(`(?i)\bglutes\b`), []string{"gluteus maximus", "gluteus medius", "gluteus minimus"}},
	{regexp.MustCompile(`(?i)\bhamstrings\b`), []string{"hamstrings"}},
	{regexp.MustCompile(`(?i)\b(quads|quadriceps)\b`), []string{"quadriceps"}},
	{regexp.MustCompile(`(?i)\bcalves\b`), []string{"gastrocnemius", "soleus"}},
	{regexp.MustCompile(`(?i)\bhip flexors\b`), []string{"iliopsoas", "quadriceps", "tensor fasciae latae"}},
	{regexp.MustCompile(`(?i)\bobliques\b`), []string{"external obliques", "internal obliques"}},
	{regexp.MustCompile(`(?i)\b(chest|pecs)\b`), []string{"pectoralis major", "pectoralis minor", "serratus anterior"}},
	{regexp.MustCompile(`(?i)\b(shoulders|delts)\b`), []string{"anterior deltoid", "lateral deltoid", "posterior deltoid", "supraspinatus", "infraspinatus", "teres minor", "subscapularis", "serratus anterior", "upper trapezius"}},
	{regexp.MustCompile(`(?i)\b(legs|thighs)\b`), []string{"quadriceps", "hamstrings", "adductors", "gluteus maximus", "gastrocnemius", "soleus"}},
	{regexp.MustCompile(`(?i)\barms\b`), []string{"biceps brachii", "triceps brachii", "brachialis", "brachioradialis", "wrist flexors", "wrist extensors", "anterior deltoid", "lateral deltoid", "posterior deltoid"}},
	{regexp.MustCompile(`(?i)\b(inner thighs|adductors)\b`), []string{"adductors"}},
	{regexp.MustCompile(`(?i)\btraps\b`), []string{"upper trapezius", "middle trapezius", "lower trapezius"}},
	{regexp.MustCompile(`(?i)\bfront delts\b`), []string{"anterior deltoid"}},
	{regexp.MustCompile(`(?i)\bside delts\b`), []string{"lateral deltoid"}},
	{regexp.MustCompile(`(?i)\brear delts\b`), []string{"posterior deltoid"}},
	{regexp.MustCompile(`(?i)\babs\b`), []string{"rectus abdominis", "transverse abdominis", "external obliques", "internal obliques"}},
	{regexp.MustCompile(`(?i)\b(forearms|grip)\b`), []string{"wrist flexors", "wrist extensors", "brachioradialis"}},
	{regexp.MustCompile(`(?i)\blower back\b`), []string{"erector spinae", "quadratus lumborum"}},
	{regexp.MustCompile(`(?i)\brotator cuff\b`), []string{"supraspinatus", "infraspinatus", "teres minor", "subscapularis"}},
	{regexp.MustCompile(`(?i)\bserratus\b`), []string{"serratus anterior"}},
	{regexp.MustCompile(`(?i)\bshins?\b`), []string{"tibialis anterior"}},
}

// workClaim is what a description says a record trains: the list of
// muscles after the verb, up to the first word that ends it (what it
// stretches, how, with what help).
var workClaim = regexp.MustCompile(`(?i)\b(?:works?|trains?|builds?|strengthens?|targets?|isolates?)\s+([a-z ,]+?)(?:[.;:(]|$|\b(?:and stretch\w*|` + claimEndWords + `)\b)`)

const claimEndWords = `stretch\w*|opens?|with|without|while|through|by|against|at|from|to|since|which|as|in|on|of|for|so|but|then|when|needs?`

var claimEnds = regexp.MustCompile(`(?i)^(?:` + claimEndWords + `)$`)

// nameProblems: a description that says the record works a muscle it
// does not list.
func nameProblems(x *exercise.Exercise) []string {
	var out []string
	listed := append(append([]string{}, x.TargetMuscles...), x.SecondaryMuscles...)
	for _, c := range workClaim.FindAllStringSubmatch(x.Description, -1) {
		claim := c[1]
		if f := strings.Fields(claim); len(f) > 0 && claimEnds.MatchString(f[0]) {
			continue // "work" as a noun: "shifts the work from the lats"
		}
		for _, m := range namedMuscles {
			if w := m.re.FindString(claim); w != "" && !slices.ContainsFunc(m.muscles, func(mu string) bool { return slices.Contains(listed, mu) }) {
				out = append(out, fmt.Sprintf("its description says it works the %s (%q), which it does not list", w, claim))
			}
		}
	}
	return out
}

// oneSided are the words of a name that make a record work one side at a
// time; its steps then bring in the other side.
var oneSided = regexp.MustCompile(`(?i)\b(single|one)-(arm|leg|legged|hand|handed|side|sided)\b|\bunilateral\b`)

// otherSide is how steps bring in the other side.
var otherSide = regexp.MustCompile(`(?i)\b(other|switch\w*|swap\w*|each (side|arm|leg|hand)|both (sides|arms|legs)|alternat\w*|opposite|sides?)\b`)

// sideProblems: a one-sided record whose steps never come to the other side.
func sideProblems(x *exercise.Exercise) []string {
	if !oneSided.MatchString(x.Name) || otherSide.MatchString(strings.Join(x.Instructions, " ")) {
		return nil
	}
	return []string{"works one side at a time, but no step turns to the other side"}
}

// plainMuscles are the plain words texts use for muscles.
var plainMuscles = map[string]string{
	"hip flexors": "iliopsoas",
	"quads":       "quadriceps",
	"hamstrings":  "hamstrings",
	"glutes":      "gluteus maximus",
	"lats":        "latissimus dorsi",
	"triceps":     "triceps brachii",
	"biceps":      "biceps brachii",
}

// offPattern finds a muscle a text switches off ("switch the hip flexors
// off", "turns off the quads").
var offPattern = regexp.MustCompile(`(?i)\b(?:switch|turn|shut)(?:es|s|ing|ed)?\s+(?:the\s+)?([a-z ]+?)\s+off\b|\b(?:switch|turn|shut)(?:es|s|ing|ed)?\s+off\s+(?:the\s+)?([a-z]+(?: [a-z]+)?)`)

// offProblems: a muscle the text switches off while also listing it as a
// target or having it do the work ("the hip flexors pull").
func offProblems(x *exercise.Exercise) []string {
	var out []string
	text := strings.Join(append(append([]string{x.Description}, x.Instructions...), x.Tips...), " ")
	for _, m := range offPattern.FindAllStringSubmatch(text, -1) {
		plain := strings.ToLower(strings.TrimSpace(m[1] + m[2]))
		muscle, ok := plainMuscles[plain]
		if !ok {
			continue
		}
		if slices.Contains(x.TargetMuscles, muscle) {
			out = append(out, fmt.Sprintf("switches the %s off, but targets the %s", plain, muscle))
		}
		working := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(plain) + `\s+(pull|lift|drive|do the work|take over the lift)\w*`)
		if w := working.FindString(text); w != "" {
			out = append(out, fmt.Sprintf("switches the %s off, but also says %q", plain, w))
		}
	}
	return out
}

// myths are claims coaches flag as gym myths: a region of a muscle that an
// exercise cannot single out, and fat loss from one spot. A myth may hold
// for records that list a muscle (the outer thigh of an abductor).
var myths = []struct {
	re     *regexp.Regexp
	unless []string
}{
	{regexp.MustCompile(`(?i)\b(inner|outer) (chest|pecs?)\b`), nil},
	{regexp.MustCompile(`(?i)\b(outer|inner) quads?\b|\bquad sweep\b|\bouter sweep\b|\bteardrop\b`), nil},
	{regexp.MustCompile(`(?i)\bouter thighs?\b`), []string{"gluteus medius", "gluteus minimus", "tensor fasciae latae"}},
	{regexp.MustCompile(`(?i)\bspot[- ]reduc\w*|\bburns? (belly|stomach) fat\b|\blong,? lean muscles?\b|\bmuscle confusion\b`), nil},
}

// mythProblems: a gym myth in the text.
func mythProblems(x *exercise.Exercise) []string {
	var out []string
	text := strings.Join(append(append([]string{x.Description}, x.Instructions...), x.Tips...), " ")
	for _, m := range myths {
		if slices.ContainsFunc(m.unless, func(u string) bool {
			return slices.Contains(x.TargetMuscles, u) || slices.Contains(x.SecondaryMuscles, u)
		}) {
			continue
		}
		if w := m.re.FindString(text); w != "" {
			out = append(out, fmt.Sprintf("repeats a gym myth: %q", w))
		}
	}
	return out
}

// coherence is every coherence rule applied to one record.
func coherence(x *exercise.Exercise) []string {
	var out []string
	for _, rule := range []func(*exercise.Exercise) []string{holdProblems, actionProblems, nameProblems, sideProblems, tipProblems, offProblems, mythProblems} {
		out = append(out, rule(x)...)
	}
	return out
}
