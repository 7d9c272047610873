package emulator

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// CacheKey builds the key of an exact cache (the query plan cache, the
// store's translated statements) from the inputs of what it caches. Each
// field is written with its length in front, so two different lists of
// inputs never give the same key. The zero value is ready.
type CacheKey struct {
	b strings.Builder
}

// Grow reserves room for n more bytes.
func (k *CacheKey) Grow(n int) { k.b.Grow(n) }

// Field adds s.
func (k *CacheKey) Field(s string) {
	k.b.WriteString(strconv.Itoa(len(s)))
	k.b.WriteByte(':')
	k.b.WriteString(s)
}

// Int adds n.
func (k *CacheKey) Int(n int64) { k.Field(strconv.FormatInt(n, 10)) }

// Optional adds *s, or that there is none.
func (k *CacheKey) Optional(s *string) {
	if s == nil {
		k.b.WriteByte('-')
		return
	}
	k.b.WriteByte('+')
	k.Field(*s)
}

// Flag adds whether a flag is set.
func (k *CacheKey) Flag(set bool) {
	if set {
		k.b.WriteByte('1')
	} else {
		k.b.WriteByte('0')
	}
}

// Params adds query parameters by name, in name order (a nil value is an
// undefined parameter).
func (k *CacheKey) Params(params map[string]json.RawMessage) {
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	slices.Sort(names)
	k.Int(int64(len(names)))
	for _, name := range names {
		k.Field(name)
		if v := params[name]; v == nil {
			k.b.WriteByte('-') // undefined
		} else {
			k.b.WriteByte('+')
			k.Field(string(v))
		}
	}
}

// String returns the key.
func (k *CacheKey) String() string { return k.b.String() }
