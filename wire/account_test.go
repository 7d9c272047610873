package wire

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestAccountDocument: GET / names the account "cosmosdev" (an id the JS
// SDK trusts for its locations; "localhost" made it re-read the account
// before every request), advertises the endpoint the client dialled and
// carries the configured default consistency.
func TestAccountDocument(t *testing.T) {
	tests := []struct {
		name, consistency, host, want string
	}{
		{"default", "", "127.0.0.1:8081", "Session"},
		{"strong", "Strong", "localhost:9000", "Strong"},
		{"any case", "eventual", "example.test:1", "Eventual"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHandler(Config{Service: emulator.New(nil, nil), Consistency: tt.consistency})
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(http.MethodGet, "http://"+tt.host+"/", nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				t.Fatalf("GET / = %d %s", w.Code, w.Body)
			}
			var acct struct {
				ID       string                                           `json:"id"`
				Writable []struct{ Name, DatabaseAccountEndpoint string } `json:"writableLocations"`
				Readable []struct{ Name, DatabaseAccountEndpoint string } `json:"readableLocations"`
				UserCons struct{ DefaultConsistencyLevel string }         `json:"userConsistencyPolicy"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &acct); err != nil {
				t.Fatalf("account body: %v: %s", err, w.Body)
			}
			if acct.ID != "cosmosdev" {
				t.Errorf("id = %q, want cosmosdev", acct.ID)
			}
			ep := "http://" + tt.host + "/"
			if len(acct.Writable) != 1 || acct.Writable[0].DatabaseAccountEndpoint != ep || len(acct.Readable) != 1 || acct.Readable[0].DatabaseAccountEndpoint != ep {
				t.Errorf("locations = %+v / %+v, want one each at %s", acct.Writable, acct.Readable, ep)
			}
			if acct.UserCons.DefaultConsistencyLevel != tt.want {
				t.Errorf("defaultConsistencyLevel = %q, want %q", acct.UserCons.DefaultConsistencyLevel, tt.want)
			}
		})
	}
	if _, err := NewHandler(Config{Service: emulator.New(nil, nil), Consistency: "Linearizable"}); err == nil {
		t.Fatal("NewHandler accepted an unknown consistency level")
	}
}
