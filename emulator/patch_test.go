package emulator

import (
	"context"
	"strings"
	"testing"
)

func TestPatch(t *testing.T) {
	const doc = `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,2,3],"o":{"x":"y"}}`
	tests := []struct {
		name string
		ops  string
		want string // resulting document, or "" when an error is expected
		err  string
	}{
		{"add new", `[{"op":"add","path":"/c","value":"s"}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,2,3],"o":{"x":"y"},"c":"s"}`, ""},
		{"add replaces member", `[{"op":"add","path":"/n","value":5}]`, `{"id":"1","pk":"a","n":5,"f":1.5,"arr":[1,2,3],"o":{"x":"y"}}`, ""},
		{"add inserts in array", `[{"op":"add","path":"/arr/1","value":9}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,9,2,3],"o":{"x":"y"}}`, ""},
		{"add appends with -", `[{"op":"add","path":"/arr/-","value":9}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,2,3,9],"o":{"x":"y"}}`, ""},
		{"set overwrites array element", `[{"op":"set","path":"/arr/0","value":0}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[0,2,3],"o":{"x":"y"}}`, ""},
		{"set nested creates", `[{"op":"set","path":"/o/z","value":true}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,2,3],"o":{"x":"y","z":true}}`, ""},
		{"replace existing", `[{"op":"replace","path":"/o/x","value":null}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,2,3],"o":{"x":null}}`, ""},
		{"remove member", `[{"op":"remove","path":"/f"}]`, `{"id":"1","pk":"a","n":1,"arr":[1,2,3],"o":{"x":"y"}}`, ""},
		{"remove array element", `[{"op":"remove","path":"/arr/0"}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[2,3],"o":{"x":"y"}}`, ""},
		{"incr int", `[{"op":"incr","path":"/n","value":10}]`, `{"id":"1","pk":"a","n":11,"f":1.5,"arr":[1,2,3],"o":{"x":"y"}}`, ""},
		{"incr negative float", `[{"op":"incr","path":"/f","value":-0.25}]`, `{"id":"1","pk":"a","n":1,"f":1.25,"arr":[1,2,3],"o":{"x":"y"}}`, ""},
		{"incr creates missing", `[{"op":"incr","path":"/k","value":3}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,2,3],"o":{"x":"y"},"k":3}`, ""},
		{"move", `[{"op":"move","from":"/o/x","path":"/moved"}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,2,3],"o":{},"moved":"y"}`, ""},
		{"json pointer escapes", `[{"op":"add","path":"/a~1b~0c","value":1}]`, `{"id":"1","pk":"a","n":1,"f":1.5,"arr":[1,2,3],"o":{"x":"y"},"a/b~c":1}`, ""},
		{"operations object form", `{"operations":[{"op":"set","path":"/n","value":2}]}`, `{"id":"1","pk":"a","n":2,"f":1.5,"arr":[1,2,3],"o":{"x":"y"}}`, ""},
		// errors
		{"replace missing", `[{"op":"replace","path":"/nope","value":1}]`, "", "does not exist"},
		{"remove missing", `[{"op":"remove","path":"/nope"}]`, "", "does not exist"},
		{"incr non-number target", `[{"op":"incr","path":"/o","value":1}]`, "", "not a number"},
		{"incr non-number value", `[{"op":"incr","path":"/n","value":"1"}]`, "", "numeric value"},
		{"add index out of range", `[{"op":"add","path":"/arr/9","value":1}]`, "", "out of range"},
		{"missing parent", `[{"op":"set","path":"/no/such","value":1}]`, "", "does not exist"},
		{"root path", `[{"op":"set","path":"/","value":1}]`, "", "invalid path"},
		{"unknown op", `[{"op":"copy","path":"/a","value":1}]`, "", "invalid op"},
		{"no value", `[{"op":"set","path":"/a"}]`, "", "has no value"},
		{"move into itself", `[{"op":"move","from":"/o","path":"/o/x"}]`, "", "must not be inside"},
		{"condition is parsed apart (evaluated by the service)", `{"condition":"from c where c.n = 1","operations":[{"op":"set","path":"/n","value":2}]}`, `{"id":"1","pk":"a","n":2,"f":1.5,"arr":[1,2,3],"o":{"x":"y"}}`, ""},
		{"eleven operations", `[` + strings.Repeat(`{"op":"set","path":"/n","value":2},`, 10) + `{"op":"set","path":"/n","value":2}]`, "", "exceeds the maximum of 10"},
		{"empty", `[]`, "", "no operations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := DecodeJSON([]byte(doc))
			d := v.(*Object)
			ops, _, err := ParsePatch(context.Background(), []byte(tt.ops))
			if err == nil {
				err = ops.Apply(d)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				if KindOf(err) != KindBadRequest {
					t.Fatalf("kind %v, want BadRequest", KindOf(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(EncodeJSON(d)); got != tt.want {
				t.Fatalf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestPatchDepthBounded: a patch body nested past MaxJSONDepth is refused
// while parsing, and so is a patch whose result would nest that deep.
func TestPatchDepthBounded(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	if _, _, err := ParsePatch(context.Background(), []byte(`[{"op":"set","path":"/a","value":`+nest(100000)+`}]`)); KindOf(err) != KindBadRequest {
		t.Fatalf("100,000-deep patch body: %v, want a 400", err)
	}
	// The body nests 2 + n deep, the result 3 + n.
	ops, _, err := ParsePatch(context.Background(), []byte(`[{"op":"set","path":"/a/b/c","value":`+nest(MaxJSONDepth-3)+`}]`))
	if err != nil {
		t.Fatal(err)
	}
	doc := func() *Object {
		v, err := DecodeJSON([]byte(`{"id":"1","a":{"b":{"c":1}}}`))
		if err != nil {
			t.Fatal(err)
		}
		return v.(*Object)
	}
	if err := ops.Apply(doc()); err != nil { // at the limit
		t.Fatalf("patch to depth %d: %v", MaxJSONDepth, err)
	}
	ops, _, err = ParsePatch(context.Background(), []byte(`[{"op":"set","path":"/a/b/c","value":`+nest(MaxJSONDepth-2)+`}]`))
	if err != nil {
		t.Fatal(err)
	}
	if err := ops.Apply(doc()); KindOf(err) != KindBadRequest {
		t.Fatalf("patch to depth %d: %v, want a 400", MaxJSONDepth+1, err)
	}
}
