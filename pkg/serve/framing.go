package serve

import "net/http"

// RefuseTransferEncoding reports whether r is to be refused for carrying
// a body by Transfer-Encoding, and then sets Connection: close on w so
// that net/http closes the connection after the answer, which the caller
// writes: 400, in its listener's own format, through its own middleware
// (request id, logging). Both listeners of the gateway and the catalog's
// admin listener use it.
//
// A request with both Transfer-Encoding and Content-Length is the classic
// request smuggling vector behind a proxy that reads the other header:
// what the proxy took for a body may be a second request hidden in it,
// so the connection is not read further. net/http drops Content-Length
// from such a request before a handler sees it, so the two cannot be told
// apart here: any Transfer-Encoding is refused. No route takes a body of
// unknown length (the admin API's are small JSON, sent with
// Content-Length by every client that knows its size).
func RefuseTransferEncoding(w http.ResponseWriter, r *http.Request) bool {
	if len(r.TransferEncoding) == 0 {
		return false
	}
	w.Header().Set("Connection", "close")
	return true
}
