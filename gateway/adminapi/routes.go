package adminapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/exercisedb/exercisedb/gateway/apierror"
	"github.com/exercisedb/exercisedb/gateway/keys"
	"github.com/exercisedb/exercisedb/gateway/usage"
)

// keyJSON is a key as the API shows it. Secret is set in the answers of
// create and rotate only.
type keyJSON struct {
	ID         string            `json:"id"`
	Secret     string            `json:"key,omitempty"`
	Name       string            `json:"name"`
	Products   map[string]string `json:"products"`
	Disabled   bool              `json:"disabled"`
	ExpiresAt  *string           `json:"expiresAt"`
	CreatedAt  *string           `json:"createdAt"`
	LastUsedAt *string           `json:"lastUsedAt"`
}

func (a *api) view(k keys.Key) keyJSON {
	v := keyJSON{ID: k.ID, Name: k.Name, Products: k.Products, Disabled: k.Disabled,
		ExpiresAt: instant(k.ExpiresAt), CreatedAt: instant(k.CreatedAt)}
	if v.Products == nil {
		v.Products = map[string]string{}
	}
	if a.Usage != nil {
		// A use before the key was made (to the minute, as uses are kept)
		// was an earlier key's with the same id.
		if t, ok := a.Usage.LastUsed(k.ID); ok && !t.Before(k.CreatedAt.Truncate(time.Minute)) {
			v.LastUsedAt = instant(t)
		}
	}
	return v
}

// instant renders t in RFC 3339, UTC; zero is null.
func instant(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// createBody is the body of POST /admin/v1/keys.
type createBody struct {
	ID        *string           `json:"id"` // nil (absent or null): a random id`
	Name      string            `json:"name"`
	Products  map[string]string `json:"products"`
	ExpiresAt *string           `json:"expiresAt"`
}

func (a *api) create(w http.ResponseWriter, r *http.Request) error {
	if _, err := query(r); err != nil {
		return err
	}
	var b createBody
	if err := decode(r, &b, "id", "name", "products", "expiresAt"); err != nil {
		return err
	}
	var id string
	if b.ID != nil {
		if id = *b.ID; id == "" {
			return apierror.New(http.StatusBadRequest, "id: empty; want 1 to 64 letters, digits, '_', '.' or '-', or no id for a random one.")
		}
	}
	if err := a.checkProducts(b.Products); err != nil {
		return err
	}
	exp, err := parseInstant(b.ExpiresAt)
	if err != nil {
		return err
	}
	c, err := a.Store.Create(r.Context(), keys.New{ID: id, Name: b.Name, Products: b.Products, ExpiresAt: exp})
	if err != nil {
		return err
	}
	a.audit(r, "key created", c.ID)
	v := a.view(c.Key)
	v.Secret = c.Secret
	w.Header().Set("Location", "/admin/v1/keys/"+c.ID)
	return reply(w, http.StatusCreated, v)
}

func (a *api) list(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r, "limit", "after")
	if err != nil {
		return err
	}
	limit := defaultLimit
	if s, ok := q["limit"]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit || strings.TrimLeft(s, "0123456789") != "" {
			return apierror.New(http.StatusBadRequest, "limit must be a whole number from 1 to %d; got %q.", maxLimit, s)
		}
		limit = n
	}
	after, ok := q["after"]
	if ok && after == "" {
		return apierror.New(http.StatusBadRequest, "after is empty: send meta.nextCursor of the previous page, or omit after for the first page.")
	}
	p, err := a.Store.List(r.Context(), after, limit)
	if err != nil {
		return err
	}
	data := make([]keyJSON, len(p.Keys))
	for i, k := range p.Keys {
		data[i] = a.view(k)
	}
	var next *string
	if p.More {
		next = &p.Keys[len(p.Keys)-1].ID
	}
	return reply(w, http.StatusOK, map[string]any{
		"data": data,
		"meta": map[string]any{"total": p.Total, "limit": limit, "hasNextPage": p.More, "nextCursor": next},
	})
}

func (a *api) get(w http.ResponseWriter, r *http.Request) error {
	if _, err := query(r); err != nil {
		return err
	}
	k, err := a.Store.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return reply(w, http.StatusOK, a.view(k))
}

// patchBody is the body of PATCH /admin/v1/keys/{id}. Raw fields tell an
// absent field (unchanged) from null.
type patchBody struct {
	Name      *string         `json:"name"`
	Disabled  *bool           `json:"disabled"`
	Products  json.RawMessage `json:"products"`
	ExpiresAt json.RawMessage `json:"expiresAt"`
}

