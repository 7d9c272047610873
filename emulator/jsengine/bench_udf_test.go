package jsengine

import (
	"context"
	"testing"
)

// BenchmarkUDFRunnerCall measures one UDF call on a runner (the per-row
// cost of a query calling a UDF): arguments parsed, the function called,
// its result serialised.
func BenchmarkUDFRunnerCall(b *testing.B) {
	e := New(Config{})
	u, err := e.NewUDFRunner(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer u.Close()
	k := CacheKey{ID: "plus"}
	args := [][]byte{[]byte(`{"a":1,"b":[1,2,3],"c":"text"}`)}
	for b.Loop() {
		if _, err := u.Call(k, `function (d) { return {n: d.a + 1, l: d.b.length, c: d.c}; }`, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunSprocStringify measures a procedure that serialises a
// document-sized value (the guarded JSON.stringify) and returns it.
func BenchmarkRunSprocStringify(b *testing.B) {
	e := New(Config{})
	s := Script{Key: key("benchjson"), Source: `function () {
		var d = {id: "x", pk: "p", n: 1, tags: ["a", "b", "c"], nested: {a: {b: {c: [1, 2, 3, {d: "e"}]}}}};
		var s = ""; for (var i = 0; i < 20; i++) s = JSON.stringify(d);
		getContext().getResponse().setBody(d);
	}`}
	for b.Loop() {
		if _, err := e.RunSproc(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
}
