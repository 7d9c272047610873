package emulator

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateItemID(t *testing.T) {
	tests := []struct {
		name string
		id   any
		ok   bool
	}{
		{"plain", "a", true},
		{"spaces and unicode", " This is é鱀 ", true},
		// as Microsoft's compute gateway (TestItemIdEncodingComputeGW):
		// '/', '\', '?' and '#' round-trip; '?' and '#' are rejected by
		// some SDKs, not by the service.
		{"question mark accepted", "a?b", true},
		{"hash accepted", "a#b", true},
		{"percent accepted", "a%20b", true},
		{"control characters accepted", "a\r\n\tb", true},
		{"slash accepted", "a/b", true},
		{"backslash accepted", `a\b`, true},
		{"dot rejected (URL parsers drop the segment)", ".", false},
		{"dot-dot rejected", "..", false},
		{"dots within accepted", "...", true},
		{"dot prefix accepted", ".a", true},
		{"U+0000 rejected (PostgreSQL text cannot hold it)", "a\x00b", false},
		{"empty rejected", "", false},
		{"1023 bytes accepted (current docs' limit)", strings.Repeat("x", 1023), true},
		{"1024 bytes rejected", strings.Repeat("x", 1024), false},
		{"number rejected", json.Number("1"), false},
		{"null rejected", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ValidateItemID(tt.id)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateItemID(%q) err = %v, want ok=%v", tt.id, err, tt.ok)
			}
			if err != nil && KindOf(err) != KindBadRequest {
				t.Fatalf("kind %v, want BadRequest", KindOf(err))
			}
		})
	}
}

func TestValidateResourceName(t *testing.T) {
	for name, ok := range map[string]bool{
		"db1": true, strings.Repeat("d", 255): true, strings.Repeat("d", 256): false,
		"a/b": false, `a\b`: false, "a?b": false, "a#b": false, "trailing ": false, "": false,
		".": false, "..": false, "...": true, "a\x00b": false,
	} {
		if _, err := ValidateResourceName(name); (err == nil) != ok {
			t.Errorf("ValidateResourceName(%q) err = %v, want ok=%v", name, err, ok)
		}
	}
}

func TestValidateItemTTL(t *testing.T) {
	tests := []struct {
		body string
		want *int32
		err  string
	}{
		{`{"id":"a"}`, nil, ""},
		{`{"id":"a","ttl":-1}`, ptr(-1), ""},
		{`{"id":"a","ttl":1}`, ptr(1), ""},
		{`{"id":"a","ttl":2147483647}`, ptr(2147483647), ""},
		{`{"id":"a","ttl":0}`, nil, "The input ttl '0' is invalid. Ensure to provide a nonzero positive integer less than or equal to '2147483647', or '-1' which means never expire."},
		{`{"id":"a","ttl":null}`, nil, "The input ttl 'null' is invalid."},
		{`{"id":"a","ttl":-2}`, nil, "The input ttl '-2' is invalid."},
		{`{"id":"a","ttl":2147483648}`, nil, "The input ttl '2147483648' is invalid."},
		{`{"id":"a","ttl":1.5}`, nil, "The input ttl '1.5' is invalid."},
		{`{"id":"a","ttl":10.0}`, nil, "The input ttl '10.0' is invalid."},
		{`{"id":"a","ttl":"10"}`, nil, "The input ttl '10' is invalid."},
		{`{"id":"a","ttl":true}`, nil, "The input ttl 'true' is invalid."},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			v, err := DecodeJSON([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ValidateItemTTL(v.(*Object))
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.(*Error).Message, tt.err) {
					t.Fatalf("err = %v, want message starting %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Fatalf("got %v want %v", got, tt.want)
			}
		})
	}
}