func (a *api) update(w http.ResponseWriter, r *http.Request) error {
	if _, err := query(r); err != nil {
		return err
	}
	var b patchBody
	if err := decode(r, &b, "name", "disabled", "products", "expiresAt"); err != nil {
		return err
	}
	var c keys.Change
	c.Name, c.Disabled = b.Name, b.Disabled
	if b.Products != nil {
		if err := json.Unmarshal(b.Products, &c.Products); err != nil || c.Products == nil {
			return apierror.New(http.StatusBadRequest, `products: want an object of product name to plan name, such as {"exercisedb": "Pro"}.`)
		}
		if err := a.checkProducts(c.Products); err != nil {
			return err
		}
	}
	if b.ExpiresAt != nil {
		var s *string
		if err := json.Unmarshal(b.ExpiresAt, &s); err != nil {
			return errExpiresAt
		}
		exp, err := parseInstant(s)
		if err != nil {
			return err
		}
		c.ExpiresAt = &exp // zero, from null, removes the expiry
	}
	if c.Name == nil && c.Disabled == nil && c.Products == nil && c.ExpiresAt == nil {
		return apierror.New(http.StatusBadRequest, "Send at least one of disabled, products, expiresAt, name.")
	}
	k, err := a.Store.Update(r.Context(), r.PathValue("id"), c)
	if err != nil {
		return err
	}
	a.audit(r, "key updated", k.ID)
	return reply(w, http.StatusOK, a.view(k))
}

func (a *api) delete(w http.ResponseWriter, r *http.Request) error {
	if _, err := query(r); err != nil {
		return err
	}
	id := r.PathValue("id")
	if err := a.Store.Delete(r.Context(), id); err != nil {
		return err
	}
	a.audit(r, "key deleted", id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// defaultOverlap is the overlap of a rotation whose body names none.
const defaultOverlap = 24 * time.Hour

func (a *api) rotate(w http.ResponseWriter, r *http.Request) error {
	if _, err := query(r); err != nil {
		return err
	}
	var b struct {
		Overlap *string `json:"overlap"`
	}
	if err := decodeOptional(r, &b, "overlap"); err != nil {
		return err
	}
	overlap := defaultOverlap
	if b.Overlap != nil {
		d, err := time.ParseDuration(*b.Overlap)
		if err != nil || d < 0 {
			return apierror.New(http.StatusBadRequest, "overlap: want a duration of 0 or more such as \"24h\" or \"90m\"; got %q.", *b.Overlap)
		}
		overlap = d
	}
	next, old, err := a.Store.Rotate(r.Context(), r.PathValue("id"), overlap)
	if err != nil {
		return err
	}
	a.audit(r, "key rotated", old.ID, "new_key_id", next.ID, "old_expires_at", old.ExpiresAt)
	v := struct {
		keyJSON
		Replaces keyJSON `json:"replaces"`
	}{a.view(next.Key), a.view(old)}
	v.Secret = next.Secret
	w.Header().Set("Location", "/admin/v1/keys/"+next.ID)
	return reply(w, http.StatusCreated, v)
}

// maxDays bounds the period of a usage query.
const maxDays = 366

func (a *api) usage(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	q, err := query(r, "from", "to")
	if err != nil {
		return err
	}
	today := a.Now().UTC().Truncate(24 * time.Hour)
	to, err := day(q, "to", today)
	if err != nil {
		return err
	}
	from, err := day(q, "from", to.AddDate(0, 0, -29))
	if err != nil {
		return err
	}
	if from.After(to) || to.Sub(from) >= maxDays*24*time.Hour {
		return apierror.New(http.StatusBadRequest, "from: want a day at most %d days before to, and not after it.", maxDays)
	}
	k, err := a.Store.Get(r.Context(), id)
	if err != nil {
		return err
	}
	days := []usage.DayUsage{}
	// The days before the key was made are an earlier key's with its id.
	since := from
	if made := k.CreatedAt.UTC().Truncate(24 * time.Hour); since.Before(made) {
		since = made
	}
	if a.Usage != nil && !since.After(to) {
		got, err := a.Usage.KeyUsage(r.Context(), id, since, to)
		if err != nil {
			return apierror.Unavailable(time.Second, err, "Usage figures are unavailable; retry later.")
		}
		days = append(days, got...)
	}
	type usageJSON struct {
		ID   string           `json:"id"`
		From string           `json:"from"`
		To   string           `json:"to"`
		Days []usage.DayUsage `json:"days"`
	}
	return reply(w, http.StatusOK, map[string]usageJSON{"data": {id, from.Format(time.DateOnly), to.Format(time.DateOnly), days}})
}

// day reads the query parameter name as YYYY-MM-DD; absent is def.
func day(q map[string]string, name string, def time.Time) (time.Time, error) {
	v, ok := q[name]
	if !ok {
		return def, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, apierror.New(http.StatusBadRequest, "%s: want a day such as 2026-11-24; got %q.", name, v)
	}
	return t, nil
}

// query reads the request's query string as the public API does: a
// malformed one, a parameter the endpoint does not take (names match
// exactly) or one given twice is a 400 naming it. Each value is the
// parameter's one value, possibly empty: the caller judges that.
func query(r *http.Request, allowed ...string) (map[string]string, error) {
	values, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, apierror.New(http.StatusBadRequest, "The query string is malformed: a %%-escape is invalid or a ';' is used as a separator.")
	}
	var unknown []string
	for name := range values {
		if !slices.Contains(allowed, name) {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		takes := "no query parameters"
		if len(allowed) > 0 {
			takes = "only " + joinList(allowed, "and")
		}
		return nil, apierror.New(http.StatusBadRequest, "Unknown query parameter %s: this endpoint takes %s.", strings.Join(unknown, ", "), takes)
	}
	q := make(map[string]string, len(values))
	for _, name := range allowed {
		switch vs := values[name]; len(vs) {
		case 0:
		case 1:
			q[name] = vs[0]
		default:
			return nil, apierror.New(http.StatusBadRequest, "%s is given %d times; send it once.", name, len(vs))
		}
	}
	return q, nil
}

// checkProducts refuses products and plans the configuration lacks.
func (a *api) checkProducts(products map[string]string) error {
	if len(products) == 0 {
		return apierror.New(http.StatusBadRequest, `products: name at least one product and its plan, such as {"exercisedb": "Pro"}.`)
	}
	if err := a.Products.CheckSubscriptions(products); err != nil {
		return apierror.New(http.StatusBadRequest, "products: %v.", err)
	}
	return nil
}

var errExpiresAt = apierror.New(http.StatusBadRequest, "expiresAt: want an RFC 3339 time such as \"2027-01-31T00:00:00Z\", or null for none.")

// parseInstant reads an RFC 3339 time; nil is zero, no expiry.
func parseInstant(s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, *s)
	if err != nil {
		return time.Time{}, errExpiresAt
	}
	return t, nil
}

// maxBody bounds a request body.
const maxBody = 64 << 10

// decode reads the body as one JSON object of the given fields (named
// in the messages about an unknown one).
func decode(r *http.Request, v any, fields ...string) error {
	list := strings.Join(fields, ", ")
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return apierror.New(http.StatusBadRequest, "The body is larger than %d bytes.", maxBody)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return apierror.New(http.StatusBadRequest, "The body is empty; send a JSON object with %s.", list)
	}
	if err := checkNames(body, fields); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data")
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typ) && typ.Field != "":
		return apierror.New(http.StatusBadRequest, "%s: want %s, not a JSON %s.", typ.Field, typeName(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return apierror.New(http.StatusBadRequest, "Unknown field %s: the fields are %s.", strings.TrimPrefix(err.Error(), "json: unknown field "), list)
	case errors.As(err, &syntax):
		return apierror.New(http.StatusBadRequest, "Malformed JSON at byte %d: %v.", syntax.Offset, err)
	}
	return apierror.New(http.StatusBadRequest, "Malformed JSON: want one object with %s.", list)
}

