package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimiter enforces Config.MaxConns on the gateway's listener so that
// connections nobody uses cannot lock new clients out: a CI job that
// leaks clients leaves idle keep-alive connections (and half-open ones
// that never sent a request) behind, which would otherwise count against
// the limit until they time out.
//
//   - A new connection beyond the limit makes the limiter close the
//     connection that has been waiting longest for a request (idle
//     between requests, or new and silent), so it is served at once.
//   - When every connection is busy with a request, the new one is
//     still accepted, and each of its requests is answered 503 with a
//     message naming the limit and the connection closed (a client that
//     waited in the listen queue instead would hang without a word).
//   - Past twice the limit, connections wait in the listen queue
//     (hardCap): file descriptors stay bounded under a flood.
//
// ConnContext admits a connection (it runs on the accepting goroutine
// before the server's first state change); ConnState keeps the states.
type connLimiter struct {
	max   int
	mu    sync.Mutex
	conns map[net.Conn]*trackedConn
	now   func() time.Time
}

// trackedConn is one open connection: whether it is serving a request,
// since when it has been in its state, and whether it was admitted over
// the limit.
type trackedConn struct {
	busy  bool
	since time.Time
	over  bool
}

func newConnLimiter(max int) *connLimiter {
	return &connLimiter{max: max, conns: map[net.Conn]*trackedConn{}, now: time.Now}
}

// hardCap is the listener's own limit under the limiter.
func (l *connLimiter) hardCap() int { return 2 * l.max }

type overLimitKey struct{}

// connContext is http.Server.ConnContext: it admits c, closing the
// longest-waiting idle connection when the limit is reached, and marks c
// over the limit when none is idle.
func (l *connLimiter) connContext(ctx context.Context, c net.Conn) context.Context {
	l.mu.Lock()
	var victim net.Conn
	if len(l.conns) >= l.max {
		var oldest time.Time
		for vc, t := range l.conns {
			if !t.busy && (victim == nil || t.since.Before(oldest)) {
				victim, oldest = vc, t.since
			}
		}
		if victim != nil {
			delete(l.conns, victim)
		}
	}
	t := &trackedConn{since: l.now(), over: victim == nil && len(l.conns) >= l.max}
	l.conns[c] = t
	l.mu.Unlock()
	if victim != nil {
		// (a TLS close may wait on its close_notify write: not on the
		// accepting goroutine)
		go victim.Close()
	}
	if t.over {
		return context.WithValue(ctx, overLimitKey{}, true)
	}
	return ctx
}

// connState is http.Server.ConnState.
func (l *connLimiter) connState(c net.Conn, st http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch st {
	case http.StateActive, http.StateIdle:
		if t, ok := l.conns[c]; ok {
			t.busy, t.since = st == http.StateActive, l.now()
		}
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, c)
	}
}

// refuseOverLimit answers every request of a connection admitted over the
// limit with a Cosmos-shaped 503 and closes the connection.
func (l *connLimiter) refuseOverLimit(next http.Handler) http.Handler {
	msg := fmt.Sprintf(`{"code":"ServiceUnavailable","message":"The emulator serves at most %d client connections at once (--max-connections) and every one of them is busy with a request; retry on a new connection, or raise --max-connections."}`, l.max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if over, _ := r.Context().Value(overLimitKey{}).(bool); over {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(msg))
			return
		}
		next.ServeHTTP(w, r)
	})
}