func TestValidateDefaultTTL(t *testing.T) {
	for body, ok := range map[string]bool{
		`{}`: true, `{"defaultTtl":null}`: true, `{"defaultTtl":-1}`: true, `{"defaultTtl":3600}`: true,
		`{"defaultTtl":2147483647}`: true, `{"defaultTtl":0}`: false, `{"defaultTtl":-2}`: false,
		`{"defaultTtl":2147483648}`: false, `{"defaultTtl":1.5}`: false, `{"defaultTtl":"10"}`: false,
	} {
		v, _ := DecodeJSON([]byte(body))
		_, err := ValidateDefaultTTL(v.(*Object))
		if (err == nil) != ok {
			t.Errorf("%s: err = %v, want ok=%v", body, err, ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "BadRequest: The input defaultTtl '") {
			t.Errorf("%s: message %q", body, err)
		}
	}
}

func ptr(v int32) *int32 { return &v }

func TestDecodeJSONKeepsOrderAndNumbers(t *testing.T) {
	in := `{"z":1,"a":{"y":[1,2.50,9007199254740993],"b":null},"m":"x\u00e9<>&","t":true}`
	v, err := DecodeJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1,"a":{"y":[1,2.50,9007199254740993],"b":null},"m":"xé<>&","t":true}`
	if got := string(EncodeJSON(v)); got != want {
		t.Fatalf("round trip\n got %s\nwant %s", got, want)
	}
}

func TestDecodeJSONRejects(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1}{}`, `{"a":1e400}`, `{"a":-1e400}`, `[1,]`, `{"a":NaN}`, `nul`} {
		if _, err := DecodeJSON([]byte(in)); err == nil {
			t.Errorf("DecodeJSON(%q) accepted", in)
		}
	}
}

func TestExtractPartitionKey(t *testing.T) {
	tests := []struct {
		doc   string
		paths []string
		want  string
	}{
		{`{"pk":"a"}`, []string{"/pk"}, `["a"]`},
		{`{"pk":1}`, []string{"/pk"}, `[1]`},
		{`{"pk":1.0}`, []string{"/pk"}, `[1]`},
		{`{"pk":null}`, []string{"/pk"}, `[null]`},
		{`{"pk":true}`, []string{"/pk"}, `[true]`},
		{`{}`, []string{"/pk"}, `[{}]`},
		{`{"pk":{"x":1}}`, []string{"/pk"}, `[{}]`},
		{`{"a":{"b":"c"}}`, []string{"/a/b"}, `["c"]`},
		{`{"odd name":"v"}`, []string{`/"odd name"`}, `["v"]`},
		{`{"t":"x","u":2}`, []string{"/t", "/u", "/v"}, `["x",2,{}]`},
	}
	for _, tt := range tests {
		v, _ := DecodeJSON([]byte(tt.doc))
		got := ExtractPartitionKey(v.(*Object), PartitionKeyDefinition{Paths: tt.paths}).Canonical()
		if got != tt.want {
			t.Errorf("%s %v: got %s want %s", tt.doc, tt.paths, got, tt.want)
		}
	}
}

func TestExpiryLive(t *testing.T) {
	tests := []struct {
		name    string
		def     *int32
		itemTTL *int32
		age     int64
		live    bool
	}{
		{"ttl off, no item ttl", nil, nil, 1e9, true},
		{"ttl off, item ttl ignored", nil, ptr(10), 1e9, true},
		{"default -1, no item ttl", ptr(-1), nil, 1e9, true},
		{"default -1, item ttl 10, age 9", ptr(-1), ptr(10), 9, true},
		{"default -1, item ttl 10, age 10", ptr(-1), ptr(10), 10, false},
		{"default 100, no item ttl, age 99", ptr(100), nil, 99, true},
		{"default 100, no item ttl, age 100", ptr(100), nil, 100, false},
		{"default 100, item -1 never expires", ptr(100), ptr(-1), 1e9, true},
		{"default 100, item 5 overrides, age 5", ptr(100), ptr(5), 5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Expiry{Now: 1000 + tt.age, DefaultTTL: tt.def}
			if got := e.Live(1000, tt.itemTTL); got != tt.live {
				t.Fatalf("Live = %v, want %v", got, tt.live)
			}
		})
	}
}
