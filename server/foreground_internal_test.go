package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/ttl"
)

// TestForegroundCountsClientRequests: a client request is in flight while
// it is served, and recent once it ends; the control endpoints under
// /_emulator/ (a sweep itself, health, metrics) are not foreground load.
func TestForegroundCountsClientRequests(t *testing.T) {
	tests := []struct {
		path         string
		wantInFlight int
	}{
		{"/dbs/db/colls/c/docs/item", 1},
		{"/", 1},
		{"/_emulator/ttl/sweep", 0},
		{"/_emulator/health", 0},
		{"/_emulator/metrics", 0},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			f := newForeground()
			f.start = f.start.Add(-time.Hour) // started an hour ago, no request since
			var during ttl.Activity
			h := f.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { during = f.Activity() }))
			before := f.Activity()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, tt.path, nil))
			after := f.Activity()
			if during.InFlight != tt.wantInFlight {
				t.Fatalf("in flight while served: %d, want %d", during.InFlight, tt.wantInFlight)
			}
			if after.InFlight != 0 {
				t.Fatalf("in flight after: %d", after.InFlight)
			}
			// a counted request restarts the idle time; a control one not
			if counted := tt.wantInFlight == 1; counted != (after.Idle < time.Hour) || before.Idle < time.Hour {
				t.Fatalf("idle before %v, after %v: counted=%v", before.Idle, after.Idle, counted)
			}
		})
	}
}
