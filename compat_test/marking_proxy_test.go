package compat_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// markingProxy is a reverse proxy to one emulator (keeping the Host the
// client dialled, so the emulator advertises the proxy and the SDK keeps
// talking through it) that records what its record function extracts from
// each answered request. GET /_mark/<name> is answered by the proxy itself
// and names the scenario of the requests that follow (the JS scripts'
// mark()): record gets that name.
type markingProxy[T any] struct {
	mu   sync.Mutex
	mark string
	seen []T
}

// all returns what was recorded so far, in order.
func (p *markingProxy[T]) all() []T {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]T(nil), p.seen...)
}

// startMarkingProxy starts a markingProxy to target and returns it with
// its endpoint. record is called with every answer and the current mark,
// and keeps what it returns when ok; the body of a POST under 2,000 bytes
// is on its request as the header X-Recorded-Body (which the emulator
// ignores).
func startMarkingProxy[T any](t *testing.T, target string, record func(res *http.Response, mark string) (x T, ok bool)) (*markingProxy[T], string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &markingProxy[T]{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(res *http.Response) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		if x, ok := record(res, p.mark); ok {
			p.seen = append(p.seen, x)
		}
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name, ok := strings.CutPrefix(r.URL.Path, "/_mark/"); ok {
			p.mu.Lock()
			p.mark = name
			p.mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method == http.MethodPost && r.Body != nil {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			if len(b) < 2000 {
				r.Header.Set("X-Recorded-Body", string(b))
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv.URL + "/"
}
