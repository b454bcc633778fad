package client

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRetry checks which refusals are sent again, after which waits, and
// when the client gives up.
func TestRetry(t *testing.T) {
	f, srv := newFakeAPI(t, 3)
	tests := []struct {
		name     string
		policy   RetryPolicy
		refusals int // answered before the fake serves
		status   int
		header   string // Retry-After
		wantErr  int    // status of the error, 0 for success
		requests int
		waits    []time.Duration
	}{
		{name: "429 with Retry-After", policy: DefaultRetryPolicy, refusals: 2, status: 429, header: "2",
			requests: 3, waits: []time.Duration{2 * time.Second, 2 * time.Second}},
		{name: "503 backs off", policy: DefaultRetryPolicy, refusals: 3, status: 503,
			requests: 4, waits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
		{name: "backoff is capped", policy: RetryPolicy{Attempts: 6, Backoff: time.Second, MaxBackoff: 3 * time.Second, MaxWait: time.Minute}, refusals: 9, status: 503,
			wantErr: 503, requests: 6, waits: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}},
		{name: "attempts run out", policy: DefaultRetryPolicy, refusals: 99, status: 429, header: "1",
			wantErr: 429, requests: 5, waits: []time.Duration{time.Second, time.Second, time.Second, 2 * time.Second}}, // the backoff outgrows Retry-After
		{name: "Retry-After beyond MaxWait", policy: DefaultRetryPolicy, refusals: 1, status: 429, header: "3600",
			wantErr: 429, requests: 1},
		{name: "retries off", policy: RetryPolicy{Attempts: 1}, refusals: 1, status: 503, header: "1",
			wantErr: 503, requests: 1},
		{name: "400 is not retried", policy: DefaultRetryPolicy, refusals: 1, status: 400,
			wantErr: 400, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			f.answer(func(w http.ResponseWriter, r *http.Request) {
				if int(n.Add(1)) <= tt.refusals {
					if tt.header != "" {
						w.Header().Set("Retry-After", tt.header)
					}
					writeEnvelope(w, tt.status, Codes()[tt.status], "refused")
					return
				}
				f.answer(nil)
				f.list(w, r)
			})
			defer f.answer(nil)
			c := newClient(t, srv, WithRetry(tt.policy))
			got := waits(c)
			_, err := c.ListExercises(context.Background(), Query{})
			var apiErr *Error
			switch {
			case tt.wantErr == 0 && err != nil:
				t.Fatalf("err = %v, want success", err)
			case tt.wantErr != 0 && (!errors.As(err, &apiErr) || apiErr.Status != tt.wantErr):
				t.Fatalf("err = %v, want a %d", err, tt.wantErr)
			}
			if int(n.Load()) != tt.requests {
				t.Errorf("%d requests, want %d", n.Load(), tt.requests)
			}
			if diff := cmp.Diff(tt.waits, *got); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryJitter(t *testing.T) {
	p := DefaultRetryPolicy
	half := func(d time.Duration) time.Duration { return d - 1 } // the most the jitter may add
	if got := p.retryDelay(0, 0, half); got != 250*time.Millisecond+125*time.Millisecond-1 {
		t.Errorf("first backoff with the largest jitter: %v", got)
	}
	if got := p.retryDelay(1, 3*time.Second, half); got != 3*time.Second+250*time.Millisecond-1 {
		t.Errorf("Retry-After 3s on the second retry, with the largest jitter: %v", got)
	}
	for range 100 {
		if d := randomJitter(time.Second); d < 0 || d >= time.Second {
			t.Fatalf("randomJitter(1s) = %v", d)
		}
	}
}

// TestPacing checks that iterators wait as the rate limit headers say, and
// single calls only with PaceAlways.
func TestPacing(t *testing.T) {
	f, srv := newFakeAPI(t, 9)
	remaining := atomic.Int32{}
	f.answer(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit-Policy", `"rate";q=20;w=1, "quota";q=1000;w=86400`)
		w.Header().Set("RateLimit", `"rate";r=`+string(rune('0'+remaining.Load()))+`;t=2, "quota";r=0;t=3600`)
		f.list(w, r)
	})
	defer f.answer(nil)
	ctx := context.Background()

	for _, tt := range []struct {
		name      string
		pacing    Pacing
		remaining int32
		walk      []time.Duration // waits of a walk of 3 pages
		single    []time.Duration // waits of 2 single calls
	}{
		{name: "default, nothing remaining", pacing: PaceIterators, walk: []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}},
		{name: "default, requests remaining", pacing: PaceIterators, remaining: 3},
		{name: "always", pacing: PaceAlways, walk: []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}, single: []time.Duration{50 * time.Millisecond}},
		{name: "never", pacing: PaceNever},
	} {
		t.Run(tt.name, func(t *testing.T) {
			remaining.Store(tt.remaining)
			c := newClient(t, srv, WithPacing(tt.pacing))
			got := waits(c)
			if _, err := collect(c.Exercises(ctx, Query{Limit: 3}), 0); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.walk, *got); diff != "" {
				t.Errorf("walk waits (-want +got):\n%s", diff)
			}
			*got = nil
			c.pace = pacer{}
			for range 2 {
				if _, err := c.ListExercises(ctx, Query{}); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.single, *got); diff != "" {
				t.Errorf("single calls' waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRateWait(t *testing.T) {
	for _, tt := range []struct {
		limit, policy string
		want          time.Duration
	}{
		{`"rate";r=0;t=1`, `"rate";q=20;w=1`, 50 * time.Millisecond},
		{`"quota";r=5;t=9, "rate";r=0;t=30`, `"quota";q=9;w=86400, "rate";q=2;w=60`, 30 * time.Second},
		{`"rate";r=1;t=1`, `"rate";q=20;w=1`, 0},
		{`"quota";r=0;t=1`, `"quota";q=20;w=1`, 0}, // an exhausted quota is not paced
		{``, ``, 0},
		{`"rate";r=0;t=1`, `"rate";q=0;w=1`, 0},
		{`"rate";r=x;t=1`, `"rate";q=20;w=1`, 0},
	} {
		h := http.Header{}
		h.Set("RateLimit", tt.limit)
		h.Set("RateLimit-Policy", tt.policy)
		if got := rateWait(h); got != tt.want {
			t.Errorf("RateLimit %q, policy %q: wait %v, want %v", tt.limit, tt.policy, got, tt.want)
		}
	}
}

// TestSleepDeadline checks that a wait the context's deadline would cut
// short is not begun, and that a cancelled context ends a wait.
func TestSleepDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := sleep(ctx, 2*time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a wait past the deadline: %v, want DeadlineExceeded at once", err)
	}
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := sleep(cancelled, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a wait in a cancelled context: %v", err)
	}
	if err := sleep(context.Background(), 0); err != nil {
		t.Errorf("no wait: %v", err)
	}
}

// TestPacedWalkRespectsDeadline checks that an iterator whose next page
// must wait beyond the context's deadline ends with an error rather than
// outliving it.
func TestPacedWalkRespectsDeadline(t *testing.T) {
	f, srv := newFakeAPI(t, 9)
	f.answer(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit-Policy", `"rate";q=1;w=3600`)
		w.Header().Set("RateLimit", `"rate";r=0;t=3600`)
		f.list(w, r)
	})
	defer f.answer(nil)
	c, err := New(srv.URL, testKey, WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := collect(c.Exercises(ctx, Query{Limit: 3}), 0)
	if !errors.Is(err, context.DeadlineExceeded) || len(got) != 3 {
		t.Errorf("%v, %v: want the first page, then DeadlineExceeded", got, err)
	}
}

// TestQueryByIDs checks the ids query and the missing ids it answers.
func TestQueryByIDs(t *testing.T) {
	f, srv := newFakeAPI(t, 3)
	f.answer(func(w http.ResponseWriter, r *http.Request) {
		if got := r.URL.Query().Get("ids"); got != "ex02,nope,ex00" {
			t.Errorf("ids=%q", got)
		}
		writeJSON(w, map[string]any{"success": true, "meta": map[string]any{"total": 2, "hasNextPage": false, "hasPreviousPage": false,
			"nextCursor": nil, "previousCursor": nil, "missingIds": []string{"nope"}}, "data": []Exercise{f.exercises[2], f.exercises[0]}})
	})
	defer f.answer(nil)
	page, err := newClient(t, srv).ListExercises(context.Background(), Query{IDs: []string{"ex02", "nope", "ex00"}})
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta.MissingIDs[0] != "nope" || page.Exercises[0].ExerciseID != "ex02" || page.Exercises[1].ExerciseID != "ex00" {
		t.Errorf("page %+v", page)
	}
}

func TestCodes(t *testing.T) {
	seen := map[string]bool{}
	for status, code := range Codes() {
		if seen[code] || http.StatusText(status) == "" {
			t.Errorf("%d %s: a code twice, or no HTTP status", status, code)
		}
		seen[code] = true
	}
	if Codes()[http.StatusRequestEntityTooLarge] != CodeContentTooLarge {
		t.Error("413 is not CONTENT_TOO_LARGE")
	}
}
