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
			"Basic": {Operations: []string{"bodyParts"}, Rate: &config.Rate{Requests: 5, Per: time.Second}, Quota: &config.Quota{Requests: 9, Per: "day"}, RecordCap: 7},
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
	if got := p.ImageURL("exercises/ab12"); got != "https://m.example/v/exercises/ab12.mp4?q=1" {
		t.Errorf("ImageURL = %q", got)
	}
	basic, _ := p.Plan("Basic")
	mega, _ := p.Plan("Mega")
	tests := []struct {
		plan *Plan
		op   Operation
		want bool
	}{
		{basic, BodyParts, true}, {basic, Exercises, false}, {mega, Exercises, true}, {mega, Liveness, true}, {basic, Usage, true},
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
