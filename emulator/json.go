package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// Object is a JSON object that keeps the order of its members, so that a
// document round-trips with its properties in the order the client wrote
// them (as Cosmos DB does).
//
// Decoded JSON values are: nil (null), bool, json.Number, string, []any and
// *Object.
type Object struct {
	Members []Member
}

// Member is one name/value pair of an Object.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of the member named key and whether it exists.
func (o *Object) Get(key string) (any, bool) {
	if i := o.index(key); i >= 0 {
		return o.Members[i].Value, true
	}
	return nil, false
}

// Set replaces the value of the member named key, or appends the member.
func (o *Object) Set(key string, v any) {
	if i := o.index(key); i >= 0 {
		o.Members[i].Value = v
		return
	}
	o.Members = append(o.Members, Member{Key: key, Value: v})
}

// Delete removes the member named key and reports whether it existed.
func (o *Object) Delete(key string) bool {
	i := o.index(key)
	if i < 0 {
		return false
	}
	o.Members = append(o.Members[:i], o.Members[i+1:]...)
	return true
}

func (o *Object) index(key string) int {
	for i := range o.Members {
		if o.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// MaxJSONDepth is how deeply arrays and objects may nest in a decoded
// value: the service's documented nesting limit (reference §4: 128). The
// outermost object or array is depth 1.
const MaxJSONDepth = 128

// JSON decoding errors a client can cause; DecodeJSON wraps them.
var (
	// ErrJSONInvalidUTF8 reports bytes that are not UTF-8 (encoding/json
	// would silently replace them with U+FFFD).
	ErrJSONInvalidUTF8 = errors.New("the JSON text is not valid UTF-8")
	// ErrJSONLoneSurrogate reports a \u escape of a UTF-16 surrogate
	// (D800-DFFF) that is not half of a pair: it encodes no character,
	// and storing it would mean storing something else (U+FFFD) than what
	// was sent; the service refuses such text as invalid JSON.
	ErrJSONLoneSurrogate = errors.New("the JSON text holds a \\u escape of a lone UTF-16 surrogate")
	// ErrJSONTooDeep reports nesting beyond MaxJSONDepth.
	ErrJSONTooDeep = fmt.Errorf("arrays and objects nest more than %d levels deep", MaxJSONDepth)
)

// DecodeJSON parses exactly one JSON value from data, keeping object member
// order, in time linear in the size of data. Numbers must be finite
// IEEE-754 doubles (Cosmos DB rejects 1e400 with 400). A duplicate member
// name keeps the last value at the position of the first. The text must be
// valid UTF-8 and nest at most MaxJSONDepth levels. U+0000 ("\u0000") is
// accepted in strings: documents are stored as text (their jsonb column
// maps it to U+FFFD), and names that reach PostgreSQL as text (ids,
// partition key paths) refuse it in their validators.
func DecodeJSON(data []byte) (any, error) {
	return DecodeJSONContext(context.Background(), data)
}

// ctxCheckEvery is how many values DecodeJSONContext decodes between two
// looks at its context.
const ctxCheckEvery = 4096

// DecodeJSONContext is DecodeJSON that stops with ctx's error once ctx is
// done (the client went away).
func DecodeJSONContext(ctx context.Context, data []byte) (any, error) {
	return (&jsonDecoder{ctx: ctx}).decode(data)
}

// jsonDecoder is a single-pass recursive-descent JSON parser building
// decoded values (nil, bool, json.Number, string, []any, *Object).
type jsonDecoder struct {
	ctx  context.Context
	data []byte
	// text is data as one string: unescaped strings and number literals
	// are slices of it (one allocation for the whole text).
	text   string
	pos    int
	values int
	// compared counts the member names compared while looking for
	// duplicates (tests assert it grows linearly).
	compared int
}

// memberIndexFrom is the member count from which a decoded object's
// duplicate names are found through a map rather than by scanning.
const memberIndexFrom = 16

// dedupe keeps the first member of each name, holding the value of the
// last one, in place: by scanning the earlier members below
// memberIndexFrom members, through one map sized once above.
func (d *jsonDecoder) dedupe(ms []Member) []Member {
	out := ms[:0]
	if len(ms) < memberIndexFrom {
	next:
		for _, m := range ms {
			d.compared += len(out)
			for i := range out {
				if out[i].Key == m.Key {
					out[i].Value = m.Value
					continue next
				}
			}
			out = append(out, m)
		}
		return out
	}
	first := make(map[string]int, len(ms))
	for _, m := range ms {
		if i, ok := first[m.Key]; ok {
			out[i].Value = m.Value
			continue
		}
		first[m.Key] = len(out)
		out = append(out, m)
	}
	return out
}

func (d *jsonDecoder) decode(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, ErrJSONInvalidUTF8
	}
	if err := d.ctx.Err(); err != nil {
		return nil, err
	}
	d.data, d.text, d.pos = data, string(data), 0
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func (d *jsonDecoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *jsonDecoder) syntaxError(what string) error {
	if d.pos >= len(d.data) {
		return fmt.Errorf("unexpected end of JSON input (%s)", what)
	}
	return fmt.Errorf("invalid character %q at offset %d (%s)", d.data[d.pos], d.pos, what)
}

// literal consumes word (true, false, null) at the current position.
func (d *jsonDecoder) literal(word string) bool {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	return false
}

func (d *jsonDecoder) value(depth int) (any, error) {
	d.values++
	if d.values%ctxCheckEvery == 0 {
		if err := d.ctx.Err(); err != nil {
			return nil, err
		}
	}
	d.skipSpace()
	if d.pos >= len(d.data) {
		return nil, d.syntaxError("looking for a value")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		if depth++; depth > MaxJSONDepth {
			return nil, ErrJSONTooDeep
		}
		return d.object(depth)
	case c == '[':
		if depth++; depth > MaxJSONDepth {
			return nil, ErrJSONTooDeep
		}
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case d.literal("true"):
		return true, nil
	case d.literal("false"):
		return false, nil
	case d.literal("null"):
		return nil, nil
	default:
		return nil, d.syntaxError("looking for a value")
	}
}

func (d *jsonDecoder) object(depth int) (any, error) {
	d.pos++ // '{'
	obj := &Object{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return obj, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.syntaxError("looking for a member name")
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.syntaxError("after a member name")
		}
		d.pos++
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		obj.Members = append(obj.Members, Member{Key: key, Value: v})
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.syntaxError("after an object member")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			obj.Members = d.dedupe(obj.Members)
			return obj, nil
		default:
			return nil, d.syntaxError("after an object member")
		}
	}
}

