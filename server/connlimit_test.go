package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestConnLimiter drives the limiter's admission with in-memory
// connections (net.Pipe): at the limit the connection that has waited
// longest for a request is closed, a busy one never is, and with every
// connection busy the newcomer is admitted over the limit and its
// requests refused with a Cosmos-shaped 503 that closes it.
func TestConnLimiter(t *testing.T) {
	clock := time.Unix(0, 0)
	l := newConnLimiter(2)
	l.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	pipe := func() (server, client net.Conn) {
		s, c := net.Pipe()
		t.Cleanup(func() { s.Close(); c.Close() })
		return s, c
	}
	over := func(ctx context.Context) bool { v, _ := ctx.Value(overLimitKey{}).(bool); return v }
	closed := func(c net.Conn) bool {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := c.Read(make([]byte, 1))
		return err == io.EOF || err == io.ErrClosedPipe
	}

	a, aPeer := pipe()
	b, _ := pipe()
	if over(l.connContext(context.Background(), a)) || over(l.connContext(context.Background(), b)) {
		t.Fatal("connections within the limit admitted over it")
	}
	l.connState(a, http.StateIdle) // a: idle after a request (now newer than b's admission)
	l.connState(b, http.StateActive)
	c, _ := pipe()
	if over(l.connContext(context.Background(), c)) {
		t.Fatal("admitted over the limit while a connection was idle")
	}
	if !closed(aPeer) {
		t.Fatal("the idle connection was not closed to make room")
	}
	// b and c busy: d is admitted over the limit
	l.connState(c, http.StateActive)
	d, _ := pipe()
	ctx := l.connContext(context.Background(), d)
	if !over(ctx) {
		t.Fatal("every connection busy: the newcomer was not marked over the limit")
	}
	rec := httptest.NewRecorder()
	l.refuseOverLimit(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Connection") != "close" ||
		!strings.Contains(rec.Body.String(), `"code":"ServiceUnavailable"`) || !strings.Contains(rec.Body.String(), "at most 2 client connections") {
		t.Fatalf("over the limit: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	// a closed connection frees its place
	l.connState(b, http.StateClosed)
	l.connState(d, http.StateClosed)
	e, _ := pipe()
	if over(l.connContext(context.Background(), e)) {
		t.Fatal("a freed place was not reused")
	}
}
