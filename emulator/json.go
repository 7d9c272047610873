package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// DecodeJSON parses exactly one JSON value from data, keeping object member
// order. Numbers must be finite IEEE-754 doubles (Cosmos DB rejects 1e400
// with 400). A duplicate member name keeps the last value at the position of
// the first.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	return decodeFrom(dec, tok)
}

func decodeFrom(dec *json.Decoder, tok json.Token) (any, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				obj.Set(key, v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %q", t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("number %s is not a finite double", t)
		}
		return t, nil
	default: // nil, bool, string
		return t, nil
	}
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
