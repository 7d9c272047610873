package rntbd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// headerSize is the fixed part of a frame: length, status or resource and
// operation types, activity id.
const headerSize = 24

// Limits bound what a decoder accepts. A frame past a limit is refused
// with ErrTooLarge before its bytes are read.
type Limits struct {
	// MaxHeader is the most bytes a frame's header (length prefix, fixed
	// part and tokens) may have (default DefaultMaxHeader).
	MaxHeader int
	// MaxPayload is the most bytes a payload may have (default
	// DefaultMaxPayload).
	MaxPayload int
}

// Default limits: a header holds names, tokens and a session token of a
// few KB; a payload is one item (2 MB) with room for a batch's envelope.
const (
	DefaultMaxHeader  = 256 << 10
	DefaultMaxPayload = 4 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxHeader <= 0 {
		l.MaxHeader = DefaultMaxHeader
	}
	if l.MaxPayload <= 0 {
		l.MaxPayload = DefaultMaxPayload
	}
	return l
}

// ErrTooLarge is the cause when a frame's header or payload is larger than
// its Limits.
var ErrTooLarge = errors.New("rntbd: frame too large")

// Request is a decoded request frame.
type Request struct {
	ResourceType  uint16
	OperationType uint16
	// ActivityID is the 16 bytes of the activity id as sent (a .NET GUID
	// byte order); responses echo them untouched.
	ActivityID [16]byte
	Tokens     Tokens
	// Payload is the body, nil when PayloadPresent is absent or 0.
	Payload []byte
}

// IsContext reports whether the request is a context (connection)
// request: resource and operation type 0 (RntbdContextRequest.decode).
func (r *Request) IsContext() bool {
	return r.ResourceType == ResourceConnection && r.OperationType == OpConnection
}

// Response is a response frame.
type Response struct {
	Status     int32
	ActivityID [16]byte
	Tokens     Tokens
	// Payload is the body; PayloadPresent is derived from it (nil: none).
	Payload []byte
}

// readFrame reads one length-prefixed header, its tokens and its payload
// from r: the fixed part and the token bytes, then the payload, if
// hasPayload says the tokens announce one.
func readFrame(r io.Reader, lim Limits, hasPayload func(Tokens) bool) (fixed [20]byte, ts Tokens, payload []byte, err error) {
	lim = lim.withDefaults()
	var lb [4]byte
	if _, err = io.ReadFull(r, lb[:]); err != nil {
		return fixed, nil, nil, err // io.EOF: the client closed between frames
	}
	n := binary.LittleEndian.Uint32(lb[:])
	if n < headerSize {
		return fixed, nil, nil, fmt.Errorf("%w: length %d is below the %d-byte header", ErrMalformed, n, headerSize)
	}
	if uint64(n) > uint64(lim.MaxHeader) {
		return fixed, nil, nil, fmt.Errorf("%w: a %d-byte header (limit %d)", ErrTooLarge, n, lim.MaxHeader)
	}
	b := make([]byte, n-4)
	if _, err = io.ReadFull(r, b); err != nil {
		return fixed, nil, nil, fmt.Errorf("%w: the header is cut off: %v", ErrMalformed, err)
	}
	copy(fixed[:], b[:20])
	if ts, err = decodeTokens(b[20:]); err != nil {
		return fixed, nil, nil, err
	}
	if !hasPayload(ts) {
		return fixed, ts, nil, nil
	}
	if _, err = io.ReadFull(r, lb[:]); err != nil {
		return fixed, nil, nil, fmt.Errorf("%w: the payload length is cut off: %v", ErrMalformed, err)
	}
	pn := binary.LittleEndian.Uint32(lb[:])
	if uint64(pn) > uint64(lim.MaxPayload) {
		return fixed, nil, nil, fmt.Errorf("%w: a %d-byte payload (limit %d)", ErrTooLarge, pn, lim.MaxPayload)
	}
	payload = make([]byte, pn)
	if _, err = io.ReadFull(r, payload); err != nil {
		return fixed, nil, nil, fmt.Errorf("%w: the payload is cut off: %v", ErrMalformed, err)
	}
	return fixed, ts, payload, nil
}

func present(id uint16) func(Tokens) bool {
	return func(ts Tokens) bool {
		t, ok := ts.Get(id)
		return ok && t.Num != 0
	}
}

// ReadRequest reads one request frame from r. At a clean end of stream
// (no byte of a next frame) it returns io.EOF; a frame that is cut off,
// malformed or over lim is an error wrapping ErrMalformed or ErrTooLarge.
func ReadRequest(r io.Reader, lim Limits) (*Request, error) {
	fixed, ts, payload, err := readFrame(r, lim, present(ReqPayloadPresent))
	if err != nil {
		return nil, err
	}
	req := &Request{ResourceType: binary.LittleEndian.Uint16(fixed[0:]), OperationType: binary.LittleEndian.Uint16(fixed[2:]),
		Tokens: ts, Payload: payload}
	copy(req.ActivityID[:], fixed[4:20])
	return req, nil
}

