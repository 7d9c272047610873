package emulator

import "strings"

// CanonicalEPK returns the effective partition key of the items whose
// stored (canonical, PartitionKey.Canonical) partition key is canonical in
// a container whose definition is def: what the store keeps beside each
// item so that a partition key range is an interval of an indexed column.
// A string that is not a canonical key (never stored) yields "".
func CanonicalEPK(def PartitionKeyDefinition, canonical string) string {
	k, ok := decodeCanonicalPK(canonical)
	if !ok {
		return ""
	}
	return EffectivePartitionKey(def, k)
}

// decodeCanonicalPK parses a stored (canonical) partition key.
func decodeCanonicalPK(s string) (PartitionKey, bool) {
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		return nil, false
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	return PartitionKeyFromJSON(arr)
}

// ParseEPKRange turns the bounds of an effective partition key range
// header pair (x-ms-start-epk, x-ms-end-epk: hex, any case; "" end means
// the end of the space) into the range a store filters by, upper-cased
// as stored EPKs are: nil when it covers the whole space, a 400 when it is
// empty.
func ParseEPKRange(start, end string) (*EPKRange, error) {
	r := EPKRange{Min: strings.ToUpper(start), Max: strings.ToUpper(end)}
	if r.Max != "" && r.Max <= r.Min {
		return nil, BadRequest("The effective partition key range [%s, %s) is empty.", start, end)
	}
	if r.Full() {
		return nil, nil
	}
	return &r, nil
}
