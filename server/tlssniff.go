package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// errPlainHTTP ends the TLS handshake of a connection that sent plain HTTP
// (answered by sniffConn); the HTTP server logs it at debug level.
var errPlainHTTP = errors.New("plain HTTP request on the HTTPS port (answered 400: use https)")

// maxPlainHTTPBody bounds the request body read (and discarded) before
// answering a plain-HTTP request on the HTTPS port: reading it lets the
// client receive the answer instead of a connection reset (closing a
// socket with unread data resets it). A larger body is cut off.
const maxPlainHTTPBody = 1 << 20

// sniffListener wraps the TCP listener under a TLS listener (tls.NewListener
// over it) so that a client speaking plain HTTP to the HTTPS port gets a
// Cosmos-shaped JSON 400 saying to use https (wire.PlainHTTPOnTLSResponse),
// which the SDKs report as such, instead of Go's text answer, which they
// fail to parse.
//
// Cost for TLS clients: one small allocation per connection and a
// comparison in its first Read; no extra read, no buffering (the first
// byte is looked at in the buffer the TLS layer reads into). The sniffing
// runs in the connection's own goroutine, under the HTTP server's handshake
// deadline, so a silent client holds no one else up.
type sniffListener struct{ net.Listener }

// Accept implements net.Listener.
func (l sniffListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &sniffConn{Conn: c}, nil
}

// sniffConn is one accepted connection; its first Read decides. Reads are
// serialised by the TLS layer, so sniffed needs no lock.
type sniffConn struct {
	net.Conn
	sniffed bool
}

// Read implements net.Conn. The first bytes of a TLS client are a
// handshake record (0x16); an HTTP request starts with an upper-case
// method name. Anything else is left to the TLS layer to refuse.
func (c *sniffConn) Read(p []byte) (int, error) {
	if c.sniffed {
		return c.Conn.Read(p)
	}
	n, err := c.Conn.Read(p)
	if n == 0 {
		return n, err
	}
	c.sniffed = true
	if p[0] < 'A' || p[0] > 'Z' {
		return n, err
	}
	c.answerPlainHTTP(bytes.Clone(p[:n]))
	return 0, errPlainHTTP
}

// answerPlainHTTP reads the request that begins with first (headers, and a
// body up to maxPlainHTTPBody) and writes the 400. Errors are ignored: the
// connection is closed next whatever happens.
func (c *sniffConn) answerPlainHTTP(first []byte) {
	host := ""
	br := bufio.NewReader(io.MultiReader(bytes.NewReader(first), c.Conn))
	if req, err := http.ReadRequest(br); err == nil {
		host = req.Host
		_, _ = io.Copy(io.Discard, io.LimitReader(req.Body, maxPlainHTTPBody))
		req.Body.Close()
	}
	_, _ = c.Conn.Write(wire.PlainHTTPOnTLSResponse(host))
}