// ReadResponse reads one response frame from r (the client's side: tests
// and tools).
func ReadResponse(r io.Reader, lim Limits) (*Response, error) {
	fixed, ts, payload, err := readFrame(r, lim, present(RespPayloadPresent))
	if err != nil {
		return nil, err
	}
	res := &Response{Status: int32(binary.LittleEndian.Uint32(fixed[0:])), Tokens: ts, Payload: payload}
	copy(res.ActivityID[:], fixed[4:20])
	return res, nil
}

// appendFrame appends length | fixed | tokens [| payload length | payload].
func appendFrame(buf []byte, fixed []byte, ts Tokens, payload []byte, withPayload bool) ([]byte, error) {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0)
	buf = append(buf, fixed...)
	buf, err := appendTokens(buf, ts)
	if err != nil {
		return nil, err
	}
	binary.LittleEndian.PutUint32(buf[start:], uint32(len(buf)-start))
	if withPayload {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(payload)))
		buf = append(buf, payload...)
	}
	return buf, nil
}

// EncodeRequest appends the frame of req to buf, with a PayloadPresent
// token first (1 when req.Payload is not nil); req.Tokens must not hold
// one (the client's side: tests and tools).
func EncodeRequest(buf []byte, req *Request) ([]byte, error) {
	var fixed [20]byte
	binary.LittleEndian.PutUint16(fixed[0:], req.ResourceType)
	binary.LittleEndian.PutUint16(fixed[2:], req.OperationType)
	copy(fixed[4:], req.ActivityID[:])
	p := byte(0)
	if req.Payload != nil {
		p = 1
	}
	ts := append(Tokens{ByteToken(ReqPayloadPresent, p)}, req.Tokens...)
	return appendFrame(buf, fixed[:], ts, req.Payload, p == 1)
}

// EncodeResponse appends the frame of res to buf, with a PayloadPresent
// token first (1 when res.Payload is not nil). A token whose type is not
// its id's declared type (ResponseTokenTypes), an id without a declared
// type, or a PayloadPresent token in res.Tokens is an error: the Java SDK
// would misread the frame.
func EncodeResponse(buf []byte, res *Response) ([]byte, error) {
	for _, t := range res.Tokens {
		want, ok := ResponseTokenTypes[t.ID]
		if !ok || t.ID == RespPayloadPresent {
			return nil, fmt.Errorf("rntbd: response token 0x%04x is not one this package sends", t.ID)
		}
		if t.Type != want {
			return nil, fmt.Errorf("rntbd: response token 0x%04x has type 0x%02x, declared 0x%02x", t.ID, byte(t.Type), byte(want))
		}
	}
	var fixed [20]byte
	binary.LittleEndian.PutUint32(fixed[0:], uint32(res.Status))
	copy(fixed[4:], res.ActivityID[:])
	p := byte(0)
	if res.Payload != nil {
		p = 1
	}
	ts := append(Tokens{ByteToken(RespPayloadPresent, p)}, res.Tokens...)
	return appendFrame(buf, fixed[:], ts, res.Payload, p == 1)
}

// EncodeContextResponse appends the context response to a context request
// with activity id: status 200 and the server's agent, version and
// timeouts (RntbdContext.decode requires ServerAgent and ServerVersion).
func EncodeContextResponse(buf []byte, activityID [16]byte, ctx ContextInfo) ([]byte, error) {
	// No ProtocolVersion: it is optional (absent reads as 0) and
	// reported only in a failed negotiation's exception.
	ts := Tokens{
		SmallStringToken(CtxRespServerAgent, ctx.ServerAgent),
		SmallStringToken(CtxRespServerVersion, ctx.ServerVersion),
		ULongToken(CtxRespIdleTimeoutSeconds, ctx.IdleTimeoutSeconds),
		ULongToken(CtxRespUnauthenticatedTimeout, ctx.UnauthenticatedTimeoutSeconds),
	}
	for _, t := range ts {
		if contextResponseTokenTypes[t.ID] != t.Type {
			return nil, fmt.Errorf("rntbd: context token 0x%04x has the wrong type", t.ID)
		}
	}
	var fixed [20]byte
	binary.LittleEndian.PutUint32(fixed[0:], 200)
	copy(fixed[4:], activityID[:])
	return appendFrame(buf, fixed[:], ts, nil, false)
}

// ContextInfo is what the server tells a client in the context response.
type ContextInfo struct {
	// ServerAgent and ServerVersion are required by the client;
	// ServerVersion becomes the x-ms-serviceversion of every response.
	ServerAgent, ServerVersion string
	// IdleTimeoutSeconds is how long the server keeps an idle connection;
	// UnauthenticatedTimeoutSeconds how long it waits for the context
	// request.
	IdleTimeoutSeconds, UnauthenticatedTimeoutSeconds uint32
}
