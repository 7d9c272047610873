package emulator

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Paging defaults (reference §7.1). Without x-ms-max-item-count the hosted
// service returns pages of up to 1000 items (the docs say 100; the
// recording wins); 0 means the default too; -1 means "as many as fit".
const (
	DefaultPageSize = 1000
	// MaxResponseBytes is the page budget: a page ends before it exceeds it.
	MaxResponseBytes = 4 * 1024 * 1024
	// dynamicPageRows bounds a -1 ("dynamic") page.
	dynamicPageRows = 10000
)

// PageRequest is the paging part of a feed or query request.
type PageRequest struct {
	// MaxItems is x-ms-max-item-count: -1 dynamic, 0 default, else the page
	// size.
	MaxItems     int
	Continuation string
}

// Limit returns the most items the page may hold.
func (p PageRequest) Limit() int {
	switch {
	case p.MaxItems < 0:
		return dynamicPageRows
	case p.MaxItems == 0:
		return DefaultPageSize
	default:
		return p.MaxItems
	}
}

// Paginate cuts rows (fetched with one look-ahead row, i.e. up to limit+1)
// into a page of at most limit rows and MaxResponseBytes bytes (at least one
// row), and reports whether more rows follow.
func Paginate[T any](rows []T, limit int, size func(T) int) ([]T, bool) {
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	total := 0
	for i, r := range rows {
		total += size(r)
		if total > MaxResponseBytes && i > 0 {
			return rows[:i], true
		}
	}
	return rows, more
}

// ParsePageSize parses an x-ms-max-item-count header value ("" means the
// default).
func ParsePageSize(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < -1 {
		return 0, BadRequest("The input PageSize %s is invalid. Ensure to pass a valid page size which must be a positive integer or -1 for a dynamic page size.", v)
	}
	return n, nil
}

// MsgInvalidContinuation is the service's 400 message for a continuation
// token that does not belong to the request (a query's, a read feed's).
const MsgInvalidContinuation = "Invalid Continuation Token"

const seqTokenPrefix = "seq:"

// encodeSeqContinuation makes the opaque continuation token of a read feed
// that resumes after document number seq.
func encodeSeqContinuation(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(seqTokenPrefix + strconv.FormatInt(seq, 10)))
}

// decodeSeqContinuation reverses encodeSeqContinuation; "" means the start.
func decodeSeqContinuation(tok string) (int64, error) {
	if tok == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil && strings.HasPrefix(string(b), seqTokenPrefix) {
		if n, err := strconv.ParseInt(string(b[len(seqTokenPrefix):]), 10, 64); err == nil && n >= 0 {
			return n, nil
		}
	}
	return 0, BadRequest("%s", MsgInvalidContinuation)
}
