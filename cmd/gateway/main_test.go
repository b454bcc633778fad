package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/exercisedb/exercisedb/internal/testbin"
	"github.com/exercisedb/exercisedb/internal/testnet"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// sha256Hash is the keys file's form of key, computed here independently
// of the gateway's code.
func sha256Hash(key string) string {
	d := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(d[:])
}

func TestKeysCreate(t *testing.T) {
	config := testConfig(t, "127.0.0.1:1", options{})
	keys := keysPath(config)

	// The first key creates the keys file.
	r := runGateway(t, "keys", "create", "-config", config, "-name", "first app", "-id", "key_first",
		"-product", "exercisedb=Pro", "-product", "exercisedb-video=Mega")
	if r.Code != 0 {
		t.Fatalf("keys create: exit %d: %s", r.Code, r.Stderr)
	}
	key := strings.TrimSuffix(r.Stdout, "\n")
	if !strings.HasPrefix(key, "exdb_") || strings.ContainsAny(key, " \t\n") || len(key) < len("exdb_")+32 {
		t.Fatalf("stdout = %q, want the key alone: exdb_ and at least 32 characters, one line", r.Stdout)
	}
	if strings.Contains(r.Stderr, key) || strings.Contains(r.Stderr, strings.TrimPrefix(key, "exdb_")) {
		t.Errorf("stderr shows the key: %q", r.Stderr)
	}
	data, err := os.ReadFile(keys)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(strings.TrimPrefix(key, "exdb_"))) {
		t.Errorf("keys file holds the key in clear:\n%s", data)
	}
	if info, err := os.Stat(keys); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("keys file mode = %v, %v; want 0600", info.Mode().Perm(), err)
	}
	want := keyEntry{ID: "key_first", Name: "first app", Hash: sha256Hash(key),
		Products: map[string]string{"exercisedb": "Pro", "exercisedb-video": "Mega"}}
	if f := readKeysFile(t, keys); len(f.Keys) != 1 || !sameEntry(f.Keys[0], want) {
		t.Fatalf("keys file = %+v, want one entry %+v", f.Keys, want)
	}

	// A second key is appended; the first stays.
	second := newKey(t, config, "key_second", "exercisedb=Basic")
	if second == key || !strings.HasPrefix(second, "exdb_") {
		t.Fatalf("second key = %q (first %q)", second, key)
	}
	f := readKeysFile(t, keys)
	if len(f.Keys) != 2 || !sameEntry(f.Keys[0], want) || f.Keys[1].ID != "key_second" || f.Keys[1].Hash != sha256Hash(second) {
		t.Fatalf("keys file after the second key = %+v", f.Keys)
	}

	before, err := os.ReadFile(keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown product", []string{"-product", "exercisedb-3d=Pro"}, "keys create: " + config + `: no product "exercisedb-3d"; the products are exercisedb and exercisedb-video` + "\n"},
		{"unknown plan", []string{"-product", "exercisedb=Gold"}, "keys create: " + config + `: product "exercisedb" has no plan "Gold"; its plans are Basic, Mega and Pro` + "\n"},
		{"malformed product", []string{"-product", "exercisedb"}, `"exercisedb"`},
		{"missing product", nil, "-product"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runGateway(t, append([]string{"keys", "create", "-config", config, "-name", "refused"}, tt.args...)...)
			if r.Code != 1 {
				t.Errorf("exit %d, want 1", r.Code)
			}
			if !strings.Contains(r.Stderr, tt.want) {
				t.Errorf("stderr = %q, want it to name %s", r.Stderr, tt.want)
			}
			if r.Stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.Stdout)
			}
			if after, _ := os.ReadFile(keys); !bytes.Equal(after, before) {
				t.Errorf("the keys file changed:\n%s", after)
			}
		})
	}
}

func sameEntry(a, b keyEntry) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Hash == b.Hash && a.Disabled == b.Disabled && maps.Equal(a.Products, b.Products)
}

// listPage is the documented list envelope.
type listPage struct {
	Success bool `json:"success"`
	Meta    struct {
		Total           int     `json:"total"`
		HasNextPage     bool    `json:"hasNextPage"`
		HasPreviousPage bool    `json:"hasPreviousPage"`
		NextCursor      *string `json:"nextCursor"`
		PreviousCursor  *string `json:"previousCursor"`
	} `json:"meta"`
	Data []struct {
		ExerciseID string   `json:"exerciseId"`
		Name       string   `json:"name"`
		BodyParts  []string `json:"bodyParts"`
		ImageURL   *string  `json:"imageUrl"`
	} `json:"data"`
}

