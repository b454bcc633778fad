// Package apierror defines the gateway's one error type: what the client is
// told (status, code, message) and, apart from it, what only the log sees.
// Every failure of the public API, from a bad query to a panic, becomes an
// *Error before it is rendered in the documented envelope.
package apierror

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Error is a failure of the public API. The client sees Status, Code and
// Message; Err, if any, is for the log only and never reaches the client.
type Error struct {
	Status  int
	Code    string
	Message string
	// RetryAfter, when positive, is sent as the Retry-After header.
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Codes of the envelope, one per status.
const (
	CodeBadRequest         = "BAD_REQUEST"
	CodeUnauthorized       = "UNAUTHORIZED"
	CodeForbidden          = "FORBIDDEN"
	CodeNotFound           = "NOT_FOUND"
	CodeMethodNotAllowed   = "METHOD_NOT_ALLOWED"
	CodeConflict           = "CONFLICT"
	CodePreconditionFailed = "PRECONDITION_FAILED"
	CodeContentTooLarge    = "CONTENT_TOO_LARGE" // a request body over the limit (the admin API's)
	CodeTooManyRequests    = "TOO_MANY_REQUESTS"
	CodeInternal           = "INTERNAL_SERVER_ERROR"
	CodeServiceUnavailable = "SERVICE_UNAVAILABLE"
)

// codes maps each status the gateway answers with to its envelope code.
var codes = map[int]string{
	http.StatusBadRequest:            CodeBadRequest,
	http.StatusUnauthorized:          CodeUnauthorized,
	http.StatusForbidden:             CodeForbidden,
	http.StatusNotFound:              CodeNotFound,
	http.StatusMethodNotAllowed:      CodeMethodNotAllowed,
	http.StatusConflict:              CodeConflict,
	http.StatusPreconditionFailed:    CodePreconditionFailed,
	http.StatusRequestEntityTooLarge: CodeContentTooLarge,
	http.StatusTooManyRequests:       CodeTooManyRequests,
	http.StatusInternalServerError:   CodeInternal,
	http.StatusServiceUnavailable:    CodeServiceUnavailable,
}

// Codes returns every envelope code, for the documentation pages.
func Codes() map[int]string {
	out := make(map[int]string, len(codes))
	for k, v := range codes {
		out[k] = v
	}
	return out
}

// New returns an error of the given status with a message for the client.
func New(status int, format string, args ...any) *Error {
	code, ok := codes[status]
	if !ok {
		status, code = http.StatusInternalServerError, CodeInternal
	}
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Internal hides err from the client behind a fixed message.
func Internal(err error) *Error {
	e := New(http.StatusInternalServerError, "The server failed to answer this request. Quote the request id if you report it.")
	e.Err = err
	return e
}

// Unavailable is a 503 telling the client when to retry; err is logged.
func Unavailable(retryAfter time.Duration, err error, format string, args ...any) *Error {
	e := New(http.StatusServiceUnavailable, format, args...)
	e.RetryAfter, e.Err = retryAfter, err
	return e
}

// From returns err as an *Error, treating anything else as internal.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}
