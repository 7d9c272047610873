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

// nulFlagColumn is the column a projection's rows carry so that strings
// come back from queries as they were stored: true when the row's stored
// body holds a \u0000 escape (its doc column then holds U+FFFD for it)
// and no U+FFFD of its own (raw or escaped), so that every U+FFFD of an
// output computed from the row's document stands for a U+0000 (see
// RestoreNUL). The common row pays one strpos over its body; a row whose
// body holds both characters keeps U+FFFD in its output (the two can no
// longer be told apart there), as do results computed across rows
// (aggregates, GROUP BY, DISTINCT) and query constants holding U+0000.
const nulFlagColumn = `(CASE WHEN strpos(r.body, chr(92) || 'u0000') > 0 THEN strpos(r.body, chr(65533)) = 0 AND strpos(lower(r.body), chr(92) || 'ufffd') = 0 ELSE false END)`

// RestoreNUL returns the JSON text out of a projected row whose
// NULFlag column is true with each U+FFFD (PostgreSQL writes jsonb text
// unescaped, so always as its UTF-8 bytes) written back as the \u0000
// escape it stood for; out itself when it has none.
func RestoreNUL(out []byte) []byte {
	if !bytes.Contains(out, replacementUTF8) {
		return out
	}
	return bytes.ReplaceAll(out, replacementUTF8, []byte(`\u0000`))
}

var replacementUTF8 = []byte("\uFFFD")

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
