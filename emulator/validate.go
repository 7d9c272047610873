package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the service (reference §4).
const (
	// MaxItemSize is the largest accepted document or request body.
	MaxItemSize = 2 * 1024 * 1024
	// MaxIDBytes is the longest item id, in UTF-8 bytes. The current docs
	// say 1023 bytes, the 2016 REST docs 255 characters; the reference sides
	// with the current docs and so do we.
	MaxIDBytes = 1023
	// MaxResourceNameLength is the longest database or container id.
	MaxResourceNameLength = 255
	// MaxPatchOperations is the most operations one patch may carry.
	MaxPatchOperations = 10
	// MaxTTL is the largest ttl or defaultTtl value.
	MaxTTL = 2147483647
)

// systemProperties are the document properties the service owns; values a
// client sends for them are dropped on every write.
var systemProperties = []string{"_rid", "_self", "_etag", "_attachments", "_ts"}

// ValidateItemID checks an item id: 1..MaxIDBytes bytes of UTF-8 (the
// decoder already refused invalid UTF-8) without U+0000. Ids round-trip as
// through Microsoft's compute gateway (the Go SDK's
// TestItemIdEncodingComputeGW): '/', '\', '?', '#', spaces and control
// characters are accepted and addressable, since every segment of a path
// is unescaped on its own. The reference (§4) says the hosted service
// refuses '/' and '\'; its routing gateway then fails such ids on read.
// Only "." and ".." are refused: URL parsers (the JS SDK's WHATWG URL,
// .NET's Uri) remove such path segments, so the item could never be
// addressed.
func ValidateItemID(v any) (string, error) {
	id, ok := v.(string)
	if !ok {
		return "", BadRequest("The input content is invalid because the required properties - 'id; ' - are missing")
	}
	if id == "" {
		return "", BadRequest("The input name presented is empty. Ensure to provide a non-empty id.")
	}
	if len(id) > MaxIDBytes {
		return "", BadRequest("The input name presented is too long. Ensure to provide a name of at most %d bytes.", MaxIDBytes)
	}
	if isDotSegment(id) {
		return "", BadRequest("The input name '%s' is invalid: '.' and '..' cannot be addressed in a URL path. Ensure to provide another id.", id)
	}
	if strings.IndexByte(id, 0) >= 0 {
		return "", errNulInName
	}
	return id, nil
}

// ValidateResourceName checks a database or container id: 1..255
// characters, none of / \ ? #, no trailing space (reference §4), and not
// "." or ".." or holding U+0000 (see ValidateItemID).
func ValidateResourceName(v any) (string, error) {
	id, ok := v.(string)
	if !ok {
		return "", BadRequest("The input content is invalid because the required properties - 'id; ' - are missing")
	}
	if strings.IndexByte(id, 0) >= 0 {
		return "", errNulInName
	}
	n := utf8.RuneCountInString(id)
	if n == 0 || n > MaxResourceNameLength || strings.ContainsAny(id, `/\?#`) || strings.HasSuffix(id, " ") || isDotSegment(id) {
		return "", BadRequest("The input name '%s' is invalid. Ensure to provide a unique non-empty string less than '%d' characters. Ensure to not include characters: '/', '\\', '?', '#' and to not end with a space.", id, MaxResourceNameLength+1)
	}
	return id, nil
}

// errNulInName refuses a name holding U+0000: names are stored as
// PostgreSQL text, which cannot hold it.
var errNulInName = BadRequest("The input name is invalid: it holds the character U+0000 (\"\\u0000\"). Ensure to provide a name without it.")

// isDotSegment reports whether id is a path segment URL parsers remove.
func isDotSegment(id string) bool { return id == "." || id == ".." }

// parseTTLValue converts a JSON ttl value into an int32 within
// -1 or 1..2147483647; ok is false for everything else (0, other
// negatives, larger values, fractions, strings, null, ...).
func parseTTLValue(v any) (int32, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	s := string(n)
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// 10.0 or 1e3 are integral doubles; Cosmos DB reads ttl as an
		// int32, so only integer literals are accepted.
		return 0, false
	}
	if i == -1 || (i >= 1 && i <= MaxTTL) {
		return int32(i), true
	}
	return 0, false
}

