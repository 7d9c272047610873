package server

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/ttl"
	"github.com/cosmos-emulator/cosmos-emulator/wire/rntbd"
)

// foreground counts the client requests the emulator is serving, for the
// TTL sweeper's pacing (ttl.Foreground). Requests to the control endpoints
// under /_emulator/ (health, metrics, clock, stats, a sweep itself) are
// not foreground load. It costs two atomic additions, one store and a
// monotonic clock reading per request.
type foreground struct {
	start    time.Time
	inFlight atomic.Int64
	// lastDone is when the latest foreground request ended, in
	// nanoseconds since start (0: none yet).
	lastDone atomic.Int64
}

func newForeground() *foreground { return &foreground{start: time.Now()} }

// wrap counts the requests h serves, except the control endpoints'.
func (f *foreground) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/_emulator/") {
			h.ServeHTTP(w, r)
			return
		}
		f.inFlight.Add(1)
		defer func() {
			// lastDone first: who sees no request in flight sees its end
			f.lastDone.Store(int64(time.Since(f.start)))
			f.inFlight.Add(-1)
		}()
		h.ServeHTTP(w, r)
	})
}

// wrapDirect counts the direct-mode requests h serves, as wrap does the
// REST ones.
func (f *foreground) wrapDirect(h rntbd.Handler) rntbd.Handler {
	return rntbd.HandlerFunc(func(ctx context.Context, req *rntbd.Request) *rntbd.Response {
		f.inFlight.Add(1)
		defer func() {
			f.lastDone.Store(int64(time.Since(f.start)))
			f.inFlight.Add(-1)
		}()
		return h.ServeRNTBD(ctx, req)
	})
}

// Activity implements ttl.Foreground.
func (f *foreground) Activity() ttl.Activity {
	if n := f.inFlight.Load(); n > 0 {
		return ttl.Activity{InFlight: int(n)}
	}
	return ttl.Activity{Idle: time.Since(f.start) - time.Duration(f.lastDone.Load())}
}
