package catalogclient

import (
	"context"

	catalogv1 "github.com/exercisedb/exercisedb/gen/exercisedb/catalog/v1"
)

// CatalogueChanges is what one catalogue version changed since the one
// before it, as the public API spells it.
type CatalogueChanges struct {
	Version      string         `json:"version"`
	Previous     string         `json:"previous"`
	Added        []string       `json:"added"`
	Changed      []RecordChange `json:"changed"`
	Removed      []string       `json:"removed"`
	Vocabularies bool           `json:"vocabularies"`
}

// RecordChange names a record that changed and the fields that differ.
type RecordChange struct {
	ID     string   `json:"id"`
	Fields []string `json:"fields"`
}

// Changelog returns the catalogue versions that lead to the one served,
// newest first, back to since if it is set, and the catalogue version. A
// since the changelog does not reach is a 400 naming since.
func (c *Client) Changelog(ctx context.Context, requestID, since string) ([]CatalogueChanges, Version, error) {
	r, err := unary(ctx, c, requestID, func(ctx context.Context) (*catalogv1.GetChangelogResponse, error) {
		return c.rpc.GetChangelog(ctx, &catalogv1.GetChangelogRequest{Since: since})
	})
	if err != nil {
		return nil, "", toAPIError(err)
	}
	out := make([]CatalogueChanges, len(r.Versions))
	for i, v := range r.Versions {
		out[i] = CatalogueChanges{
			Version: v.Version, Previous: v.Previous, Vocabularies: v.Vocabularies,
			Added: nonNil(v.Added), Removed: nonNil(v.Removed), Changed: make([]RecordChange, len(v.Changed)),
		}
		for j, ch := range v.Changed {
			out[i].Changed[j] = RecordChange{ID: ch.Id, Fields: nonNil(ch.Fields)}
		}
	}
	return out, Version(r.CatalogueVersion), nil
}

// nonNil makes an absent list an empty one, so that it encodes as [].
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
