package rntbd

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"
)

// Handler answers one request. It must not keep req after it returns. The
// server sets the response's activity id and transport request id; the
// handler sets everything else. ctx ends when the connection closes.
type Handler interface {
	ServeRNTBD(ctx context.Context, req *Request) *Response
}

// CloseConnection is the response a Handler returns to close the
// request's connection without answering (the client sees the connection
// drop, as from a crashed server: a fault to inject).
var CloseConnection = &Response{Status: -1}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) *Response

// ServeRNTBD calls f.
func (f HandlerFunc) ServeRNTBD(ctx context.Context, req *Request) *Response { return f(ctx, req) }

// Options configure a Server.
type Options struct {
	// Limits bound every frame (default: Limits' defaults).
	Limits Limits
	// Context is what the context response tells the client (default
	// DefaultContext).
	Context ContextInfo
	// MaxInFlight is the most requests of one connection handled at once
	// (default 64; the Java SDK pipelines up to 30 per connection): past
	// it the connection's next frame is not read until one is answered.
	MaxInFlight int
	// MaxConns is the most connections served at once (default 1000;
	// negative: no limit); a connection past it is closed at once.
	MaxConns int
	// IdleTimeout closes a connection on which no frame arrives for that
	// long (default: Context.IdleTimeoutSeconds).
	IdleTimeout time.Duration
	// WriteTimeout bounds the writing of one response (default 1 min).
	WriteTimeout time.Duration
	// Logger receives one line per connection closed for a bad frame or
	// a failed write (default: discard).
	Logger *slog.Logger
	// NoWakeUps turns off the wake-up frames sent to idle Java SDK
	// connections after an answer (see waker.go); they are on by default.
	NoWakeUps bool
}

// DefaultContext is the context response's default content: the
// service's agent and version strings, a two-minute idle timeout and 25 s
// to send the context request.
var DefaultContext = ContextInfo{ServerAgent: "DocumentDB Server", ServerVersion: "2.14.0.0",
	IdleTimeoutSeconds: 120, UnauthenticatedTimeoutSeconds: 25}

