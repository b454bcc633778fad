package httpapi

import (
	"github.com/gin-gonic/gin"

	"github.com/exercisedb/exercisedb/gateway/catalogclient"
	"github.com/exercisedb/exercisedb/gateway/queryparam"
)

// The JSON shape of /api/v1/changelog.
type (
	changelogBody struct {
		Success bool          `json:"success"`
		Data    changelogJSON `json:"data"`
	}
	changelogJSON struct {
		// CatalogueVersion is the version served, the newest of Versions
		// when there are any.
		CatalogueVersion string                           `json:"catalogueVersion"`
		Versions         []catalogclient.CatalogueChanges `json:"versions"`
	}
)

// changelog answers what each catalogue version changed, newest first,
// back to since when it is given. A since the changelog does not reach
// back to is a 400 naming it: the client must fetch its records again.
func (a *api) changelog(c *gin.Context) {
	values, err := queryparam.Parse(c.Request.URL.RawQuery, []string{"since"})
	if err != nil {
		a.fail(c, err)
		return
	}
	since, _, err := queryparam.Single(values, "since")
	if err != nil {
		a.fail(c, err)
		return
	}
	if a.fromCache(c, since) {
		return
	}
	versions, version, err := a.Catalog.Changelog(c, requestIDOf(c), since)
	if err != nil {
		a.fail(c, err)
		return
	}
	a.respond(c, version, changelogBody{Success: true, Data: changelogJSON{CatalogueVersion: string(version), Versions: versions}})
}
