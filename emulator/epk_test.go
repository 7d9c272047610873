package emulator

import (
	"strings"
	"testing"
)

// TestEffectivePartitionKey checks the EPK against the SDKs' published
// vectors (partitioning.md §7).
func TestEffectivePartitionKey(t *testing.T) {
	v1 := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}
	v2 := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	mh := PartitionKeyDefinition{Paths: []string{"/a", "/b", "/c"}, Kind: "MultiHash", Version: 2}
	a110 := strings.Repeat("a", 110)
	for _, tc := range []struct {
		def  PartitionKeyDefinition
		pk   PartitionKey
		want string
	}{
		{v1, PartitionKey{"partitionKey"}, "05C1E1B3D9CD2608716273756A756A706F4C667A00"},
		{v1, PartitionKey{"redmond"}, "05C1EFE313830C087366656E706F6500"},
		{v1, PartitionKey{""}, "05C1CF33970FF80800"},
		{v1, PartitionKey{a110}, "05C1EB5921F70608" + strings.Repeat("62", 100) + "00"},
		{v1, PartitionKey{nil}, "05C1ED45D7475601"},
		{v1, PartitionKey{true}, "05C1D7C5A903D803"},
		{v1, PartitionKey{false}, "05C1DB857D857C02"},
		{v1, PartitionKey{Undefined}, "05C1D529E345DC00"},
		{v1, PartitionKey{5.0}, "05C1D9C1C5517C05C014"},
		{v1, PartitionKey{12313.1221}, "05C1ED154D592E05C0C90723F50FC925D8"},
		{v1, PartitionKey{-128.0}, "05C1D73349F54C053FA0"},
		{v1, PartitionKey{4.9e-324}, "05C1E5C91F4D3005800101010101010102"},
		{v1, PartitionKey{2.0, true, false, nil, Undefined, "Привет!"}, "05C1D19581B37C05C0000302010008D1A0D281D1B9D1B3D1B6D2832200"},
		{v2, PartitionKey{"redmond"}, "22E342F38A486A088463DFF7838A5963"},
		{v2, PartitionKey{""}, "32E9366E637A71B4E710384B2F4970A0"},
		{v2, PartitionKey{a110}, "0BA3E9CA8EE4C14538828D1612A4B652"},
		{v2, PartitionKey{strings.Repeat("a", 1024)}, "332BDF5512AE49615F32C7D98C2DB86C"},
		{v2, PartitionKey{nil}, "378867E4430E67857ACE5C908374FE16"},
		{v2, PartitionKey{Undefined}, "11622DAA78F835834610ABE56EFF5CB5"},
		{v2, PartitionKey{5.0}, "19C08621B135968252FB34B4CF66F811"},
		{v2, PartitionKey{"redmond", 50.0, 5.5, true, false, nil, "", 12313.1221}, "1A5E512F591E980E07A6D8AD5BD5AB2F"},
		{mh, PartitionKey{"redmond", true, nil}, "22E342F38A486A088463DFF7838A5963" + "0E711127C5B5A8E4726AC6DD306A3E59" + "378867E4430E67857ACE5C908374FE16"},
		{mh, PartitionKey{"tenant1"}, "0DAE0B8467B011E957BC0B8B0DEB5ACA"},
		{v1, PartitionKey{}, ""},
	} {
		if got := EffectivePartitionKey(tc.def, tc.pk); got != tc.want {
			t.Errorf("EPK(%v, %v) = %s, want %s", tc.def.Version, tc.pk, got, tc.want)
		}
	}
}
