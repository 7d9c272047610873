package wire

import (
	"net/http/httptest"
	"testing"
)

// TestEPKRangeHeaders: x-ms-read-key-type EffectivePartitionKeyRange
// without x-ms-start-epk and x-ms-end-epk names no sub-range (the range id,
// or the container, is read whole), as azure-cosmos (Python) sends it for
// a feed range that is a whole partition key range of a container with
// several; bounds, alone or with the key type, name a sub-range; another
// key type is a 400.
func TestEPKRangeHeaders(t *testing.T) {
	tests := []struct {
		name       string
		headers    map[string]string
		ok         bool
		start, end string
		wantErr    bool
	}{
		{name: "none"},
		{name: "key type without bounds", headers: map[string]string{"x-ms-read-key-type": "EffectivePartitionKeyRange"}},
		{name: "key type in another case", headers: map[string]string{"x-ms-read-key-type": "effectivepartitionkeyrange"}},
		{name: "key type and bounds", headers: map[string]string{"x-ms-read-key-type": "EffectivePartitionKeyRange", "x-ms-start-epk": "0CCC", "x-ms-end-epk": "1999"},
			ok: true, start: "0CCC", end: "1999"},
		{name: "bounds alone", headers: map[string]string{"x-ms-start-epk": "", "x-ms-end-epk": "80"}, ok: true, end: "80"},
		{name: "key type and an end", headers: map[string]string{"x-ms-read-key-type": "EffectivePartitionKeyRange", "x-ms-end-epk": "FF"}, ok: true, end: "FF"},
		{name: "other key type", headers: map[string]string{"x-ms-read-key-type": "ResourceId"}, wantErr: true},
		{name: "non-hex bound", headers: map[string]string{"x-ms-start-epk": "zz", "x-ms-end-epk": "FF"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/dbs/d/colls/c/docs", nil)
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			ok, start, end, err := epkRangeHeaders(r)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if err == nil && (ok != tt.ok || start != tt.start || end != tt.end) {
				t.Errorf("got %v %q %q, want %v %q %q", ok, start, end, tt.ok, tt.start, tt.end)
			}
		})
	}
}
