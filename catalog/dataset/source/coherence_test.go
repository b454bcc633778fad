package source

import (
	"slices"
	"strings"
	"testing"
)

// TestLintCoherence seeds each class of template error into a variant of
// testRow and checks that the lint reports it, and that the variant written
// right passes.
func TestLintCoherence(t *testing.T) {
	for _, tc := range []struct {
		name, bad, good, want string
	}{
		{
			name: "hold described as reps",
			bad:  "    - {name: isometric barbell row hold, equipments: [barbell], about: You lower the bar and rise again., slots: {setup: Hinge forward over the barbell., load: bar}}\n",
			good: "    - {name: isometric barbell row hold, equipments: [barbell], about: The isometric hold keeps the bar still at the waist., slots: {setup: Hinge forward over the barbell., load: bar, pause: Hold the bar at your waist for 30 seconds.}}\n",
			want: `"isometric barbell row hold": a hold, but its description speaks of moving through reps ("rise again")`,
		},
		{
			name: "hold with a tip about the range",
			bad:  "    - {name: isometric barbell row hold, equipments: [barbell], about: The isometric hold keeps the bar still., tips: [Use the full range.], slots: {setup: Hinge forward over the barbell., load: bar}}\n",
			good: "    - {name: isometric barbell row hold, equipments: [barbell], about: The isometric hold keeps the bar still., tips: [Keep the bar still.], slots: {setup: Hinge forward over the barbell., load: bar}}\n",
			want: `a hold, but its tips[0] speaks of moving through reps ("full range")`,
		},
		{
			name: "target whose joint action no step performs",
			bad:  "    - {name: barbell triceps row, equipments: [barbell], targetMuscles: [triceps brachii], about: The triceps hold the bar., slots: {setup: Hinge forward over the barbell., load: bar}}\n",
			good: "    - {name: barbell triceps row, equipments: [barbell], targetMuscles: [triceps brachii], about: The triceps hold the bar., slots: {setup: Hinge forward over the barbell., load: bar, pause: Straighten your elbows to push the bar back.}}\n",
			want: `"barbell triceps row": targets the triceps brachii, but no step performs its joint action`,
		},
		{
			name: "description names a muscle the record does not list",
			bad:  "    - {name: barbell high row, equipments: [barbell], about: \"It also works the triceps and lats, pulling high.\", slots: {setup: Hinge forward over the barbell., load: bar}}\n",
			good: "    - {name: barbell high row, equipments: [barbell], about: \"It also works the lats, pulling high.\", slots: {setup: Hinge forward over the barbell., load: bar}}\n",
			want: `"barbell high row": its description says it works the triceps`,
		},
		{
			name: "one side without the other",
			bad:  "    - {name: single-arm barbell row, equipments: [barbell], slots: {setup: Hinge forward over the barbell and hold it with one arm., load: bar}}\n",
			good: "    - {name: single-arm barbell row, equipments: [barbell], slots: {setup: Hinge forward over the barbell and hold it with one arm; switch arms halfway., load: bar}}\n",
			want: `"single-arm barbell row": works one side at a time, but no step turns to the other side`,
		},
		{
			name: "tip from a boxing family",
			bad:  "    - {name: barbell boxer row, equipments: [barbell], tips: [Keep your hands up as if someone could hit back.], slots: {setup: Hinge forward over the barbell like a boxer., load: bar}}\n",
			good: "    - {name: barbell boxer row, equipments: [barbell], tips: [Keep your hands up as if someone could hit back.], slots: {setup: Hinge forward over the barbell like a boxer with your guard up., load: bar}}\n",
			want: `"barbell boxer row": tips[0] speaks of "hit back", which its description and steps never do`,
		},
		{
			name: "tip about a pull the record never has",
			bad:  "    - {name: barbell press row, equipments: [barbell], description: \"The {name} is a press away from the body.\", tips: [Resist the pull.], slots: {setup: Hinge forward over the barbell., load: bar, pull: Press the bar to your waist.}}\n",
			good: "    - {name: barbell press row, equipments: [barbell], description: \"The {name} is a press away from the body.\", tips: [Resist the weight.], slots: {setup: Hinge forward over the barbell., load: bar, pull: Press the bar to your waist.}}\n",
			want: `"barbell press row": tips[0] speaks of "the pull"`,
		},
		{
			name: "tip about legs the record never lifts",
			bad:  "    - {name: barbell floor row, equipments: [barbell], tips: [Keep your back down whenever the legs are low.], slots: {setup: Hinge forward over the barbell on the floor., load: bar}}\n",
			good: "    - {name: barbell floor row, equipments: [barbell], tips: [Keep your back flat.], slots: {setup: Hinge forward over the barbell on the floor., load: bar}}\n",
			want: `"barbell floor row": tips[0] speaks of "whenever the legs are low"`,
		},
		{
			name: "muscle switched off and doing the work",
			bad:  "    - {name: barbell janda row, equipments: [barbell], about: \"Pressing the heels down switches the hip flexors off, as Janda taught; the hip flexors pull you up.\", slots: {setup: Hinge forward over the barbell., load: bar}}\n",
			good: "    - {name: barbell janda row, equipments: [barbell], about: \"Pressing the heels down switches the hip flexors off, as Janda taught.\", slots: {setup: Hinge forward over the barbell., load: bar}}\n",
			want: `"barbell janda row": switches the hip flexors off, but also says "hip flexors pull"`,
		},
		{
			name: "gym myth",
			bad:  "    - {name: barbell wide row, equipments: [barbell], about: The wide grip shapes the outer chest., slots: {setup: Hinge forward over the barbell with a wide grip., load: bar}}\n",
			good: "    - {name: barbell wide row, equipments: [barbell], about: The wide grip brings in the upper back., slots: {setup: Hinge forward over the barbell with a wide grip., load: bar}}\n",
			want: `"barbell wide row": repeats a gym myth: "outer chest"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lintRow(t, testRow+tc.bad)
			if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("lint %q, want a problem containing %q", got, tc.want)
			}
			if got := lintRow(t, testRow+tc.good); len(got) != 0 {
				t.Errorf("lint of the variant written right: %q", got)
			}
		})
	}
}
