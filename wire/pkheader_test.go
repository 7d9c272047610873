package wire

import (
	"strconv"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

func TestParsePartitionKeyHeader(t *testing.T) {
	tests := []struct {
		header string
		want   string // canonical encoding; "" means nil (no header)
		err    bool
	}{
		{"", "", false},
		{`["a"]`, `["a"]`, false},
		{`["1"]`, `["1"]`, false},
		{`[1]`, `[1]`, false},
		{`[1.0]`, `[1]`, false}, // 1 and 1.0 are the same double
		{`[12.5]`, `[12.5]`, false},
		{`[true]`, `[true]`, false},
		{`[false]`, `[false]`, false},
		{`[null]`, `[null]`, false},
		{`[{}]`, `[{}]`, false},
		{`["1","alpha"]`, `["1","alpha"]`, false},
		{`["a",2,null]`, `["a",2,null]`, false},
		{` ["a"] `, `["a"]`, false},
		{`[]`, `[]`, false},
		{`["p\u00e9"]`, `["pé"]`, false},
		// Go's strconv.QuoteToASCII escapes that JSON lacks (sdk-notes §2.5)
		{`["p\u00e9\U0001f600"]`, `["pé😀"]`, false},
		{`["\a\b\v\f\x7f"]`, `["\u0007\b\u000b\f` + "\x7f" + `"]`, false},
		{`["\x00"]`, `["\u0000"]`, false},
		// invalid UTF-8: no document can hold it
		{"[\"a\xff\"]", "", true},
		// errors
		{`"a"`, "", true},
		{`[[1]]`, "", true},
		{`[{"a":1}]`, "", true},
		{`["a"`, "", true},
		{`["\U0011ffff"]`, "", true},
		{`["\xZZ"]`, "", true},
		{`[1e400]`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			pk, err := ParsePartitionKeyHeader(tt.header)
			if tt.err {
				if err == nil {
					t.Fatalf("want an error, got %v", pk.Canonical())
				}
				if emulator.KindOf(err) != emulator.KindBadRequest {
					t.Fatalf("error kind %v, want BadRequest", emulator.KindOf(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if pk != nil {
					t.Fatalf("want nil, got %v", pk.Canonical())
				}
				return
			}
			if got := pk.Canonical(); got != tt.want {
				t.Fatalf("canonical %s, want %s", got, tt.want)
			}
		})
	}
}

// TestPartitionKeysOfDifferentTypesNeverCollide: "1", 1, true, null and a
// missing key are five partitions.
func TestPartitionKeysOfDifferentTypesNeverCollide(t *testing.T) {
	seen := map[string]string{}
	for _, h := range []string{`["1"]`, `[1]`, `[true]`, `[null]`, `[{}]`, `["true"]`, `["null"]`, `["{}"]`} {
		pk, err := ParsePartitionKeyHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		c := pk.Canonical()
		if other, dup := seen[c]; dup {
			t.Fatalf("%s and %s share the partition %s", h, other, c)
		}
		seen[c] = h
	}
}

// FuzzParsePartitionKeyHeader: no input panics, and whatever parses has a
// canonical form that parses back to itself.
func FuzzParsePartitionKeyHeader(f *testing.F) {
	for _, s := range []string{`["a"]`, `[1]`, `[null]`, `[{}]`, `["\U0001f600"]`, `["\x7f\a\v"]`, `[true,"b",2.5]`, strconv.Quote("x")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		pk, err := ParsePartitionKeyHeader(h)
		if err != nil || pk == nil {
			return
		}
		c := pk.Canonical()
		again, err := ParsePartitionKeyHeader(c)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", c, h, err)
		}
		if again.Canonical() != c {
			t.Fatalf("canonical form is not stable: %q -> %q", c, again.Canonical())
		}
	})
}
