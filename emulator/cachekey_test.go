package emulator

import (
	"encoding/json"
	"testing"
)

// TestCacheKeyDistinguishesInputs: inputs that differ only in where one
// field ends and the next begins, in an absent against an empty value, an
// undefined against a null parameter, or a flag give different keys; the
// same inputs give the same key whatever the parameters' map order.
func TestCacheKeyDistinguishesInputs(t *testing.T) {
	empty := ""
	key := func(build func(k *CacheKey)) string {
		var k CacheKey
		build(&k)
		return k.String()
	}
	pairs := []struct {
		name string
		a, b func(k *CacheKey)
	}{
		{"field boundary", func(k *CacheKey) { k.Field("ab"); k.Field("c") }, func(k *CacheKey) { k.Field("a"); k.Field("bc") }},
		{"absent against empty", func(k *CacheKey) { k.Optional(nil) }, func(k *CacheKey) { k.Optional(&empty) }},
		{"undefined against null", func(k *CacheKey) { k.Params(map[string]json.RawMessage{"@a": nil}) },
			func(k *CacheKey) { k.Params(map[string]json.RawMessage{"@a": json.RawMessage("null")}) }},
		{"parameter name against value", func(k *CacheKey) { k.Params(map[string]json.RawMessage{"@a": json.RawMessage("1")}) },
			func(k *CacheKey) { k.Params(map[string]json.RawMessage{"@a1": nil}) }},
		{"flag", func(k *CacheKey) { k.Flag(true) }, func(k *CacheKey) { k.Flag(false) }},
		{"number against text", func(k *CacheKey) { k.Int(12) }, func(k *CacheKey) { k.Field("1"); k.Field("2") }},
	}
	for _, p := range pairs {
		if a, b := key(p.a), key(p.b); a == b {
			t.Errorf("%s: both give %q", p.name, a)
		}
	}
	params := map[string]json.RawMessage{"@b": json.RawMessage("2"), "@a": json.RawMessage("1"), "@c": nil}
	first := key(func(k *CacheKey) { k.Params(params) })
	for range 20 {
		if got := key(func(k *CacheKey) { k.Params(params) }); got != first {
			t.Fatalf("the same parameters gave %q and %q", first, got)
		}
	}
}