func (o Options) withDefaults() Options {
	o.Limits = o.Limits.withDefaults()
	if o.Context.ServerAgent == "" {
		o.Context = DefaultContext
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	if o.MaxConns == 0 {
		o.MaxConns = 1000
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = time.Duration(o.Context.IdleTimeoutSeconds) * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Server serves RNTBD connections: the context negotiation, then request
// frames, each handled in its own goroutine (up to MaxInFlight per
// connection) and answered as soon as it is done, so answers may come out
// of order; the client matches them by transport request id, which the
// server echoes. Writes on a connection are serialized.
type Server struct {
	h    Handler
	opts Options

	wake *waker

	mu     sync.Mutex
	lns    map[net.Listener]struct{}
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewServer returns a server of h.
func NewServer(h Handler, opts Options) *Server {
	return &Server{h: h, opts: opts.withDefaults(), wake: newWaker(), lns: map[net.Listener]struct{}{}, conns: map[net.Conn]struct{}{}}
}

// ErrServerClosed is what Serve returns after Close.
var ErrServerClosed = errors.New("rntbd: server closed")

// Serve accepts connections on ln (a TLS listener for clients) until Close
// or an accept error, and serves each in its own goroutine.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	for {
		c, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		s.mu.Lock()
		if s.closed || (s.opts.MaxConns > 0 && len(s.conns) >= s.opts.MaxConns) {
			over := !s.closed
			s.mu.Unlock()
			if over {
				s.opts.Logger.Warn("rntbd: connection refused: too many connections", "remote", c.RemoteAddr().String(), "limit", s.opts.MaxConns)
			}
			c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.ServeConn(context.Background(), c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Close stops the listeners, closes every connection (their requests'
// contexts end) and waits for their goroutines.
func (s *Server) Close() error {
	s.wake.stop()
	s.mu.Lock()
	s.closed = true
	for ln := range s.lns {
		ln.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// ServeConn serves one connection until the client closes it, it stays
// idle past IdleTimeout, a frame is malformed or too large (logged), a
// write fails, or ctx ends; then it closes c, cancels the requests still
// running and waits for them.
func (s *Server) ServeConn(ctx context.Context, c net.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var wc *wakeConn // the waker's state of a connection that gets wake-ups
	defer func() {
		cancel()
		c.Close()
		wg.Wait()
		if wc != nil { // after wg.Wait: no request left to arm it again
			s.wake.disarm(wc)
		}
	}()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	log := s.opts.Logger.With("remote", c.RemoteAddr().String())
	w := &connWriter{c: c, timeout: s.opts.WriteTimeout}

	// The context request comes first, within the unauthenticated timeout.
	_ = c.SetReadDeadline(time.Now().Add(time.Duration(s.opts.Context.UnauthenticatedTimeoutSeconds) * time.Second))
	req, err := ReadRequest(c, s.opts.Limits)
	if err != nil {
		s.logClose(log, "reading the context request", err)
		return
	}
	if !req.IsContext() {
		log.Warn("rntbd: connection closed: the first frame is not a context request", "resourceType", req.ResourceType, "operationType", req.OperationType)
		return
	}
	if !s.opts.NoWakeUps && wakesUp(req) {
		wc = &wakeConn{w: w}
	}
	frame, err := EncodeContextResponse(nil, req.ActivityID, s.opts.Context)
	if err != nil {
		log.Error("rntbd: connection closed: the context response cannot be encoded", "err", err)
		return
	}
	if err := w.write(frame); err != nil {
		s.logClose(log, "writing the context response", err)
		return
	}

	sem := make(chan struct{}, s.opts.MaxInFlight)
	for {
		_ = c.SetReadDeadline(time.Now().Add(s.opts.IdleTimeout))
		req, err := ReadRequest(c, s.opts.Limits)
		if err != nil {
			s.logClose(log, "reading a request", err)
			return
		}
		if wc != nil {
			wc.requests.Add(1)
		}
		if req.IsContext() {
			log.Warn("rntbd: connection closed: a second context request")
			return
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			frame := s.answer(ctx, log, req)
			if frame == nil {
				log.Debug("rntbd: connection closed by the handler (an injected fault)")
				cancel()
				return
			}
			if err := w.write(frame); err != nil {
				s.logClose(log, "writing a response", err)
				cancel()
				return
			}
			// This request still holds its slot: one taken is this
			// one alone, nothing else in flight to wake the client.
			if wc != nil && len(sem) == 1 && ctx.Err() == nil {
				s.wake.arm(wc)
			}
		}()
	}
}

// answer runs the handler for req and encodes its response, echoing the
// activity id and transport request id; a handler that panics or returns
// a response that cannot be encoded is answered 500. It returns nil when
// the handler returned CloseConnection.
func (s *Server) answer(ctx context.Context, log *slog.Logger, req *Request) (frame []byte) {
	var res *Response
	func() {
		defer func() {
			if v := recover(); v != nil {
				log.Error("rntbd: request failed", "panic", v, "resourceType", req.ResourceType, "operationType", req.OperationType)
				res = nil
			}
		}()
		res = s.h.ServeRNTBD(ctx, req)
	}()
	if res == CloseConnection {
		return nil
	}
	frame, err := s.encode(req, res)
	if err != nil {
		log.Error("rntbd: response cannot be encoded", "err", err)
		frame, _ = s.encode(req, nil)
	}
	return frame
}

// encode frames res (nil: a 500) as the answer to req.
func (s *Server) encode(req *Request, res *Response) ([]byte, error) {
	if res == nil {
		res = &Response{Status: 500, Payload: []byte(`{"code":"InternalServerError","message":"The emulator failed to process the request."}`)}
	}
	out := *res
	out.ActivityID = req.ActivityID
	if t, ok := req.Tokens.Get(ReqTransportRequestID); ok {
		out.Tokens = append(append(Tokens{}, res.Tokens...), ULongToken(RespTransportRequestID, uint32(t.Num)))
	}
	return EncodeResponse(make([]byte, 0, 256+len(res.Payload)), &out)
}

// logClose logs why a connection closes; a client that leaves between
// frames (EOF, a reset, the idle timeout) is not worth more than a debug
// line.
func (s *Server) logClose(log *slog.Logger, when string, err error) {
	if errors.Is(err, ErrMalformed) || errors.Is(err, ErrTooLarge) {
		log.Warn("rntbd: connection closed: bad frame", "when", when, "err", err)
		return
	}
	log.Debug("rntbd: connection closed", "when", when, "err", err)
}

// connWriter serializes writes of whole frames.
type connWriter struct {
	mu      sync.Mutex
	c       net.Conn
	timeout time.Duration
}

// tryWrite writes frame unless another write is in progress (itself
// bytes for the client) or the socket takes longer than a millisecond;
// for the waker, which must never wait on one client.
func (w *connWriter) tryWrite(frame []byte) {
	if !w.mu.TryLock() {
		return
	}
	defer w.mu.Unlock()
	_ = w.c.SetWriteDeadline(time.Now().Add(time.Millisecond))
	_, _ = w.c.Write(frame)
}

func (w *connWriter) write(frame []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.c.SetWriteDeadline(time.Now().Add(w.timeout))
	_, err := w.c.Write(frame)
	return err
}
