package adminapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

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
	if err := checkText("after", after); err != nil {
		return err
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
	meta := map[string]any{"total": p.Total, "limit": limit, "hasNextPage": p.More, "nextCursor": next}
	if len(p.Invalid) > 0 {
		// Rows of the page that do not decode: counted in total, not in
		// data; named here so that they can be fixed or deleted.
		ids := make([]string, len(p.Invalid))
		for i, bad := range p.Invalid {
			ids[i] = bad.ID
		}
		meta["invalid"] = ids
	}
	return reply(w, http.StatusOK, map[string]any{"data": data, "meta": meta})
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

var errExpiresAt = apierror.New(http.StatusBadRequest, "expiresAt: want an RFC 3339 time such as \"2027-01-31T00:00:00Z\" (in UTC, years 0001 to 9999), or null for none.")

// parseInstant reads an RFC 3339 time; nil is zero, no expiry.
func parseInstant(s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, nil
	}
	t, err := keys.ParseTime(*s)
	if err != nil {
		return time.Time{}, errExpiresAt
	}
	return t, nil
}
