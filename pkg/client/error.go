package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Codes of the error envelope, one per HTTP status, as /docs/errors
// lists them.
const (
	CodeBadRequest         = "BAD_REQUEST"           // 400
	CodeUnauthorized       = "UNAUTHORIZED"          // 401
	CodeForbidden          = "FORBIDDEN"             // 403
	CodeNotFound           = "NOT_FOUND"             // 404
	CodeMethodNotAllowed   = "METHOD_NOT_ALLOWED"    // 405
	CodeConflict           = "CONFLICT"              // 409
	CodePreconditionFailed = "PRECONDITION_FAILED"   // 412
	CodeContentTooLarge    = "CONTENT_TOO_LARGE"     // 413
	CodeTooManyRequests    = "TOO_MANY_REQUESTS"     // 429
	CodeInternal           = "INTERNAL_SERVER_ERROR" // 500
	CodeServiceUnavailable = "SERVICE_UNAVAILABLE"   // 503
)

// Codes returns every code of the error envelope, by HTTP status.
func Codes() map[int]string {
	return map[int]string{
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
}

// Error is an error response of the API. Find it with errors.As:
//
//	var apiErr *client.Error
//	if errors.As(err, &apiErr) && apiErr.Code == client.CodeTooManyRequests {
//		// Retried as the RetryPolicy allows, and still refused.
//		log.Printf("over the plan's limits; the API asks to wait %v", apiErr.RetryAfter)
//	}
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the envelope's code (one of the Code constants); empty when
	// the body was not the envelope, for example from a proxy.
	Code string
	// Message says what went wrong, for people.
	Message string
	// Docs links to the description of the code.
	Docs string
	// RequestID identifies the request (req_...); quote it when reporting
	// a problem.
	RequestID string
	// RetryAfter is the wait the response asks for (Retry-After), on 429
	// and 503; zero if it names none.
	RetryAfter time.Duration
}

// Error renders the status, code, message and request id on one line.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exercisedb: %d", e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// responseError turns a response other than 200 into an *Error.
func responseError(resp *http.Response, body []byte) *Error {
	e := &Error{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	var env struct {
		Error *struct {
			Code      string `json:"code"`
			Docs      string `json:"docs"`
			Message   string `json:"message"`
			RequestID string `json:"requestId"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		e.Code, e.Docs, e.Message = env.Error.Code, env.Error.Docs, env.Error.Message
		if env.Error.RequestID != "" {
			e.RequestID = env.Error.RequestID
		}
	} else {
		e.Message = http.StatusText(resp.StatusCode)
	}
	e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	return e
}

// retryAfter reads a Retry-After value: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(n, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