// ttlText renders a rejected ttl value for the error message.
func ttlText(v any) string {
	if v == nil {
		return "null"
	}
	if s, ok := v.(string); ok {
		return s
	}
	return string(EncodeJSON(v))
}

// ValidateItemTTL validates an item's ttl property; absent yields nil.
//
// Choice (the reference marks it unverified): the item ttl is validated
// whether or not the container's TTL is on, so a document that is valid
// today stays valid when TTL is turned on later.
func ValidateItemTTL(doc *Object) (*int32, error) {
	v, ok := doc.Get("ttl")
	if !ok {
		return nil, nil
	}
	t, ok := parseTTLValue(v)
	if !ok {
		return nil, BadRequest("The input ttl '%s' is invalid. Ensure to provide a nonzero positive integer less than or equal to '%d', or '-1' which means never expire.", ttlText(v), MaxTTL)
	}
	return &t, nil
}

// ValidateDefaultTTL validates a container's defaultTtl property; absent or
// null yields nil (TTL off).
func ValidateDefaultTTL(props *Object) (*int32, error) {
	v, ok := props.Get("defaultTtl")
	if !ok || v == nil {
		return nil, nil
	}
	t, ok := parseTTLValue(v)
	if !ok {
		return nil, BadRequest("The input defaultTtl '%s' is invalid. Ensure to provide a nonzero positive integer less than or equal to '%d', or '-1' which means never expire.", ttlText(v), MaxTTL)
	}
	return &t, nil
}

// decodeBody decodes a request body (at most MaxItemSize bytes) with
// DecodeJSONContext; a client's mistake is a 400 whose message names it.
func decodeBody(ctx context.Context, body []byte) (any, error) {
	if len(body) > MaxItemSize {
		return nil, ErrTooLarge
	}
	v, err := DecodeJSONContext(ctx, body)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return nil, err
	case errors.Is(err, ErrJSONInvalidUTF8), errors.Is(err, ErrJSONTooDeep):
		return nil, InvalidBody(err)
	default:
		return nil, &Error{Kind: KindBadRequest, Message: MsgInvalidPayload, Err: err}
	}
}

// InvalidBody is the 400 of a request body that err (such as
// ErrJSONInvalidUTF8) says is invalid; the message names err.
func InvalidBody(err error) *Error {
	return &Error{Kind: KindBadRequest, Message: MsgInvalidPayload + " The request body is invalid: " + err.Error() + ".", Err: err}
}

// decodeObject decodes a request body that must be a JSON object.
func decodeObject(ctx context.Context, body []byte) (*Object, error) {
	v, err := decodeBody(ctx, body)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*Object)
	if !ok {
		return nil, &Error{Kind: KindBadRequest, Message: MsgInvalidPayload, Err: fmt.Errorf("body is not a JSON object")}
	}
	return obj, nil
}

// checkDepth reports ErrJSONTooDeep (as a 400) when v nests arrays and
// objects more than MaxJSONDepth levels deep: a patch can build such a
// document from a shallow one.
func checkDepth(v any) error {
	if jsonDepth(v, 0) > MaxJSONDepth {
		return &Error{Kind: KindBadRequest, Message: MsgInvalidPayload + " The resulting document is invalid: " + ErrJSONTooDeep.Error() + ".", Err: ErrJSONTooDeep}
	}
	return nil
}

// jsonDepth returns the nesting depth of v, stopping once it passes
// MaxJSONDepth.
func jsonDepth(v any, depth int) int {
	if depth > MaxJSONDepth {
		return depth
	}
	max := depth
	switch t := v.(type) {
	case *Object:
		max = depth + 1
		for _, m := range t.Members {
			if d := jsonDepth(m.Value, depth+1); d > max {
				max = d
			}
		}
	case []any:
		max = depth + 1
		for _, e := range t {
			if d := jsonDepth(e, depth+1); d > max {
				max = d
			}
		}
	}
	return max
}
