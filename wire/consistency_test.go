package wire

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestConsistencyLevelOverride: a request on the account's resources whose
// x-ms-consistency-level is stronger than the account's default is a 400
// with the service's message; a weaker or equal level, an unknown value, a
// request without the header and the account read pass.
func TestConsistencyLevelOverride(t *testing.T) {
	tests := []struct {
		account, method, path, level string
		refused                      bool
	}{
		{account: "Session", method: "POST", path: "/dbs", level: "Strong", refused: true},
		{account: "Session", method: "GET", path: "/dbs/d/colls/c/docs/a", level: "BoundedStaleness", refused: true},
		{account: "Session", method: "GET", path: "/offers", level: "strong", refused: true},
		{account: "Session", method: "GET", path: "/dbs/d/colls/c/docs/a", level: "Session"},
		{account: "Session", method: "GET", path: "/dbs/d/colls/c/docs/a", level: "Eventual"},
		{account: "Session", method: "GET", path: "/dbs/d/colls/c/docs/a", level: "ConsistentPrefix"},
		{account: "Session", method: "GET", path: "/dbs/d/colls/c/docs/a", level: ""},
		{account: "Session", method: "GET", path: "/dbs/d/colls/c/docs/a", level: "Whatever"},
		{account: "Session", method: "GET", path: "/", level: "Strong"},
		{account: "Session", method: "GET", path: "/_emulator/health", level: "Strong"},
		{account: "Strong", method: "POST", path: "/dbs", level: "Strong"},
		{account: "Eventual", method: "GET", path: "/dbs/d/colls/c/docs/a", level: "ConsistentPrefix", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.account+"/"+tt.method+" "+tt.path+"/"+tt.level, func(t *testing.T) {
			h := &handler{consistency: tt.account}
			r := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.level != "" {
				r.Header.Set("x-ms-consistency-level", tt.level)
			}
			err := h.checkConsistencyLevel(r)
			var e *emulator.Error
			if got := errors.As(err, &e) && e.Kind == emulator.KindBadRequest; got != tt.refused {
				t.Fatalf("refused %v (%v), want %v", got, err, tt.refused)
			}
			if tt.refused && e.Message != "ConsistencyLevel Strong specified in the request is invalid when service is configured with consistency level Session. Ensure the request consistency level is not stronger than the service consistency level." &&
				tt.level == "Strong" {
				t.Errorf("message %q", e.Message)
			}
		})
	}
}
