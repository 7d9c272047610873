package server

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
)

// hostGuard refuses requests whose Host header names a host the emulator
// is not known by, as development servers do against DNS rebinding: a web
// page open in the user's browser can make its own domain resolve to
// 127.0.0.1 and then call the emulator (with the well-known key, even
// reset it) as a same-origin request to that domain. Such a request
// carries the attacker's domain in Host. Accepted: an IP address (no DNS
// is involved), a name without a dot (a container or compose service
// name, which no public DNS resolves), names under localhost, internal and
// local (host.docker.internal, host.testcontainers.internal, mDNS), and
// the names in allowed (--allowed-host, --tls-host); "*" in allowed
// accepts any host. A request without Host (HTTP/1.0) is accepted.
type hostGuard struct {
	any     bool
	allowed map[string]bool
	// last is the last Host header accepted: a client sends the same one
	// with every request, so the check is one comparison on the hot path.
	last atomic.Pointer[string]
}

// msgHostNotAllowed is the 403's message; %s is the refused host.
const msgHostNotAllowed = "The Host header names %q, which this emulator is not known by (a defence against DNS rebinding). Use localhost, an IP address, a name without a dot, or start the emulator with --allowed-host %s."

func newHostGuard(allowed []string) *hostGuard {
	g := &hostGuard{allowed: map[string]bool{}}
	for _, h := range allowed {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "*" {
			g.any = true
		}
		if h != "" {
			g.allowed[strings.TrimSuffix(h, ".")] = true
		}
	}
	return g
}

// hostName is the host of a Host header value: without the port and the
// IPv6 brackets, lower-case, without a trailing dot.
func hostName(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

// accepts reports whether a request with Host header hostport may be served.
func (g *hostGuard) accepts(hostport string) bool {
	if g.any || hostport == "" {
		return true
	}
	if last := g.last.Load(); last != nil && *last == hostport {
		return true
	}
	host := hostName(hostport)
	ok := net.ParseIP(host) != nil || !strings.Contains(host, ".") || g.allowed[host] ||
		strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".local")
	if ok {
		g.last.Store(&hostport)
	}
	return ok
}

// wrap refuses, with a Cosmos-shaped 403, the requests whose Host it does
// not accept.
func (g *hostGuard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.accepts(r.Host) {
			host := hostName(r.Host)
			body, _ := json.Marshal(map[string]string{"code": "Forbidden", "message": fmt.Sprintf(msgHostNotAllowed, host, host)})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write(body)
			return
		}
		next.ServeHTTP(w, r)
	})
}