// decodeOptional is decode for a body that may be empty.
func decodeOptional(r *http.Request, v any, fields ...string) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return apierror.New(http.StatusBadRequest, "The body is larger than %d bytes.", maxBody)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return decode(r, v, fields...)
}

// maxDepth bounds the nesting checkNames follows. No field nests more
// than two levels, so deeper JSON fails decoding anyway (a wrong type).
const maxDepth = 100

// errMalformed stops checkNames at JSON it cannot read; Decode then says
// what is wrong.
var errMalformed = errors.New("malformed JSON")

// checkNames refuses what encoding/json would settle silently: a name
// given twice in one object, at any depth (it keeps the last value), and
// a field of the top-level object named in another case than fields
// (it matches names without regard to case). Malformed JSON is left to
// the decoder, whose messages say where it breaks.
func checkNames(body []byte, fields []string) error {
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return nil // not an object: the decoder refuses it
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	err := checkValue(dec, "", fields, 0)
	if errors.Is(err, errMalformed) {
		return nil
	}
	return err
}

// checkValue reads one JSON value from dec; path names it in messages
// ("" for the top level), and fields, when not nil, are the only names
// an object there may have.
func checkValue(dec *json.Decoder, path string, fields []string, depth int) error {
	if depth > maxDepth {
		return errMalformed
	}
	tok, err := dec.Token()
	if err != nil {
		return errMalformed
	}
	switch tok {
	case json.Delim('{'):
		var names []string // in order, each once
		count := map[string]int{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return errMalformed
			}
			name, _ := tok.(string)
			if fields != nil && !slices.Contains(fields, name) {
				return apierror.New(http.StatusBadRequest, "Unknown field %q: the fields are %s.", name, strings.Join(fields, ", "))
			}
			if count[name]++; count[name] == 1 {
				names = append(names, name)
			}
			if err := checkValue(dec, member(path, name), nil, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return errMalformed
		}
		for _, name := range names {
			if n := count[name]; n > 1 {
				return apierror.New(http.StatusBadRequest, "%s is given %d times; send it once.", member(path, name), n)
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := checkValue(dec, fmt.Sprintf("%s[%d]", path, i), nil, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing bracket
			return errMalformed
		}
	}
	return nil
}

// member names a member of the object at path: "products.exercisedb";
// a name that would not read as one is quoted.
func member(path, name string) string {
	if name == "" || strings.ContainsAny(name, ` ."[]`) || !utf8.ValidString(name) {
		name = strconv.Quote(name)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// typeName names a Go kind in JSON's words.
func typeName(kind string) string {
	switch kind {
	case "string", "ptr":
		return "a string"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	}
	return fmt.Sprintf("a %s", kind)
}
