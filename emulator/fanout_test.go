package emulator

import (
	"encoding/base64"
	"testing"
)

func TestDecodeFanOutToken(t *testing.T) {
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, tok string
		ok        bool
	}{
		{"none", "", true},
		{"issued", encodeFanOutToken(fanOutToken{Min: "", Max: "3F", Inner: "x"}), true},
		{"last span", encodeFanOutToken(fanOutToken{Min: "3F", Max: "FF"}), true},
		{"not base64", "%%%", false},
		{"not json", b64("nope"), false},
		{"empty span", b64(`{"min":"3F","max":"3F"}`), false},
		{"reversed span", b64(`{"min":"4F","max":"3F"}`), false},
		{"lower-case bound", b64(`{"min":"3f","max":"FF"}`), false},
		{"not hex", b64(`{"min":"ZZ","max":"FF"}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeFanOutToken(tt.tok)
			if (err == nil) != tt.ok {
				t.Fatalf("decodeFanOutToken(%q) error %v, want ok=%v", tt.tok, err, tt.ok)
			}
			if err != nil {
				if e, isErr := err.(*Error); !isErr || e.Kind != KindBadRequest {
					t.Fatalf("error %#v, want a 400", err)
				}
			}
		})
	}
}

func TestFanOutSpan(t *testing.T) {
	c := Container{Ranges: []PartitionKeyRange{
		{ID: "1", MinInclusive: "", MaxExclusive: "55"},
		{ID: "2", MinInclusive: "55", MaxExclusive: "AA"},
		{ID: "3", MinInclusive: "AA", MaxExclusive: "FF"},
	}}
	tests := []struct {
		name     string
		at       string
		within   *EPKRange
		want     EPKRange
		wantMore bool
	}{
		{"first", "", nil, EPKRange{"", "55"}, true},
		{"middle", "55", nil, EPKRange{"55", "AA"}, true},
		{"inside a range", "60", nil, EPKRange{"60", "AA"}, true},
		{"end", "FF", nil, EPKRange{}, false},
		{"cut by the sub-range", "55", &EPKRange{"50", "70"}, EPKRange{"55", "70"}, true},
		{"past the sub-range", "70", &EPKRange{"50", "70"}, EPKRange{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more := fanOutSpan(c, tt.at, tt.within)
			if got != tt.want || more != tt.wantMore {
				t.Fatalf("fanOutSpan(%q) = %v, %v; want %v, %v", tt.at, got, more, tt.want, tt.wantMore)
			}
		})
	}
}
