package wire

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestQueriesSplitRanges: only @azure/cosmos (its User-Agent, or
// x-ms-useragent as a browser sends it) has its queries on split ranges
// answered; the other SDKs get the service's 410/1002.
func TestQueriesSplitRanges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header, value string
		want          bool
	}{
		{"User-Agent", "Node.js/22.12.0 (linux; x64) azure-cosmos-js/4.10.1", true},
		{"X-Ms-Useragent", "Mozilla/5.0 azure-cosmos-js/4.10.1", true},
		{"User-Agent", "azsdk-go-azcosmos/v1.5.0 (go1.24; linux)", false},
		{"User-Agent", "azsdk-python-cosmos/4.17.1 Python/3.11.2 (Linux)", false},
		{"User-Agent", "cosmos-netstandard-sdk/3.52.0", false},
		{"", "", false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/dbs/d/colls/c/docs", nil)
		if tc.header != "" {
			r.Header.Set(tc.header, tc.value)
		}
		if got := queriesSplitRanges(r); got != tc.want {
			t.Errorf("%s: %q: %v, want %v", tc.header, tc.value, got, tc.want)
		}
	}
}