func (d *jsonDecoder) array(depth int) (any, error) {
	d.pos++ // '['
	arr := []any{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return arr, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.syntaxError("after an array element")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return arr, nil
		default:
			return nil, d.syntaxError("after an array element")
		}
	}
}

// str decodes the string literal at the current position. Literals
// without escapes are sliced; others are unescaped by encoding/json, once
// CheckJSONSurrogates has refused lone surrogates (which encoding/json
// would replace with U+FFFD).
func (d *jsonDecoder) str() (string, error) {
	start := d.pos
	d.pos++ // '"'
	escaped := false
	for {
		if d.pos >= len(d.data) {
			return "", d.syntaxError("in a string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			lit := d.data[start:d.pos]
			if !escaped {
				return d.text[start+1 : d.pos-1], nil
			}
			if err := CheckJSONSurrogates(lit); err != nil {
				return "", fmt.Errorf("invalid string literal at offset %d: %w", start, err)
			}
			var s string
			if err := json.Unmarshal(lit, &s); err != nil {
				return "", fmt.Errorf("invalid string literal at offset %d: %w", start, err)
			}
			return s, nil
		case c == '\\':
			escaped = true
			d.pos += 2
		case c < 0x20:
			return "", d.syntaxError("control character in a string")
		default:
			d.pos++
		}
	}
}

// CheckJSONSurrogates returns ErrJSONLoneSurrogate when the JSON text data
// holds a \u escape of a UTF-16 surrogate that is not half of a pair (a
// high one, D800-DBFF, directly followed by the escape of a low one,
// DC00-DFFF). It reads escapes only (a backslash in JSON text always
// starts one), so it runs in one pass over data, and suits any body that
// encoding/json decodes: call it before trusting the decoded strings.
func CheckJSONSurrogates(data []byte) error {
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		i++ // the escaped character
		if i >= len(data) || data[i] != 'u' {
			continue
		}
		r, ok := hex4(data[i+1:])
		if !ok || r < 0xD800 || r > 0xDFFF {
			continue
		}
		if r >= 0xDC00 {
			return ErrJSONLoneSurrogate
		}
		// a high surrogate: the next escape must be a low one
		next := data[i+5:]
		if len(next) < 6 || next[0] != '\\' || next[1] != 'u' {
			return ErrJSONLoneSurrogate
		}
		if lo, ok := hex4(next[2:]); !ok || lo < 0xDC00 || lo > 0xDFFF {
			return ErrJSONLoneSurrogate
		}
		i += 10 // past both escapes' hex digits (the loop adds 1)
	}
	return nil
}