// decodeList checks that r is a 200 list envelope with every documented key
// and decodes it.
func decodeList(t *testing.T, r response) listPage {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("got %s, want 200", r)
	}
	var shape struct {
		Success *bool                      `json:"success"`
		Meta    map[string]json.RawMessage `json:"meta"`
		Data    []json.RawMessage          `json:"data"`
	}
	if err := json.Unmarshal(r.body, &shape); err != nil || shape.Success == nil || shape.Data == nil {
		t.Fatalf("body is not the list envelope (%v): %s", err, r.body)
	}
	for _, k := range []string{"total", "hasNextPage", "hasPreviousPage", "nextCursor", "previousCursor"} {
		if _, ok := shape.Meta[k]; !ok {
			t.Errorf("meta lacks %q: %s", k, r.body)
		}
	}
	var p listPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// errorBody is the documented error envelope.
type errorBody struct {
	Error struct {
		Code      string `json:"code"`
		Docs      string `json:"docs"`
		Message   string `json:"message"`
		RequestID string `json:"requestId"`
	} `json:"error"`
}

// checkError checks that r is an error envelope of the given status and
// code, whose request id is the X-Request-Id header.
func checkError(t *testing.T, r response, status int, code string) {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(r.body, &e); err != nil || r.status != status || e.Error.Code != code {
		t.Fatalf("got %s, want %d with an error envelope of code %s", r, status, code)
	}
	if e.Error.Message == "" || !strings.HasSuffix(e.Error.Docs, "/errors/code/"+code) {
		t.Errorf("error envelope lacks a message or a docs link: %s", r.body)
	}
	if id := r.header.Get("X-Request-Id"); e.Error.RequestID != id || !requestID.MatchString(id) {
		t.Errorf("requestId %q, X-Request-Id %q: want the same req_ id", e.Error.RequestID, id)
	}
}

var requestID = regexp.MustCompile(`^req_[0-9a-z]{8,}$`)

