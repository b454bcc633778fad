package limit

import (
	"encoding/json"
	"testing"
	"time"
)

func TestSeconds(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{
		{-time.Second, 0},
		{0, 0},
		{time.Nanosecond, 1},
		{999 * time.Millisecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{90 * time.Minute, 5400},
		{time.Duration(1<<63 - 1), 9223372037},
	} {
		if got := Seconds(tc.d); got != tc.want {
			t.Errorf("Seconds(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

func TestPeriod(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Period
		wantErr bool
	}{
		{in: "day", want: Day},
		{in: "month", want: Month},
		{in: "Day", wantErr: true},
		{in: "week", wantErr: true},
		{in: "", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParsePeriod(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParsePeriod(%q) error = %v, want error %t", tc.in, err, tc.wantErr)
			}
			if got != tc.want {
				t.Fatalf("ParsePeriod(%q) = %v, want %v", tc.in, got, tc.want)
			}
			if !tc.wantErr && got.String() != tc.in {
				t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
			}
		})
	}
	if got := Period(0).String(); got != "Period(0)" {
		t.Errorf("Period(0).String() = %q", got)
	}

	// A Period is a text field of a configuration.
	var q struct{ Per Period }
	if err := json.Unmarshal([]byte(`{"Per":"month"}`), &q); err != nil || q.Per != Month {
		t.Errorf("json.Unmarshal month = %v, %v", q.Per, err)
	}
	if err := json.Unmarshal([]byte(`{"Per":"year"}`), &q); err == nil {
		t.Error("json.Unmarshal year: no error")
	}
	b, err := json.Marshal(struct{ Per Period }{Day})
	if err != nil || string(b) != `{"Per":"day"}` {
		t.Errorf("json.Marshal Day = %s, %v", b, err)
	}
	if _, err := json.Marshal(struct{ Per Period }{}); err == nil {
		t.Error("json.Marshal Period(0): no error")
	}
}

func TestRateValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rate    Rate
		wantErr bool
	}{
		{"plain", Rate{5, time.Second, 5}, false},
		{"burst defaults", Rate{5, time.Second, 0}, false},
		{"burst below requests", Rate{10, time.Minute, 3}, false},
		{"burst above requests", Rate{1, time.Hour, 100}, false},
		{"no requests", Rate{0, time.Second, 1}, true},
		{"negative requests", Rate{-1, time.Second, 1}, true},
		{"no period", Rate{5, 0, 5}, true},
		{"negative burst", Rate{5, time.Second, -1}, true},
		{"below a nanosecond", Rate{2, time.Nanosecond, 0}, true},
		{"overflow", Rate{1, 1 << 40, 1 << 30}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.rate.Validate(); (err != nil) != tc.wantErr {
				t.Errorf("%+v.Validate() = %v, want error %t", tc.rate, err, tc.wantErr)
			}
		})
	}
}

func TestQuotaValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		quota   Quota
		wantErr bool
	}{
		{"day", Quota{1000, Day}, false},
		{"month", Quota{1, Month}, false},
		{"no requests", Quota{0, Day}, true},
		{"no period", Quota{10, 0}, true},
		{"unknown period", Quota{10, 3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.quota.Validate(); (err != nil) != tc.wantErr {
				t.Errorf("%+v.Validate() = %v, want error %t", tc.quota, err, tc.wantErr)
			}
		})
	}
}

func TestPeriodWindow(t *testing.T) {
	plus5 := time.FixedZone("+05", 5*3600)
	for _, tc := range []struct {
		name   string
		period Period
		now    time.Time
		want   time.Time
	}{
		{"day start", Day, date(2025, 3, 14, 0, 0, 0, 0), date(2025, 3, 15, 0, 0, 0, 0)},
		{"day end", Day, date(2025, 3, 14, 23, 59, 59, 999), date(2025, 3, 15, 0, 0, 0, 0)},
		{"day, month end", Day, date(2025, 1, 31, 12, 0, 0, 0), date(2025, 2, 1, 0, 0, 0, 0)},
		{"day, leap day", Day, date(2024, 2, 28, 12, 0, 0, 0), date(2024, 2, 29, 0, 0, 0, 0)},
		{"day, year end", Day, date(2025, 12, 31, 12, 0, 0, 0), date(2026, 1, 1, 0, 0, 0, 0)},
		{"day, other zone", Day, time.Date(2026, 1, 1, 3, 0, 0, 0, plus5), date(2026, 1, 1, 0, 0, 0, 0)},
		{"month start", Month, date(2025, 1, 1, 0, 0, 0, 0), date(2025, 2, 1, 0, 0, 0, 0)},
		{"month, Jan 31", Month, date(2025, 1, 31, 23, 59, 59, 999), date(2025, 2, 1, 0, 0, 0, 0)},
		{"month, Feb 28 of a leap year", Month, date(2024, 2, 28, 23, 0, 0, 0), date(2024, 3, 1, 0, 0, 0, 0)},
		{"month, Feb 29", Month, date(2024, 2, 29, 23, 59, 59, 999), date(2024, 3, 1, 0, 0, 0, 0)},
		{"month, Dec 31", Month, date(2025, 12, 31, 23, 59, 59, 999), date(2026, 1, 1, 0, 0, 0, 0)},
		{"month, other zone", Month, time.Date(2026, 1, 1, 3, 0, 0, 0, plus5), date(2026, 1, 1, 0, 0, 0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.period.window(tc.now); !got.Equal(tc.want) {
				t.Errorf("%v.window(%v) = %v, want %v", tc.period, tc.now, got, tc.want)
			}
		})
	}
}

// date is a UTC instant; ms is milliseconds.
func date(y int, m time.Month, d, hh, mm, ss, ms int) time.Time {
	return time.Date(y, m, d, hh, mm, ss, ms*int(time.Millisecond), time.UTC)
}
