package plan

import (
	"testing"
	"time"

	"github.com/exercisedb/exercisedb/gateway/config"
	"github.com/exercisedb/exercisedb/gateway/limit"
)

func TestTable(t *testing.T) {
	tab, err := NewTable([]config.Product{{
		Name: "exercisedb", Hosts: []string{"API.Example.com"},
		Media: config.Media{Kind: "video", ImageURL: "https://m.example/v/{mediaKey}.mp4?q=1"},
		Plans: map[string]config.Plan{
			"Basic": {Operations: []string{"bodyParts"}, Rate: &config.Rate{Requests: 5, Per: time.Second}, Quota: &config.Quota{Requests: 9, Per: limit.Day}, RecordCap: 7},
			"Mega":  {Operations: []string{"*"}},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"api.example.com", "API.EXAMPLE.COM:8443", " api.example.com. "} {
		if _, ok := tab.ByHost(host); !ok {
			t.Errorf("ByHost(%q) found nothing", host)
		}
	}
	if _, ok := tab.ByHost("other.example.com"); ok {
		t.Error("ByHost found a product for an unknown host")
	}
	p, _ := tab.ByName("exercisedb")
	if prefix, suffix, ok := p.ImageTemplate(); !ok || prefix+"exercises/ab12"+suffix != "https://m.example/v/exercises/ab12.mp4?q=1" {
		t.Errorf("ImageTemplate = %q, %q, %v", prefix, suffix, ok)
	}
	basic, _ := p.Plan("Basic")
	mega, _ := p.Plan("Mega")
	tests := []struct {
		plan *Plan
		op   Operation
		want bool
	}{
		{basic, BodyParts, true}, {basic, Exercises, false}, {mega, Exercises, true}, {mega, Liveness, true}, {basic, Usage, true}, {basic, Changelog, true},
	}
	for _, tt := range tests {
		if got := tt.plan.Allows(tt.op); got != tt.want {
			t.Errorf("%s.Allows(%s) = %v, want %v", tt.plan.Name, tt.op, got, tt.want)
		}
	}
	if !basic.Limited() || mega.Limited() {
		t.Errorf("Limited: basic %v, mega %v", basic.Limited(), mega.Limited())
	}
	if *basic.Quota != (limit.Quota{Requests: 9, Period: limit.Day}) || basic.RecordCap != 7 {
		t.Errorf("basic = %+v quota %+v", basic, basic.Quota)
	}
}

func TestCheckSubscriptions(t *testing.T) {
	plans := map[string]config.Plan{"Pro": {Operations: []string{"*"}}, "Basic": {Operations: []string{"*"}}, "Mega": {Operations: []string{"*"}}}
	media := config.Media{Kind: "gif", ImageURL: "https://m.example/{mediaKey}.gif"}
	tab, err := NewTable([]config.Product{
		{Name: "exercisedb", Hosts: []string{"a.example"}, Media: media, Plans: plans},
		{Name: "exercisedb-video", Hosts: []string{"v.example"}, Media: media, Plans: map[string]config.Plan{"Mega": {Operations: []string{"*"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		subs map[string]string
		want string // "" for no error
	}{
		{map[string]string{"exercisedb": "Pro", "exercisedb-video": "Mega"}, ""},
		{map[string]string{"exercisedb": "Gold"}, `product "exercisedb" has no plan "Gold"; its plans are Basic, Mega and Pro`},
		{map[string]string{"exercisedb": "pro"}, `product "exercisedb" has no plan "pro"; its plans are Basic, Mega and Pro`},
		{map[string]string{"exercisedb-video": "Pro"}, `product "exercisedb-video" has no plan "Pro"; its plans are Mega`},
		{map[string]string{"exercisedb-3d": "Pro"}, `no product "exercisedb-3d"; the products are exercisedb and exercisedb-video`},
	} {
		got := ""
		if err := tab.CheckSubscriptions(tt.subs); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckSubscriptions(%v) = %q, want %q", tt.subs, got, tt.want)
		}
	}
}

func TestChangelogIsOnEveryPlanAndCounted(t *testing.T) {
	if !Changelog.OnEveryPlan() || Changelog.Free() {
		t.Errorf("changelog: on every plan %v, free %v; want on every plan and counted", Changelog.OnEveryPlan(), Changelog.Free())
	}
	if !Usage.OnEveryPlan() || !Usage.Free() || Exercises.OnEveryPlan() {
		t.Error("usage must be on every plan and free, exercises on neither")
	}
}

// A plan's list names operations as this package does; a name it does not
// know is refused with the known ones.
func TestUnknownOperation(t *testing.T) {
	_, err := NewTable([]config.Product{{
		Name: "exercisedb", Hosts: []string{"a.example"}, Media: config.Media{Kind: "gif"},
		Plans: map[string]config.Plan{"Basic": {Operations: []string{"bodyParts", "exercisesByBodypart"}}},
	}})
	want := `product exercisedb: plan Basic: operations: unknown operation "exercisesByBodypart" (known: exercisesByBodyParts, exercises, exercise, exerciseVariations, exerciseAlternatives, exerciseTypes, bodyParts, muscles, equipments, movementPatterns, liveness, usage, changelog)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}