func TestEndToEnd(t *testing.T) {
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	pro := newKey(t, config, "key_pro", "exercisedb=Pro", "exercisedb-video=Pro")
	mega := newKey(t, config, "key_mega", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)

	testnet.Eventually(t, "/readyz 200", func() error {
		code, body := adminGet(c, g, "/readyz")
		return testnet.Unless(code == http.StatusOK, body)
	})
	for path, want := range map[string]string{"/healthz": "ok", "/metrics": "exercisedb_build_info{goversion="} {
		if code, body := adminGet(c, g, path); code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s = %d %.200q, want 200 containing %q", path, code, body, want)
		}
	}

	const path = "/api/v1/exercises?bodyParts=chest&limit=2"
	r := api(t, c, g, path, pro, gifHost)
	first := decodeList(t, r)
	if !requestID.MatchString(r.header.Get("X-Request-Id")) {
		t.Errorf("X-Request-Id = %q, want req_<id>", r.header.Get("X-Request-Id"))
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	if !first.Success || len(first.Data) != 2 || first.Meta.Total <= 2 || !first.Meta.HasNextPage || first.Meta.HasPreviousPage ||
		first.Meta.NextCursor == nil || *first.Meta.NextCursor != first.Data[1].ExerciseID || first.Meta.PreviousCursor != nil {
		t.Fatalf("first page of chest: %s", r.body)
	}
	for _, x := range first.Data {
		if !slices.Contains(x.BodyParts, "chest") {
			t.Errorf("exercise %s has body parts %v, want chest among them", x.ExerciseID, x.BodyParts)
		}
	}

	// The Pro plan is limited: rate and quota headers, as integers.
	for h, want := range map[string]string{
		"X-RateLimit-Limit": "50", "X-RateLimit-Remaining": "", "X-RateLimit-Reset": "",
		"X-RateLimit-Requests-Limit": "20000", "X-RateLimit-Requests-Remaining": "", "X-RateLimit-Requests-Reset": "",
	} {
		v := r.header.Get(h)
		if n, err := strconv.Atoi(v); err != nil || n < 0 || (want != "" && v != want) {
			t.Errorf("%s = %q, want a non-negative integer %s", h, v, want)
		}
	}
	for _, h := range []string{"RateLimit-Policy", "RateLimit"} {
		if r.header.Get(h) == "" {
			t.Errorf("%s is missing", h)
		}
	}
	// The Mega plan is not limited: no limit headers.
	if r := api(t, c, g, path, mega, gifHost); r.status != http.StatusOK || r.header.Get("X-RateLimit-Limit") != "" {
		t.Errorf("Mega: %d, X-RateLimit-Limit %q; want 200 without limit headers", r.status, r.header.Get("X-RateLimit-Limit"))
	}

	// Follow the next cursor.
	cursor := *first.Meta.NextCursor
	r = api(t, c, g, path+"&after="+cursor, pro, gifHost)
	second := decodeList(t, r)
	if len(second.Data) == 0 || !second.Meta.HasPreviousPage || second.Meta.PreviousCursor == nil ||
		*second.Meta.PreviousCursor != second.Data[0].ExerciseID || second.Meta.Total != first.Meta.Total {
		t.Fatalf("page after %s: %s", cursor, r.body)
	}
	prev := cursor
	for _, x := range second.Data {
		if x.ExerciseID <= prev {
			t.Errorf("page after %s: id %s does not follow %s", cursor, x.ExerciseID, prev)
		}
		prev = x.ExerciseID
	}

	// The video product renders the same exercises from its own template.
	video := decodeList(t, api(t, c, g, path, pro, videoHost))
	if len(video.Data) != len(first.Data) {
		t.Fatalf("video page has %d records, gif page %d", len(video.Data), len(first.Data))
	}
	withMedia := 0
	for i, gx := range first.Data {
		vx := video.Data[i]
		if vx.ExerciseID != gx.ExerciseID || (vx.ImageURL == nil) != (gx.ImageURL == nil) {
			t.Errorf("record %d: gif %s (image %v), video %s (image %v): want the same record and shape", i, gx.ExerciseID, gx.ImageURL != nil, vx.ExerciseID, vx.ImageURL != nil)
			continue
		}
		if gx.ImageURL == nil {
			continue
		}
		withMedia++
		gifKey, gifOK := strings.CutPrefix(*gx.ImageURL, gifPrefix)
		videoKey, videoOK := strings.CutPrefix(*vx.ImageURL, videoPrefix)
		gifKey, gifOK2 := strings.CutSuffix(gifKey, gifSuffix)
		videoKey, videoOK2 := strings.CutSuffix(videoKey, videoSuffix)
		if *gx.ImageURL == *vx.ImageURL || !gifOK || !videoOK || !gifOK2 || !videoOK2 || gifKey != videoKey || gifKey == "" {
			t.Errorf("exercise %s: gif imageUrl %q, video imageUrl %q: want each product's template around the same media key",
				gx.ExerciseID, *gx.ImageURL, *vx.ImageURL)
		}
	}
	if withMedia == 0 {
		t.Errorf("no exercise of the page has an imageUrl: %s", r.body)
	}

	// Keys are never logged in clear.
	for _, line := range g.Log() {
		if strings.Contains(line, pro) || strings.Contains(line, mega) {
			t.Fatalf("the gateway logged a key: %s", line)
		}
	}
}

