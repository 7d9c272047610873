package wire

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// RetryAfterUnavailable is the x-ms-retry-after-ms of a 503: about the time
// the managed PostgreSQL takes to restart.
const RetryAfterUnavailable = 1000

// MsgUnavailable is the message of a 503 sent because the storage is
// unreachable.
const MsgUnavailable = "The emulator's database is unreachable or restarting; retry the request shortly."

// StatusClientClosedRequest is the status recorded (metrics, request log)
// for a request whose client disconnected before its answer: nginx's 499
// "client closed request", as no standard status says it. The client
// never reads it.
const StatusClientClosedRequest = 499

// StatusConnectionDropped is the status the request metrics and log record
// for a request the emulator answered by closing the connection (a fault
// rule's closeConnection): nginx's 444 "no response", as no standard status
// says it. No client ever receives it.
const StatusConnectionDropped = 444

// StatusOf returns the HTTP status for an error kind. This is the only place
// where error kinds become status codes.
func StatusOf(k emulator.Kind) int {
	switch k {
	case emulator.KindBadRequest:
		return http.StatusBadRequest
	case emulator.KindUnauthorized:
		return http.StatusUnauthorized
	case emulator.KindForbidden:
		return http.StatusForbidden
	case emulator.KindNotFound:
		return http.StatusNotFound
	case emulator.KindMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case emulator.KindConflict:
		return http.StatusConflict
	case emulator.KindGone:
		return http.StatusGone
	case emulator.KindPreconditionFailed:
		return http.StatusPreconditionFailed
	case emulator.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case emulator.KindUnavailable:
		return http.StatusServiceUnavailable
	case emulator.KindRequestTimeout:
		return http.StatusRequestTimeout
	case emulator.KindTooManyRequests:
		return http.StatusTooManyRequests
	default:
		return http.StatusInternalServerError
	}
}

// writeError sends err as a Cosmos error: status and x-ms-substatus from its
// kind, body {"code","message"[,"additionalErrorInfo"]}. Internal errors are
// logged with their cause; clients see only the message.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := h.cosmosError(err)
	status := StatusOf(e.Kind)
	if r.Context().Err() != nil {
		// The client went away (the request's context ends only then):
		// whatever failed failed for that, not the server's fault, and
		// nobody reads the answer. Counted and logged apart, as 499.
		h.log.Debug("client closed request", "method", r.Method, "path", r.URL.Path, "err", err)
		hd := w.Header()
		hd.Set("X-Ms-Substatus", "0")
		writeBody(w, StatusClientClosedRequest, []byte(`{"code":"ClientClosedRequest","message":"The client closed the connection before the response."}`))
		return
	}
	if status >= 500 {
		h.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	} else {
		h.log.Debug("request refused", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	}
	hd := w.Header()
	hd.Set("X-Ms-Substatus", strconv.Itoa(e.SubStatus))
	if hd.Get("X-Ms-Request-Charge") == "" {
		hd.Set("X-Ms-Request-Charge", "1")
	}
	if status == http.StatusServiceUnavailable {
		// When to try again: the SDKs' throttling retries read
		// x-ms-retry-after-ms, plain HTTP clients Retry-After.
		hd.Set("X-Ms-Retry-After-Ms", strconv.Itoa(RetryAfterUnavailable))
		hd.Set("Retry-After", strconv.Itoa((RetryAfterUnavailable+999)/1000))
	}
	msg := e.Message
	if e.Message == emulator.MsgTooLarge {
		// the service's envelope ends with the request's activity id
		// (reference §1.5.8)
		msg += "\r\nActivityId: " + hd.Get("X-Ms-Activity-Id")
	}
	writeErrorBody(w, status, e.Kind.String(), msg, e.AdditionalErrorInfo)
}

// cosmosError returns err as the Cosmos error a client is sent: err's own
// when it is one, else an internal error, or a 503 when the storage is
// unreachable. Both transports (HTTP and direct mode) send errors so.
func (h *handler) cosmosError(err error) *emulator.Error {
	var e *emulator.Error
	if !errors.As(err, &e) {
		e = &emulator.Error{Kind: emulator.KindInternal, Message: "The emulator failed to process the request.", Err: err}
	}
	if e.Kind == emulator.KindInternal && h.unavailable != nil && h.unavailable(err) {
		e = &emulator.Error{Kind: emulator.KindUnavailable, Message: MsgUnavailable, Err: err}
	}
	return e
}

// errorBody is the service's error body {"code","message"
// [,"additionalErrorInfo"]}.
func errorBody(code, msg, additional string) []byte {
	body := []byte(`{"code":`)
	body = emulator.AppendJSONString(body, code)
	body = append(body, `,"message":`...)
	body = emulator.AppendJSONString(body, msg)
	if additional != "" {
		body = append(body, `,"additionalErrorInfo":`...)
		body = emulator.AppendJSONString(body, additional)
	}
	return append(body, '}')
}

// writeErrorBody writes the service's error body {"code","message"
// [,"additionalErrorInfo"]} with status; the caller sets the headers.
func writeErrorBody(w http.ResponseWriter, status int, code, msg, additional string) {
	writeBody(w, status, errorBody(code, msg, additional))
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// DefaultFaultRetryAfterMs is the x-ms-retry-after-ms of an injected 429
// whose rule names none.
const DefaultFaultRetryAfterMs = 100

// injectedError returns the code and message the service sends with status
// and substatus, for the answers of fault rules (faults.go): the SDKs and
// the tests that read them see what production shows.
func injectedError(status, substatus int) (code, msg string) {
	switch {
	case status == http.StatusTooManyRequests:
		return "TooManyRequests", `Message: {"Errors":["` + emulator.MsgTooManyRequests + `"]}`
	case status == http.StatusServiceUnavailable:
		return "ServiceUnavailable", "Service is currently unavailable. Learn more: https://aka.ms/cosmosdb-tsg-service-unavailable"
	case status == http.StatusRequestTimeout:
		return "RequestTimeout", "Request timed out. Learn more: https://aka.ms/cosmosdb-tsg-request-timeout"
	case status == http.StatusGone && substatus == 1002:
		return "Gone", "The requested partition key range is gone; refresh the partition key ranges and retry."
	case status == http.StatusGone:
		return "Gone", "The requested resource is no longer available at the server."
	case status == 449:
		return "RetryWith", "Conflicting request to resource has been attempted. Retry to avoid conflicts."
	case status == http.StatusNotFound && substatus == 1002:
		return "NotFound", "The read session is not available for the input session token."
	case status == http.StatusNotFound:
		return "NotFound", emulator.MsgResourceNotFound
	case status == http.StatusForbidden && substatus == 3:
		return "Forbidden", "The requested operation cannot be performed at this region."
	case status == http.StatusInternalServerError:
		return "InternalServerError", "Unknown server error occurred when processing this request."
	}
	text := http.StatusText(status)
	if text == "" {
		text = "Error " + strconv.Itoa(status)
	}
	return strings.ReplaceAll(text, " ", ""), text + "."
}
