package apierror

import "encoding/json"

// Envelope is the documented error body of every API of the gateway, the
// public one and the admin one.
type Envelope struct {
	Error EnvelopeError `json:"error"`
}

// EnvelopeError is the content of an Envelope.
type EnvelopeError struct {
	Code      string `json:"code"`
	Docs      string `json:"docs"`
	Message   string `json:"message"`
	RequestID string `json:"requestId"`
}

// Body renders e as an Envelope, newline-terminated. docsBase is the base
// of the documentation links (the gateway's /docs); the link is
// docsBase/errors/code/<CODE>.
func (e *Error) Body(docsBase, requestID string) []byte {
	body, err := json.Marshal(Envelope{Error: EnvelopeError{
		Code:      e.Code,
		Docs:      docsBase + "/errors/code/" + e.Code,
		Message:   e.Message,
		RequestID: requestID,
	}})
	if err != nil { // cannot happen with these types; keep the envelope anyway
		body = []byte(`{"error":{"code":"INTERNAL_SERVER_ERROR","docs":"","message":"internal error","requestId":""}}`)
	}
	return append(body, '\n')
}
