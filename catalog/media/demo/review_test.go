package demo

import (
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"strings"
	"testing"
)

var review = flag.String("review", "", "write review sheets (PNG) to this directory")

// TestReviewTemplates draws every template's poster and film strip for a
// person to look at: go test -run ReviewTemplates -review /tmp/demo
func TestReviewTemplates(t *testing.T) {
	if *review == "" {
		t.Skip("no -review directory")
	}
	l := theLibrary()
	os.MkdirAll(*review, 0o755)
	eq := map[string][]string{
		"bench-press": {"barbell", "bench"}, "incline-bench-press": {"dumbbell", "bench"}, "chest-fly-end": {"dumbbell", "bench"},
		"cable-fly-front": {"cable"}, "incline-push-up": {"bench"}, "dip": {"dip station"}, "bench-dip": {"bench"},
		"bent-over-row": {"barbell"}, "seated-cable-row": {"cable"}, "pull-up": {"pull-up bar"}, "lat-pulldown": {"cable"},
		"inverted-row": {"smith machine"}, "straight-arm-pulldown": {"cable"}, "pullover": {"dumbbell", "bench"}, "shrug": {"dumbbell"},
		"back-extension": {"bench"}, "squat": {"barbell"}, "front-squat": {"barbell"}, "lunge": {"dumbbell"}, "step-up": {"plyo box"},
		"leg-press": {"leverage machine"}, "leg-extension": {"leverage machine"}, "leg-curl": {"leverage machine"},
		"overhead-press": {"barbell"}, "seated-overhead-press": {"dumbbell", "bench"}, "push-press": {"barbell"}, "front-raise": {"dumbbell"},
		"lateral-raise": {"dumbbell"}, "upright-row": {"barbell"}, "face-pull": {"cable"}, "external-rotation": {"cable"}, "curl": {"barbell"},
		"seated-curl": {"dumbbell", "bench"}, "preacher-curl": {"ez barbell", "bench"}, "concentration-curl": {"dumbbell", "bench"},
		"triceps-pushdown": {"cable"}, "overhead-triceps-extension": {"dumbbell"}, "lying-triceps-extension": {"ez barbell", "bench"},
		"triceps-kickback": {"dumbbell"}, "wrist-curl": {"dumbbell", "bench"}, "hanging-leg-raise": {"pull-up bar"}, "russian-twist": {"medicine ball"},
		"rollout": {"ab wheel"}, "deadlift": {"barbell"}, "romanian-deadlift": {"barbell"}, "good-morning": {"barbell"}, "kettlebell-swing": {"kettlebell"},
		"hip-thrust": {"barbell", "bench"}, "jump-rope": {"jump rope"}, "rowing-machine": {"rowing machine"}, "bike": {"stationary bike"},
		"ski-erg": {"ski erg"}, "battle-ropes": {"battle ropes"}, "stair-climb": {"stair climber"}, "box-jump": {"plyo box"}, "clean": {"barbell"},
		"snatch": {"barbell"}, "jerk": {"barbell"}, "high-pull": {"barbell"}, "clean-and-press": {"barbell"}, "thruster": {"barbell"},
		"carry": {"kettlebell"}, "snatch-balance": {"barbell"}, "bike-standing": {"stationary bike"}, "toes-to-bar": {"pull-up bar"}, "chair-leg-raise": {"dip station"}, "hanging-l-sit": {"pull-up bar"}, "kneeling-hip-thrust": {"resistance band"}, "muscle-up": {"gymnastic rings"}, "jumping-lunge": nil, "pec-deck-front": {"leverage machine"}, "seated-reverse-fly-front": {"leverage machine"}, "supine-leg-stretch": {"resistance band"}, "cable-crunch": {"cable"}, "standing-kickback": {"cable"}, "foam-roll-back": {"foam roller"}, "foam-roll-quad": {"foam roller"}, "foam-roll-calf": {"foam roller"},
		"foam-roll-hamstring": {"foam roller"}, "depth-jump": {"plyo box"}, "depth-drop": {"plyo box"}, "carry-front": {"kettlebell"},
		"carry-back": {"barbell"}, "half-kneeling-press": {"dumbbell"}, "dead-hang": {"pull-up bar"}, "flexed-hang": {"pull-up bar"},
		"front-lever": {"pull-up bar"}, "tuck-planche": {"parallettes"}, "ring-support": {"gymnastic rings"}, "landmine-press": {"landmine", "barbell"},
		"pallof-press": {"cable"}, "woodchop": {"cable"}, "slam": {"medicine ball"}, "sled-push": {"sled"}, "reverse-hyperextension": {"bench"}, "overhead-carry": {"dumbbell"}, "seated-calf-raise": {"dumbbell", "bench"},
		"lateral-raise-front": {"dumbbell"}, "hip-abduction-front": {"cable"}, "hip-adduction-front": {"resistance band"},
	}
	var demos []Demo
	var names []string
	for _, n := range sortedKeys(l.templates) {
		d := For(Input{Name: n, Equipments: eq[n], TargetMuscles: []string{"quadriceps", "pectoralis major", "biceps brachii"}, SecondaryMuscles: []string{"gluteus maximus", "anterior deltoid"}})
		d.tmpl = l.templates[n]
		d.faithful = true
		demos = append(demos, d)
		names = append(names, n)
	}
	for i := 0; i < len(demos); i += 8 {
		j := min(i+8, len(demos))
		img := image.NewRGBA(image.Rect(0, 0, 8*110, (j-i)*110))
		for k := i; k < j; k++ {
			s := FilmStrip(demos[k], 110, 3)
			draw.Draw(img, image.Rect(0, (k-i)*110, s.Rect.Dx(), (k-i+1)*110), s, image.Point{}, draw.Src)
		}
		f, _ := os.Create(fmt.Sprintf("%s/strips-%02d.png", *review, i/8))
		png.Encode(f, img)
		f.Close()
		t.Logf("strips %02d: %v", i/8, names[i:j])
	}
	for i := 0; i < len(demos); i += 30 {
		j := min(i+30, len(demos))
		f, _ := os.Create(*review + "/templates-" + string(rune('a'+i/30)) + ".png")
		png.Encode(f, ContactSheet(demos[i:j], names[i:j], 6, 180))
		f.Close()
		t.Logf("sheet %c: %v", 'a'+i/30, names[i:j])
	}
}