// hex4 is the value of the four hexadecimal digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number decodes a number literal (JSON grammar) that must be a finite
// double.
func (d *jsonDecoder) number() (any, error) {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return nil, d.syntaxError("in a number")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return nil, d.syntaxError("after a decimal point")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return nil, d.syntaxError("in an exponent")
		}
	}
	lit := d.text[start:d.pos]
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("number %s is not a finite double", lit)
	}
	return json.Number(lit), nil
}

// EncodeJSON returns the compact JSON encoding of v (a value as produced by
// DecodeJSON, or plain Go maps/slices/scalars). HTML characters are not
// escaped; object member order is kept.
func EncodeJSON(v any) []byte {
	return AppendJSON(nil, v)
}

// AppendJSON appends the compact JSON encoding of v to buf.
func AppendJSON(buf []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(buf, "null"...)
	case bool:
		return strconv.AppendBool(buf, t)
	case json.Number:
		return append(buf, t...)
	case string:
		return AppendJSONString(buf, t)
	case float64:
		return AppendNumber(buf, t)
	case int:
		return strconv.AppendInt(buf, int64(t), 10)
	case int64:
		return strconv.AppendInt(buf, t, 10)
	case int32:
		return strconv.AppendInt(buf, int64(t), 10)
	case json.RawMessage:
		return append(buf, t...)
	case []any:
		buf = append(buf, '[')
		for i, e := range t {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendJSON(buf, e)
		}
		return append(buf, ']')
	case *Object:
		buf = append(buf, '{')
		for i, m := range t.Members {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendJSONString(buf, m.Key)
			buf = append(buf, ':')
			buf = AppendJSON(buf, m.Value)
		}
		return append(buf, '}')
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return append(buf, "null"...)
		}
		return append(buf, b...)
	}
}

// AppendNumber appends f the way JavaScript and Cosmos DB print doubles:
// integers without a fraction, others in the shortest form that round-trips.
func AppendNumber(buf []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.AppendFloat(buf, f, 'f', -1, 64)
	}
	return strconv.AppendFloat(buf, f, 'g', -1, 64)
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string literal. Control characters
// are escaped; everything else, including non-ASCII, is written as UTF-8.
func AppendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// AppendJSONArray appends the JSON array whose elements are docs, each
// already a JSON value, in order.
func AppendJSONArray(buf []byte, docs [][]byte) []byte {
	buf = append(buf, '[')
	for i, d := range docs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, d...)
	}
	return append(buf, ']')
}
