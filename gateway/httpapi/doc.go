// Package httpapi is the gateway's public HTTP API, built on gin. It owns
// the routes, the order of checks (route, product, key, plan, limits,
// query, catalog call), the JSON shapes, the error envelope, conditional
// requests and the error documentation pages. gin stays inside this package.
package httpapi