func TestCatalogDownThenBack(t *testing.T) {
	cat, addr := startCatalogFixed(t)
	config := testConfig(t, addr, options{})
	key := newKey(t, config, "key_mega", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)
	const path = "/api/v1/exercises?limit=3"

	testnet.Eventually(t, "a 200 with the catalog up", func() error {
		code, saw := statusOf(t, c, g, path, key, gifHost)
		return testnet.Unless(code == http.StatusOK, saw)
	})
	cat.Kill(t)

	var down response
	testnet.Eventually(t, "a 503 with the catalog killed", func() error {
		down = api(t, c, g, path, key, gifHost)
		return testnet.Unless(down.status == http.StatusServiceUnavailable, down.String())
	})
	checkError(t, down, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	if n, err := strconv.Atoi(down.header.Get("Retry-After")); err != nil || n < 1 {
		t.Errorf("Retry-After = %q, want whole seconds", down.header.Get("Retry-After"))
	}
	testnet.Eventually(t, "/readyz 503 with the catalog killed", func() error {
		code, body := adminGet(c, g, "/readyz")
		return testnet.Unless(code == http.StatusServiceUnavailable, body)
	})
	if code, body := adminGet(c, g, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz with the catalog down = %d %s, want 200: the gateway itself is alive", code, body)
	}

	restartCatalog(t, addr)
	testnet.Eventually(t, "a 200 with the catalog back", func() error {
		code, saw := statusOf(t, c, g, path, key, gifHost)
		return testnet.Unless(code == http.StatusOK, saw)
	})
	decodeList(t, api(t, c, g, path, key, gifHost))
	testnet.Eventually(t, "/readyz 200 with the catalog back", func() error {
		code, body := adminGet(c, g, "/readyz")
		return testnet.Unless(code == http.StatusOK, body)
	})
}

func TestSIGHUPReloadAndRevoke(t *testing.T) {
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	keys := keysPath(config)
	revoked := newKey(t, config, "key_revoked", "exercisedb=Mega")
	kept := newKey(t, config, "key_kept", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)
	const path = "/api/v1/liveness"
	status := func(key string) (int, string) { return statusOf(t, c, g, path, key, gifHost) }
	wantStatus := func(key string, want int) {
		t.Helper()
		if code, saw := status(key); code != want {
			t.Fatalf("got %s, want %d", saw, want)
		}
	}
	wantStatus(revoked, http.StatusOK)
	wantStatus(kept, http.StatusOK)

	// Revoke a key: rewrite the file with it disabled, then SIGHUP.
	f := readKeysFile(t, keys)
	for i := range f.Keys {
		if f.Keys[i].ID == "key_revoked" {
			f.Keys[i].Disabled = true
		}
	}
	data, err := yaml.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	signals := len(g.LogEntries("reloading keys file on signal"))
	replaceFile(t, keys, data)
	g.Signal(t, syscall.SIGHUP)
	testnet.Eventually(t, "the revoked key refused", func() error {
		code, saw := status(revoked)
		return testnet.Unless(code == http.StatusUnauthorized, saw)
	})
	checkError(t, api(t, c, g, path, revoked, gifHost), http.StatusUnauthorized, "UNAUTHORIZED")
	wantStatus(kept, http.StatusOK)
	// The file watch may have reloaded first: check that the signal was
	// handled too, and did not kill the process.
	testnet.Eventually(t, "the SIGHUP reload logged", func() error {
		return testnet.Unless(len(g.LogEntries("reloading keys file on signal")) > signals, "no log line")
	})

	// A key added by "keys create" works without a signal: the file is
	// watched.
	added := newKey(t, config, "key_added", "exercisedb=Mega")
	testnet.Eventually(t, "the added key accepted", func() error {
		code, saw := status(added)
		return testnet.Unless(code == http.StatusOK, saw)
	})

	// A broken keys file is refused; the previous keys stay in force.
	const reloadErrors = `exercisedb_gateway_key_reloads_total{result="error"}`
	before := counter(t, c, g, reloadErrors)
	replaceFile(t, keys, []byte("keys:\n  - id: key_half_written\n    hash: sha256:12\n"))
	g.Signal(t, syscall.SIGHUP)
	testnet.Eventually(t, "the failed reload counted", func() error {
		n := counter(t, c, g, reloadErrors)
		return testnet.Unless(n > before, fmt.Sprintf("%s %v", reloadErrors, n))
	})
	wantStatus(kept, http.StatusOK)
	wantStatus(added, http.StatusOK)
	wantStatus(revoked, http.StatusUnauthorized)
	if code, body := adminGet(c, g, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after a failed reload = %d %s, want 200", code, body)
	}
}

// TestSIGTERMDrainLosesNothing runs clients in a loop over keep-alive
// connections, sends SIGTERM mid-run, and checks that no request is lost.
//
// Each request ends in one of these ways:
//
//   - a response: it must be a 200 whose body is complete, valid JSON of
//     the documented envelope. Any other status, or a body cut short, is a
//     loss.
//   - connection refused, after SIGTERM: nothing listens any more, the
//     request never reached the gateway; a client knows it may retry it
//     elsewhere. Not a loss. (Go's Transport retries a GET whose keep-alive
//     connection the server closed while idle, before answering; the retry
//     dials and is refused: that request was never read either.)
//   - connection reset or broken pipe, after SIGTERM, on a connection just
//     dialled (not reused) that got no byte of response: the kernel
//     completed the handshake and queued the connection, but the listener
//     closed before the gateway accepted it, and closing a listener resets
//     its queued connections. The gateway never saw the request: not a loss.
//   - any other error (a reset of a reused connection, EOF, a timeout), or
//     any error before SIGTERM: a loss.
//
// The client cannot tell everything alone: the Transport's silent retry
// would also hide a request that the gateway read and then dropped. So the
// test also counts, in the gateway's access log (one line per request
// answered), the requests it answered: they must be exactly the responses
// the clients received, every one a 200.
func TestSIGTERMDrainLosesNothing(t *testing.T) {
	cat := startCatalog(t)
	config := testConfig(t, cat.grpc, options{})
	key := newKey(t, config, "key_mega", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)
	const workers, limit, warmup = 16, 5, 200
	url := fmt.Sprintf("http://%s/api/v1/exercises?limit=%d", g.http, limit)

	var (
		signalled                            atomic.Bool
		ok, responses, refusedN, unacceptedN atomic.Int64
		mu                                   sync.Mutex
		losses                               []string
		wg                                   sync.WaitGroup
		stop                                 = make(chan struct{})
	)
	lose := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		losses = append(losses, fmt.Sprintf(format, args...))
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					lose("a client was still running when the test gave up")
					return
				default:
				}
				var reused, gotByte atomic.Bool
				trace := &httptrace.ClientTrace{
					GotConn:              func(i httptrace.GotConnInfo) { reused.Store(i.Reused); gotByte.Store(false) },
					GotFirstResponseByte: func() { gotByte.Store(true) },
				}
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("X-Gateway-Key", key)
				req.Header.Set("X-Gateway-Host", gifHost)
				req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
				resp, err := c.Do(req)
				after := signalled.Load()
				if err != nil {
					switch {
					case after && refused(err):
						refusedN.Add(1)
					case after && !reused.Load() && !gotByte.Load() &&
						(errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)):
						unacceptedN.Add(1)
					default:
						lose("request failed (SIGTERM sent: %v, reused connection: %v): %v", after, reused.Load(), err)
					}
					return // the listener is closed, or the run is lost anyway
				}
				responses.Add(1)
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var page listPage
				switch {
				case err != nil:
					lose("status %d, body cut short after %d bytes: %v", resp.StatusCode, len(body), err)
				case resp.StatusCode != http.StatusOK:
					lose("status %d: %s", resp.StatusCode, body)
				case json.Unmarshal(body, &page) != nil || !page.Success || len(page.Data) != limit:
					lose("200 with an invalid body: %s", body)
				default:
					ok.Add(1)
					continue
				}
				return
			}
		}()
	}
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}()

	testnet.Eventually(t, fmt.Sprintf("%d requests answered before SIGTERM", warmup), func() error {
		mu.Lock()
		defer mu.Unlock()
		return testnet.Unless(ok.Load() >= warmup || len(losses) > 0, fmt.Sprintf("%d answered", ok.Load()))
	})
	signalled.Store(true)
	beforeSignal := ok.Load()
	g.Signal(t, syscall.SIGTERM)

	// Readiness fails during the drain (here, either a 503 or no answer:
	// TestSIGTERMWaitsForRequestInFlight checks which).
	admin := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: pollTimeout}
	testnet.Eventually(t, "/readyz failing after SIGTERM", func() error {
		code, body := adminGet(admin, g, "/readyz")
		return testnet.Unless(code != http.StatusOK, body)
	})

	clientsDone := make(chan struct{})
	go func() { wg.Wait(); close(clientsDone) }()
	select {
	case <-clientsDone:
	case <-time.After(2 * pollTimeout):
		close(stop)
		<-clientsDone
	}
	g.WaitExit(t, exitTimeout)

	for _, l := range losses {
		t.Error(l)
	}
	answered := g.LogEntries("request")
	for _, e := range answered {
		if e["status"] != float64(http.StatusOK) {
			t.Errorf("the gateway answered %v: %v", e["status"], e)
		}
	}
	if int64(len(answered)) != responses.Load() {
		t.Errorf("the gateway answered %d requests, the clients received %d responses", len(answered), responses.Load())
	}
	t.Logf("%d requests answered with 200 (%d before SIGTERM); after SIGTERM %d refused, %d reset before being accepted",
		ok.Load(), beforeSignal, refusedN.Load(), unacceptedN.Load())
}

