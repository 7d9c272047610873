package wire

import (
	"net/http/httptest"
	"testing"
)

// TestEPKRangeHeaders: which requests carry an effective partition key
// sub-range. The Python SDK's feed-range queries send
// x-ms-read-key-type: EffectivePartitionKeyRange with only a range id
// (no x-ms-start-epk/x-ms-end-epk) when the feed range covers that whole
// range; its test_session.py feed-range tests
// (test_feed_range_query_session_token_matches_partition_lsn, ...) pass
// against the service, which serves the whole range then.
func TestEPKRangeHeaders(t *testing.T) {
	tests := []struct {
		name        string
		header      map[string]string
		ok, wantErr bool
		start, end  string
	}{
		{"none", nil, false, false, "", ""},
		{"key type alone", map[string]string{"x-ms-read-key-type": "EffectivePartitionKeyRange"}, false, false, "", ""},
		{"key type alone, other case", map[string]string{"x-ms-read-key-type": "effectivepartitionkeyrange"}, false, false, "", ""},
		{"key type and both bounds", map[string]string{"x-ms-read-key-type": "EffectivePartitionKeyRange", "x-ms-start-epk": "10", "x-ms-end-epk": "20"}, true, false, "10", "20"},
		{"key type and empty bounds sent", map[string]string{"x-ms-read-key-type": "EffectivePartitionKeyRange", "x-ms-start-epk": "", "x-ms-end-epk": "FF"}, true, false, "", "FF"},
		{"bounds without key type", map[string]string{"x-ms-start-epk": "10", "x-ms-end-epk": "20"}, true, false, "10", "20"},
		{"another key type alone", map[string]string{"x-ms-read-key-type": "ResourceId"}, false, true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/dbs/d/colls/c/docs", nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			ok, start, end, err := epkRangeHeaders(r)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if ok != tt.ok || (ok && (start != tt.start || end != tt.end)) {
				t.Fatalf("epkRangeHeaders = %v %q %q, want %v %q %q", ok, start, end, tt.ok, tt.start, tt.end)
			}
		})
	}
}
