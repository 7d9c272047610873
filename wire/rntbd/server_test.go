package rntbd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServer serves h on a loopback TCP listener (TLS is the caller's
// business) and returns its address and log.
func startServer(t *testing.T, h Handler) (string, *syncBuffer) {
	t.Helper()
	return startServerWith(t, h, Options{Limits: Limits{MaxHeader: 4096, MaxPayload: 4096}})
}

func startServerWith(t *testing.T, h Handler, opts Options) (string, *syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := NewServer(h, opts)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String(), logs
}

// dialContext connects and negotiates the context as user agent "test".
func dialContext(t *testing.T, addr string) net.Conn {
	t.Helper()
	return dialContextAs(t, addr, "test")
}

// dialContextAs connects and negotiates the context as userAgent.
func dialContextAs(t *testing.T, addr, userAgent string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	frame, _ := EncodeRequest(nil, &Request{ActivityID: exampleActivity, Tokens: Tokens{ULongToken(CtxProtocolVersion, 1), SmallStringToken(CtxClientVersion, "2020-07-15"), SmallStringToken(CtxUserAgent, userAgent)}})
	if _, err := c.Write(frame); err != nil {
		t.Fatal(err)
	}
	res, err := ReadResponse(c, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 200 || res.ActivityID != exampleActivity {
		t.Fatalf("context response %+v", res)
	}
	if a, _ := res.Tokens.Get(CtxRespServerAgent); a.String() == "" {
		t.Fatalf("no server agent in %+v", res.Tokens)
	}
	return c
}

func send(t *testing.T, c net.Conn, id uint32, payload []byte) {
	t.Helper()
	frame, err := EncodeRequest(nil, &Request{ResourceType: ResourceDocument, OperationType: OpRead, Tokens: Tokens{ULongToken(ReqTransportRequestID, id)}, Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(frame); err != nil {
		t.Fatal(err)
	}
}

func transportID(t *testing.T, res *Response) uint32 {
	t.Helper()
	tok, ok := res.Tokens.Get(RespTransportRequestID)
	if !ok || tok.Type != TypeULong {
		t.Fatalf("response without a ULong transport request id: %+v", res.Tokens)
	}
	return uint32(tok.Num)
}

// TestPipelinedAnsweredOutOfOrder: request 1 is held until request 2's
// answer has arrived on the same connection; each answer carries its
// request's transport id.
func TestPipelinedAnsweredOutOfOrder(t *testing.T) {
	release := make(chan struct{})
	addr, _ := startServer(t, HandlerFunc(func(ctx context.Context, req *Request) *Response {
		tok, _ := req.Tokens.Get(ReqTransportRequestID)
		if tok.Num == 1 {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return &Response{Status: 200, Payload: req.Payload}
	}))
	c := dialContext(t, addr)
	send(t, c, 1, []byte(`"one"`))
	send(t, c, 2, []byte(`"two"`))
	first, err := ReadResponse(c, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if id := transportID(t, first); id != 2 || string(first.Payload) != `"two"` {
		t.Fatalf("first answer: id %d payload %s, want request 2's", id, first.Payload)
	}
	close(release)
	second, err := ReadResponse(c, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if id := transportID(t, second); id != 1 || string(second.Payload) != `"one"` {
		t.Fatalf("second answer: id %d payload %s, want request 1's", id, second.Payload)
	}
}

// TestBadFramesCloseTheConnection: a first frame that is no context
// request, and malformed, truncated or oversized frames, close that
// connection with a log line; the server goes on serving others.
func TestBadFramesCloseTheConnection(t *testing.T) {
	addr, logs := startServer(t, HandlerFunc(func(ctx context.Context, req *Request) *Response {
		return &Response{Status: 200}
	}))
	oversized, _ := EncodeRequest(nil, &Request{ResourceType: 3, OperationType: 3, Tokens: Tokens{StringToken(ReqDatabaseName, strings.Repeat("x", 5000))}})
	bigPayload, _ := EncodeRequest(nil, &Request{ResourceType: 3, OperationType: 1, Payload: bytes.Repeat([]byte("x"), 5000)})
	for _, tt := range []struct {
		name      string
		negotiate bool
		frame     []byte
		log       string
	}{
		{"no context first", false, func() []byte { f, _ := EncodeRequest(nil, &Request{ResourceType: 3, OperationType: 3}); return f }(), "not a context request"},
		{"length below header", true, []byte{5, 0, 0, 0, 1}, "bad frame"},
		{"unknown token type", true, unhex(t, "1c000000 0300 0300"+strings.Repeat("00", 16)+"15001000"), "bad frame"},
		{"oversized header", true, oversized, "bad frame"},
		{"oversized payload", true, bigPayload, "bad frame"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c net.Conn
			if tt.negotiate {
				c = dialContext(t, addr)
			} else {
				var err error
				if c, err = net.Dial("tcp", addr); err != nil {
					t.Fatal(err)
				}
				defer c.Close()
			}
			if _, err := c.Write(tt.frame); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadAll(c); err != nil && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
				t.Fatalf("reading until the server closes: %v", err)
			}
			// the server still serves
			c2 := dialContext(t, addr)
			send(t, c2, 5, nil)
			res, err := ReadResponse(c2, Limits{})
			if err != nil || transportID(t, res) != 5 {
				t.Fatalf("after the bad frame: %v %+v", err, res)
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Fatalf("log lacks %q:\n%s", tt.log, logs.String())
			}
		})
	}
}

// TestHandlerPanicAnswers500: a handler that panics is answered 500 with
// the transport id, and the connection goes on.
func TestHandlerPanicAnswers500(t *testing.T) {
	addr, _ := startServer(t, HandlerFunc(func(ctx context.Context, req *Request) *Response {
		if req.Payload != nil {
			panic("boom")
		}
		return &Response{Status: 204}
	}))
	c := dialContext(t, addr)
	send(t, c, 7, []byte("{}"))
	res, err := ReadResponse(c, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 500 || transportID(t, res) != 7 || !bytes.Contains(res.Payload, []byte(`"code"`)) {
		t.Fatalf("answer to a panic: %d %s", res.Status, res.Payload)
	}
	send(t, c, 8, nil)
	if res, err = ReadResponse(c, Limits{}); err != nil || res.Status != 204 || transportID(t, res) != 8 {
		t.Fatalf("next answer: %v %+v", err, res)
	}
}

// TestIdleConnectionClosed: a connection on which no frame arrives for the
// idle timeout is closed by the server (the client reconnects and
// negotiates again, as the SDK does), and the close is logged.
func TestIdleConnectionClosed(t *testing.T) {
	addr, logs := startServerWith(t, HandlerFunc(func(ctx context.Context, req *Request) *Response { return &Response{Status: 200} }),
		Options{IdleTimeout: 20 * time.Millisecond})
	c := dialContext(t, addr)
	send(t, c, 1, nil)
	if res, err := ReadResponse(c, Limits{}); err != nil || transportID(t, res) != 1 {
		t.Fatalf("answer: %v %+v", err, res)
	}
	// nothing more is sent: the server closes the connection
	if _, err := ReadResponse(c, Limits{}); !errors.Is(err, io.EOF) && !strings.Contains(fmt.Sprint(err), "reset") {
		t.Fatalf("reading an idle connection: %v, want the server's close", err)
	}
	if !strings.Contains(logs.String(), "connection closed") {
		t.Fatalf("no log line for the idle close:\n%s", logs.String())
	}
}

// TestMaxConnsRefusesOverLimit: past MaxConns, a new connection is closed
// at once with a log line; the ones within the limit are served.
func TestMaxConnsRefusesOverLimit(t *testing.T) {
	addr, logs := startServerWith(t, HandlerFunc(func(ctx context.Context, req *Request) *Response { return &Response{Status: 200} }),
		Options{MaxConns: 1})
	c := dialContext(t, addr)
	over, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	if _, err := io.ReadAll(over); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("the connection over the limit: %v", err)
	}
	if !strings.Contains(logs.String(), "too many connections") {
		t.Fatalf("no log line:\n%s", logs.String())
	}
	send(t, c, 3, nil)
	if res, err := ReadResponse(c, Limits{}); err != nil || transportID(t, res) != 3 {
		t.Fatalf("the connection within the limit: %v %+v", err, res)
	}
}

// TestHandlerClosesConnection: a handler answering CloseConnection drops
// the connection without an answer; the server goes on serving others.
func TestHandlerClosesConnection(t *testing.T) {
	addr, _ := startServer(t, HandlerFunc(func(ctx context.Context, req *Request) *Response {
		if req.Payload != nil {
			return CloseConnection
		}
		return &Response{Status: 200}
	}))
	c := dialContext(t, addr)
	send(t, c, 1, []byte("{}"))
	if _, err := ReadResponse(c, Limits{}); !errors.Is(err, io.EOF) && !strings.Contains(fmt.Sprint(err), "reset") {
		t.Fatalf("reading after CloseConnection: %v, want the connection closed", err)
	}
	c2 := dialContext(t, addr)
	send(t, c2, 2, nil)
	if res, err := ReadResponse(c2, Limits{}); err != nil || transportID(t, res) != 2 {
		t.Fatalf("another connection: %v %+v", err, res)
	}
}