// TestSIGTERMWaitsForRequestInFlight holds one request inside the
// gateway's call to the catalog (a proxy between them holds the call), then
// sends SIGTERM: new connections are refused, readiness answers 503, the
// process waits for the request, which completes with a 200 once the call
// is let through, and then the process exits 0.
func TestSIGTERMWaitsForRequestInFlight(t *testing.T) {
	cat := startCatalog(t)
	gate := testnet.NewGRPCProxy(t, cat.grpc)
	config := testConfig(t, gate.Addr, options{catalogTimeout: "120s"})
	key := newKey(t, config, "key_mega", "exercisedb=Mega")
	g := startGateway(t, config)
	c := newClient(t)
	const path = "/api/v1/exercises?bodyParts=chest&limit=25"
	testnet.Eventually(t, "a 200 through the proxy", func() error {
		code, saw := statusOf(t, c, g, path, key, gifHost)
		return testnet.Unless(code == http.StatusOK, saw)
	})

	held := gate.HoldCall()
	defer gate.Release()
	type outcome struct {
		r   response
		err error
	}
	inFlight := make(chan outcome, 1)
	// Another query than the warm-up's: the response cache would answer
	// the same one without calling the catalog.
	fresh, req := newClient(t), apiRequest(t, g, path+"&difficulty=beginner", key, gifHost)
	go func() {
		r, err := do(fresh, req)
		inFlight <- outcome{r, err}
	}()
	select {
	case <-held:
	case o := <-inFlight:
		t.Fatalf("the request ended before reaching the catalog: %v %v", o.r, o.err)
	case <-time.After(pollTimeout):
		t.Fatal("the request did not reach the catalog")
	}

	g.Signal(t, syscall.SIGTERM)
	testnet.Eventually(t, "new connections refused after SIGTERM", func() error {
		conn, err := net.Dial("tcp", g.http)
		if err == nil {
			conn.Close()
		}
		return testnet.Unless(refused(err), fmt.Sprint(err))
	})
	// The public listener is closed and a request is in flight: the
	// process is draining. Readiness must say so, with a 503.
	admin := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: pollTimeout}
	if code, body := adminGet(admin, g, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Errorf("/readyz while draining = %d %q, want 503 saying it is shutting down", code, body)
	}
	select {
	case <-g.Exited():
		t.Fatalf("exited (%v) with a request in flight", g.ExitErr())
	default:
	}

	gate.Release()
	o := <-inFlight
	if o.err != nil {
		t.Fatalf("the request in flight failed: %v", o.err)
	}
	if p := decodeList(t, o.r); !p.Success || len(p.Data) == 0 {
		t.Errorf("the request in flight got %s", o.r)
	}
	g.WaitExit(t, exitTimeout)
}

func TestStartupErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		edit   func(text string) string         // edits the configuration's text
		noKeys bool                             // do not create the keys file
		keys   string                           // the keys file's text, if not keys: []
		env    map[string]string                // environment of the gateway
		want   func(path, text string) []string // what stderr must name
	}{
		{
			name: "unknown key",
			edit: func(text string) string { return text + "shutdown_timout: 5s\n" },
			want: func(_, text string) []string {
				return []string{`"shutdown_timout"`, fmt.Sprintf("line %d", lineOf(text, "shutdown_timout:"))}
			},
		},
		{
			name: "unknown nested key",
			edit: func(text string) string {
				return strings.Replace(text, "  timeout: 2s\n", "  timeout: 2s\n  retries: 3\n", 1)
			},
			want: func(_, text string) []string {
				return []string{`"retries"`, fmt.Sprintf("line %d", lineOf(text, "  retries:"))}
			},
		},
		{
			name:   "missing keys file",
			edit:   func(text string) string { return text },
			noKeys: true,
			want:   func(path, _ string) []string { return []string{keysPath(path)} },
		},
		{
			name: "invalid keys file",
			edit: func(text string) string { return text },
			keys: "keys:\n  - id: [\n",
			want: func(path, _ string) []string { return []string{keysPath(path) + ": keys file: yaml: line 2"} },
		},
		{
			name: "unknown media kind",
			edit: func(text string) string { return strings.Replace(text, "kind: video", "kind: hologram", 1) },
			want: func(_, _ string) []string { return []string{`"hologram"`} },
		},
		{
			name: "malformed listen address in the file",
			edit: func(text string) string { return strings.Replace(text, "listen: 127.0.0.1:0", "listen: nonsense", 1) },
			want: func(path, _ string) []string { return []string{path + `: listen "nonsense": want host:port`} },
		},
		{
			name: "malformed listen address in the environment",
			edit: func(text string) string { return text },
			env:  map[string]string{"GATEWAY_LISTEN": "nonsense", "GATEWAY_ADMIN_LISTEN": "127.0.0.1:http-nope"},
			want: func(_, _ string) []string {
				return []string{`environment GATEWAY_LISTEN: listen "nonsense": want host:port`,
					`environment GATEWAY_ADMIN_LISTEN: admin_listen "127.0.0.1:http-nope": port "http-nope"`}
			},
		},
		{
			name: "admin address that cannot be bound",
			edit: func(text string) string { return text },
			env:  map[string]string{"GATEWAY_ADMIN_LISTEN": "192.0.2.1:9091"}, // TEST-NET-1: never a local address
			want: func(_, _ string) []string {
				return []string{"admin_listen (environment GATEWAY_ADMIN_LISTEN): listen tcp 192.0.2.1:9091"}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			config := testConfig(t, "127.0.0.1:1", options{})
			data, err := os.ReadFile(config)
			if err != nil {
				t.Fatal(err)
			}
			text := tt.edit(string(data))
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if text == string(data) && !tt.noKeys && tt.env == nil && tt.keys == "" {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if !tt.noKeys {
				if err := os.WriteFile(keysPath(config), []byte(cmp.Or(tt.keys, "keys: []\n")), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r := runGateway(t, "-config", config)
			if r.Code != 1 {
				t.Errorf("exit %d, want 1", r.Code)
			}
			for _, want := range tt.want(config, text) {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("stderr does not name %s:\n%s", want, r.Stderr)
				}
			}
			if strings.Contains(r.Stderr, "gateway listening") {
				t.Errorf("it listened before failing:\n%s", r.Stderr)
			}
			if strings.Count(r.Stderr, "keys file:") > 1 {
				t.Errorf("the message says \"keys file:\" twice:\n%s", r.Stderr)
			}
		})
	}
}

// lineOf returns the number (from 1) of the first line of text that starts
// with prefix, 0 if none.
func lineOf(text, prefix string) int {
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return i + 1
		}
	}
	return 0
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"-config", "x.yaml", "-h"}} {
		r := runGateway(t, args...)
		if r.Code != 0 {
			t.Errorf("gateway %s: exit %d, want 0; stderr: %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
		// The subcommand and every environment variable are listed.
		for _, want := range []string{"keys create", "-version", "GATEWAY_LISTEN", "GATEWAY_REDIS_URL", "GATEWAY_LOG_LEVEL", "GATEWAY_KEYS_POSTGRES_URL"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("gateway %s does not mention %s:\n%s", strings.Join(args, " "), want, r.Stdout)
			}
		}
		// The variables in one column, their settings in the next, the
		// longest name too followed by a space.
		_, env, _ := strings.Cut(r.Stdout, "\nEnvironment")
		_, env, _ = strings.Cut(env, "\n")
		env, _, _ = strings.Cut(env, "\n\n")
		column := 0
		for line := range strings.Lines(env) {
			line = strings.TrimSuffix(line, "\n")
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "  "), " ")
			at := len(line) - len(strings.TrimLeft(line[2+len(name):], " "))
			if !strings.HasPrefix(line, "  GATEWAY_") || len(strings.Fields(line)) != 2 || column != 0 && at != column {
				t.Errorf("gateway %s: environment line %q is not a name and a setting in the column at %d", strings.Join(args, " "), line, column)
			}
			column = at
		}
		if column == 0 {
			t.Errorf("gateway %s lists no environment variable:\n%s", strings.Join(args, " "), r.Stdout)
		}
	}
	r := runGateway(t, "-version")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "gateway ") || strings.Count(r.Stdout, "\n") != 1 || !strings.Contains(r.Stdout, runtime.Version()) {
		t.Errorf("gateway -version: exit %d, stdout %q; want one line with the Go version", r.Code, r.Stdout)
	}
	r = runGateway(t, "-version", "extra")
	if r.Code != 1 || !strings.Contains(r.Stderr, `unexpected argument "extra"`) {
		t.Errorf("gateway -version extra: exit %d, stderr %q; want 1 naming the argument", r.Code, r.Stderr)
	}
	r = runGateway(t, "-nope")
	if r.Code != 1 || !strings.Contains(r.Stderr, "-nope") || !strings.Contains(r.Stderr, "gateway -h") {
		t.Errorf("gateway -nope: exit %d, stderr %q; want 1 and a pointer to -h", r.Code, r.Stderr)
	}
}