// TestReviewIcons writes the exercise-type icons and a few large frames.
func TestReviewIcons(t *testing.T) {
	if *review == "" {
		t.Skip("no -review directory")
	}
	var ds []Demo
	for _, ty := range []string{"strength", "cardio", "plyometrics", "stretching", "weightlifting", "yoga", "aerobic", "unknown"} {
		ds = append(ds, Icon(ty))
	}
	f, _ := os.Create(*review + "/icons.png")
	png.Encode(f, ContactSheet(ds, nil, 8, 140))
	f.Close()
	var at180 []Demo
	for _, n := range []string{"barbell back squat", "push-up", "barbell deadlift", "pull-up", "dumbbell lateral raise", "triceps pushdown", "crunch", "kettlebell swing"} {
		at180 = append(at180, For(inputOf(record(t, n))))
	}
	f, _ = os.Create(*review + "/at180.png")
	png.Encode(f, ContactSheet(at180, nil, 4, 182))
	f.Close()
	for _, n := range []string{"barbell bench press", "lat pulldown", "ring support hold", "smith machine box squat"} {
		d := For(inputOf(record(t, n)))
		fr := d.Frames(360)
		f, _ := os.Create(*review + "/large-" + strings.ReplaceAll(n, " ", "-") + ".png")
		png.Encode(f, fr[d.PosterFrame()])
		f.Close()
	}
}

// TestReviewStills writes the still poses of records without a faithful template.
func TestReviewStills(t *testing.T) {
	if *review == "" {
		t.Skip("no -review directory")
	}
	seen := map[string]bool{}
	var ds []Demo
	for _, x := range catalogue(t).Exercises {
		d := For(inputOf(x))
		if d.Faithful() || seen[d.Fingerprint()] || seen[x.Pattern+strings.Join(x.Equipments, ",")] {
			continue
		}
		seen[d.Fingerprint()], seen[x.Pattern+strings.Join(x.Equipments, ",")] = true, true
		ds = append(ds, d)
	}
	if len(ds) > 64 {
		ds = ds[:64]
	}
	f, _ := os.Create(*review + "/stills.png")
	png.Encode(f, ContactSheet(ds, nil, 8, 120))
	f.Close()
}
