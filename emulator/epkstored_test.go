package emulator

import "testing"

// TestCanonicalEPK: the EPK of a stored (canonical) key is the one of the
// key itself (SDK vectors, partitioning.md §7), for every component type;
// a string that is not a canonical key gives "".
func TestCanonicalEPK(t *testing.T) {
	v1 := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}
	v2 := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	mh := PartitionKeyDefinition{Paths: []string{"/a", "/b"}, Kind: "MultiHash", Version: 2}
	for _, tc := range []struct {
		name      string
		def       PartitionKeyDefinition
		canonical string
		want      string
	}{
		{"V1 string", v1, `["redmond"]`, "05C1EFE313830C087366656E706F6500"},
		{"V1 number", v1, `[5]`, "05C1D9C1C5517C05C014"},
		{"V1 undefined", v1, `[{}]`, "05C1D529E345DC00"},
		{"V1 null", v1, `[null]`, "05C1ED45D7475601"},
		{"V2 string", v2, `["redmond"]`, "22E342F38A486A088463DFF7838A5963"},
		{"V2 true", v2, `[true]`, "0E711127C5B5A8E4726AC6DD306A3E59"},
		{"MultiHash", mh, `["redmond",5]`, "22E342F38A486A088463DFF7838A596319C08621B135968252FB34B4CF66F811"},
		{"empty key", v2, `[]`, ""},
		{"not a key", v2, `{"a":1}`, ""},
		{"not JSON", v2, `[`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CanonicalEPK(tc.def, tc.canonical); got != tc.want {
				t.Fatalf("CanonicalEPK(%s) = %s, want %s", tc.canonical, got, tc.want)
			}
		})
	}
}

// TestParseEPKRange: header bounds become an upper-case range; the whole
// space is no filter (nil); an empty range is a 400.
func TestParseEPKRange(t *testing.T) {
	for _, tc := range []struct {
		start, end string
		want       *EPKRange
		bad        bool
	}{
		{"", "", nil, false},
		{"", "FF", nil, false},
		{"", "ff", nil, false},
		{"05c1", "05D0", &EPKRange{Min: "05C1", Max: "05D0"}, false},
		{"10", "", &EPKRange{Min: "10"}, false},
		{"", "10", &EPKRange{Max: "10"}, false},
		{"80", "10", nil, true},
		{"10", "10", nil, true},
	} {
		got, err := ParseEPKRange(tc.start, tc.end)
		if tc.bad != (err != nil) || (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("ParseEPKRange(%q, %q) = %v, %v; want %v (error %v)", tc.start, tc.end, got, err, tc.want, tc.bad)
		}
	}
}

// BenchmarkCanonicalEPK measures the EPK a write computes from its stored
// key (a V1 string key and a two-level MultiHash key).
func BenchmarkCanonicalEPK(b *testing.B) {
	for _, tc := range []struct {
		name      string
		def       PartitionKeyDefinition
		canonical string
	}{
		{"V1", PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, `["customer-000123"]`},
		{"MultiHash", PartitionKeyDefinition{Paths: []string{"/a", "/b"}, Kind: "MultiHash", Version: 2}, `["tenant1","user1"]`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				CanonicalEPK(tc.def, tc.canonical)
			}
		})
	}
}
