package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// bigObject returns {"k0":0,"k1":1,...} with n members.
func bigObject(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// TestDecodeJSONLinearInMembers: finding duplicate member names costs a
// bounded number of name comparisons per member (a map past
// memberIndexFrom members), not a scan of every earlier member: 80,000
// keys were 3.2e9 comparisons and seconds of CPU.
func TestDecodeJSONLinearInMembers(t *testing.T) {
	for _, n := range []int{10, memberIndexFrom, 1000, 80000} {
		d := &jsonDecoder{ctx: context.Background()}
		v, err := d.decode(bigObject(n))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(v.(*Object).Members); got != n {
			t.Fatalf("%d members decoded, want %d", got, n)
		}
		if limit := memberIndexFrom * memberIndexFrom; d.compared > limit {
			t.Errorf("%d members: %d name comparisons, want at most %d", n, d.compared, limit)
		}
	}
}

// TestDecodeJSONDuplicateMembers: the last value wins at the position of
// the first, below and past the map threshold.
func TestDecodeJSONDuplicateMembers(t *testing.T) {
	for _, n := range []int{3, memberIndexFrom - 1, memberIndexFrom, memberIndexFrom + 5, 200} {
		body := bigObject(n)
		body = append(body[:len(body)-1], `,"k0":"last","k1":"last1"}`...)
		v, err := DecodeJSON(body)
		if err != nil {
			t.Fatal(err)
		}
		o := v.(*Object)
		if len(o.Members) != n || o.Members[0].Key != "k0" || o.Members[0].Value != "last" || o.Members[1].Value != "last1" {
			t.Fatalf("n=%d: members %d, first %+v %+v", n, len(o.Members), o.Members[0], o.Members[1])
		}
	}
}

// TestDecodeJSONRefusesWhatCannotBeStored: invalid UTF-8 (encoding/json
// would silently replace it), U+0000 in strings and names (PostgreSQL's
// jsonb refuses it) and nesting past MaxJSONDepth are errors.
func TestDecodeJSONRefusesWhatCannotBeStored(t *testing.T) {
	deep := func(n int, open, close string) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	tests := []struct {
		name, body string
		want       error // nil: accepted
	}{
		{"invalid UTF-8 in a string", "{\"id\":\"a\xffb\"}", ErrJSONInvalidUTF8},
		{"invalid UTF-8 in a name", "{\"a\xc3\":1}", ErrJSONInvalidUTF8},
		{"truncated UTF-8 sequence", "[\"\xe2\x82\"]", ErrJSONInvalidUTF8},
		{"NUL escape in a name", `{"a\u0000":1}`, nil},
		{"NUL escape in a value", `["\u0000"]`, nil},
		{"escaped backslash then u0000 text", `{"id":"a\\u0000"}`, nil},
		{"non-ASCII UTF-8", `{"id":"é€😀"}`, nil},
		{"arrays at the limit", deep(MaxJSONDepth, "[", "]"), nil},
		{"arrays past the limit", deep(MaxJSONDepth+1, "[", "]"), ErrJSONTooDeep},
		{"objects past the limit", strings.Repeat(`{"a":`, MaxJSONDepth+1) + "1" + strings.Repeat("}", MaxJSONDepth+1), ErrJSONTooDeep},
		{"100,000 deep", deep(100000, "[", "]"), ErrJSONTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeJSON([]byte(tt.body))
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("DecodeJSON = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestDecodeJSONContextStops: a cancelled context ends decoding.
func TestDecodeJSONContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := DecodeJSONContext(ctx, bigObject(10000)); !errors.Is(err, context.Canceled) {
		t.Fatalf("DecodeJSONContext on a cancelled context = %v, want context.Canceled", err)
	}
}

// BenchmarkDecodeJSON80000Keys decodes an object of 80,000 members (the
// issue's 6 s document).
func BenchmarkDecodeJSON80000Keys(b *testing.B) {
	body := bigObject(80000)
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		if _, err := DecodeJSON(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdlibUnmarshal80000Keys is encoding/json into a map, for
// comparison.
func BenchmarkStdlibUnmarshal80000Keys(b *testing.B) {
	body := bigObject(80000)
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepareItem80000Keys is a create's whole CPU path before SQL on
// an 80,000-member document: decode, drop system properties, validate id
// and ttl, extract the partition key, encode.
func BenchmarkPrepareItem80000Keys(b *testing.B) {
	body := bigObject(80000)
	body = append([]byte(`{"id":"big","pk":"a",`), body[1:]...)
	c := Container{PartitionKey: PartitionKeyDefinition{Paths: []string{"/pk"}}}
	hdr := PartitionKey{"a"}
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		if _, err := prepareItem(context.Background(), c, body, hdr); err != nil {
			b.Fatal(err)
		}
	}
}
