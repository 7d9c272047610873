package sqlgen

import (
	"bytes"
	"strings"
)

// U+0000 in bind arguments. PostgreSQL's text and jsonb cannot hold it, so
// a document's queryable column (doc) holds U+FFFD where its text has
// U+0000 (the stored body keeps the original; see pgstore's items table).
// Constants of a query get the same replacement: "a\u0000b" then matches
// the item that holds it, where the raw value would fail the statement.

// textWithoutNUL is s with every U+0000 replaced by U+FFFD.
func textWithoutNUL(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// jsonWithoutNUL is the JSON text raw with every \u0000 escape replaced by
// \ufffd. A backslash in JSON text always starts an escape of two
// characters or more, so stepping over each pair finds exactly the escapes
// (a \\ followed by u0000 is an escaped backslash and the text u0000).
func jsonWithoutNUL(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`\u0000`)) {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			out = append(out, raw[i])
			continue
		}
		if bytes.HasPrefix(raw[i+1:], []byte("u0000")) {
			out = append(out, `\ufffd`...)
			i += 5
			continue
		}
		out = append(out, raw[i], raw[i+1])
		i++
	}
	return out
}

// jsonsWithoutNUL is jsonWithoutNUL of each JSON text of vs (nil stays
// nil); vs itself when none has a \u0000 escape.
func jsonsWithoutNUL(vs []*string) []*string {
	var out []*string
	for i, v := range vs {
		if v == nil || !strings.Contains(*v, `\u0000`) {
			if out != nil {
				out[i] = v
			}
			continue
		}
		if out == nil {
			out = make([]*string, len(vs))
			copy(out, vs[:i])
		}
		s := string(jsonWithoutNUL([]byte(*v)))
		out[i] = &s
	}
	if out == nil {
		return vs
	}
	return out
}
