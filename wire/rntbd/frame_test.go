package rntbd

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

// unhex decodes hex with spaces and '|' separators.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var exampleActivity = [16]byte{0x3d, 0x2c, 0x1b, 0x0a, 0x5f, 0x4e, 0x71, 0x60, 0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9}

// TestContextResponseWorkedExample: the 71-byte context response of the
// protocol reference (activity id 0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9 in
// .NET byte order, ServerAgent, ServerVersion, idle 120 s,
// unauthenticated 25 s), byte for byte.
func TestContextResponseWorkedExample(t *testing.T) {
	want := unhex(t, "47 00 00 00 | c8 00 00 00 | 3d 2c 1b 0a 5f 4e 71 60 82 93 a4 b5 c6 d7 e8 f9"+
		"02 00 07 11"+hex.EncodeToString([]byte("DocumentDB Server"))+"| 03 00 07 08"+hex.EncodeToString([]byte("2.14.0.0"))+
		"| 04 00 02 78 00 00 00 | 05 00 02 19 00 00 00")
	got, err := EncodeContextResponse(nil, exampleActivity, DefaultContext)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("context response\n got %x\nwant %x", got, want)
	}
	if len(got) != 71 {
		t.Fatalf("%d bytes, want 71", len(got))
	}
}

// TestResponseWorkedExample: the reference's response frame (200,
// PayloadPresent 1, TransportRequestID 7, LSN 5, body {"id":"a"}).
func TestResponseWorkedExample(t *testing.T) {
	want := unhex(t, "2e 00 00 00 c8 00 00 00"+hex.EncodeToString(exampleActivity[:])+"00 00 00 01 | 35 00 02 07 00 00 00 | 13 00 05 05 00 00 00 00 00 00 00 | 0a 00 00 00 7b 22 69 64 22 3a 22 61 22 7d")
	res := &Response{Status: 200, ActivityID: exampleActivity, Payload: []byte(`{"id":"a"}`),
		Tokens: Tokens{ULongToken(RespTransportRequestID, 7), LongLongToken(RespLSN, 5)}}
	got, err := EncodeResponse(nil, res)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("response\n got %x\nwant %x", got, want)
	}
	back, err := ReadResponse(bytes.NewReader(got), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Status != 200 || back.ActivityID != exampleActivity || string(back.Payload) != `{"id":"a"}` {
		t.Fatalf("decoded %+v", back)
	}
	if lsn, _ := back.Tokens.Get(RespLSN); lsn.Int() != 5 {
		t.Fatalf("lsn %+v", lsn)
	}
}

// TestRequestWorkedExample: the reference's Read Document request for
// database db1 decodes to its resource, operation and tokens.
func TestRequestWorkedExample(t *testing.T) {
	frame := unhex(t, "2b 00 00 00 03 00 03 00"+hex.EncodeToString(exampleActivity[:])+"02 00 00 00 | 4d 00 02 07 00 00 00 | 15 00 08 03 00 64 62 31")
	req, err := ReadRequest(bytes.NewReader(frame), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if req.ResourceType != ResourceDocument || req.OperationType != OpRead || req.ActivityID != exampleActivity || req.Payload != nil {
		t.Fatalf("decoded %+v", req)
	}
	if tr, _ := req.Tokens.Get(ReqTransportRequestID); tr.Num != 7 || tr.Type != TypeULong {
		t.Fatalf("transport request id %+v", tr)
	}
	if db, _ := req.Tokens.Get(ReqDatabaseName); db.String() != "db1" || db.Type != TypeString {
		t.Fatalf("database name %+v", db)
	}
	again, err := EncodeRequest(nil, &Request{ResourceType: req.ResourceType, OperationType: req.OperationType, ActivityID: req.ActivityID, Tokens: req.Tokens[1:]})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, frame) {
		t.Fatalf("re-encoded\n got %x\nwant %x", again, frame)
	}
}

// TestTokenRoundTrip encodes one token of every type, at the limits of its
// value, in a request and decodes it back unchanged.
func TestTokenRoundTrip(t *testing.T) {
	guid := bytes.Repeat([]byte{0xab}, 16)
	for _, tt := range []struct {
		name string
		tok  Token
	}{
		{"byte", Token{ID: 0x101, Type: TypeByte, Num: 0xff}},
		{"ushort", Token{ID: 0x102, Type: TypeUShort, Num: math.MaxUint16}},
		{"ulong", Token{ID: 0x103, Type: TypeULong, Num: math.MaxUint32}},
		{"long negative", Token{ID: 0x104, Type: TypeLong, Num: uint64(uint32(0xffffffff))}},
		{"ulonglong", Token{ID: 0x105, Type: TypeULongLong, Num: math.MaxUint64}},
		{"longlong", LongLongToken(0x106, -2)},
		{"guid", Token{ID: 0x107, Type: TypeGUID, Bytes: guid}},
		{"small string", SmallStringToken(0x108, strings.Repeat("s", 255))},
		{"string", StringToken(0x109, strings.Repeat("é", 1000))},
		{"ulong string", Token{ID: 0x10a, Type: TypeULongString, Bytes: bytes.Repeat([]byte("u"), 70000)}},
		{"small bytes", Token{ID: 0x10b, Type: TypeSmallBytes, Bytes: []byte{0, 1, 2}}},
		{"bytes", Token{ID: 0x10c, Type: TypeBytes, Bytes: []byte{}}},
		{"ulong bytes", Token{ID: 0x10d, Type: TypeULongBytes, Bytes: []byte{9}}},
		{"float", Token{ID: 0x10e, Type: TypeFloat, Num: uint64(math.Float32bits(1.5))}},
		{"double", DoubleToken(0x10f, 2.57)},
		{"invalid", Token{ID: 0x110, Type: TypeInvalid}},
		{"id 0xffff", ByteToken(0xffff, 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := &Request{ResourceType: 3, OperationType: 1, Tokens: Tokens{tt.tok}, Payload: []byte("{}")}
			frame, err := EncodeRequest(nil, req)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ReadRequest(bytes.NewReader(frame), Limits{MaxHeader: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			got, ok := back.Tokens.Get(tt.tok.ID)
			if !ok || len(back.Tokens) != 2 {
				t.Fatalf("tokens %+v", back.Tokens)
			}
			if got.Type != tt.tok.Type || got.Num != tt.tok.Num || !bytes.Equal(got.Bytes, tt.tok.Bytes) {
				t.Fatalf("got %+v, want %+v", got, tt.tok)
			}
			if string(back.Payload) != "{}" {
				t.Fatalf("payload %q", back.Payload)
			}
		})
	}
	if tk, _ := (Tokens{StringToken(9, "first"), StringToken(9, "last")}).Get(9); tk.String() != "last" {
		t.Errorf("a token given twice reads %q, want the last", tk.String())
	}
	if v := (Token{Type: TypeLong, Num: 0xffffffff}).Int(); v != -1 {
		t.Errorf("Long 0xffffffff reads %d, want -1", v)
	}
	if v := DoubleToken(1, 2.57).Float(); v != 2.57 {
		t.Errorf("Double reads %v", v)
	}
}

// TestReadRequestRefuses lists the malformed, truncated and oversized
// frames: each is an error wrapping ErrMalformed or ErrTooLarge (a clean
// end of stream before a frame is io.EOF), never a panic.
func TestReadRequestRefuses(t *testing.T) {
	valid, err := EncodeRequest(nil, &Request{ResourceType: 3, OperationType: 1, Tokens: Tokens{StringToken(ReqDatabaseName, "db")}, Payload: []byte(`{"id":"1"}`)})
	if err != nil {
		t.Fatal(err)
	}
	lim := Limits{MaxHeader: 1024, MaxPayload: 1024}
	le32 := func(n uint32) string {
		return hex.EncodeToString([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)})
	}
	hdr := func(n uint32, tokens string) []byte {
		return unhex(t, le32(n)+"0300 0100"+strings.Repeat("00", 16)+tokens)
	}
	for _, tt := range []struct {
		name  string
		frame []byte
		want  error
	}{
		{"empty stream", nil, io.EOF},
		{"length cut", []byte{1, 0}, io.ErrUnexpectedEOF},
		{"length below the header", hdr(23, ""), ErrMalformed},
		{"length zero", unhex(t, "00000000"), ErrMalformed},
		{"header over the limit", hdr(1025, ""), ErrTooLarge},
		{"length 4 GiB", unhex(t, "ffffffff"), ErrTooLarge},
		{"header cut", valid[:20], ErrMalformed},
		{"token header cut", hdr(26, "1500"), ErrMalformed},
		{"fixed value cut", hdr(27, "4d0002ffff"[:8]), ErrMalformed},
		{"string longer than the frame", hdr(29, "150008ff00"), ErrMalformed},
		{"unknown type", hdr(28, "15001000"), ErrMalformed},
		{"payload length cut", valid[:len(valid)-12], ErrMalformed},
		{"payload cut", valid[:len(valid)-1], ErrMalformed},
		{"payload over the limit", append(hdr(28, "02000001"), unhex(t, le32(1025))...), ErrTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadRequest(bytes.NewReader(tt.frame), lim)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := ReadRequest(bytes.NewReader(valid), lim); err != nil {
		t.Fatalf("the valid frame: %v", err)
	}
}

// TestEncodeResponseDeclaredTypes: a response token must have its id's
// declared type (the Java SDK reads known ids by the declared type), and
// unknown ids are refused.
func TestEncodeResponseDeclaredTypes(t *testing.T) {
	for _, tt := range []struct {
		name string
		tok  Token
		ok   bool
	}{
		{"LSN as LongLong", LongLongToken(RespLSN, 1), true},
		{"LSN as ULong", ULongToken(RespLSN, 1), false},
		{"request charge as Double", DoubleToken(RespRequestCharge, 1), true},
		{"request charge as String", StringToken(RespRequestCharge, "1"), false},
		{"session token as SmallString", SmallStringToken(RespSessionToken, "0#1"), false},
		{"payload present given twice", ByteToken(RespPayloadPresent, 1), false},
		{"undeclared id", ByteToken(0x7777, 1), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := EncodeResponse(nil, &Response{Status: 200, Tokens: Tokens{tt.tok}})
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// FuzzReadRequest: any bytes decode to a request or an error, never a
// panic or an allocation past the limits; a decoded request encodes to a
// frame that decodes to the same request.
func FuzzReadRequest(f *testing.F) {
	seed, _ := EncodeRequest(nil, &Request{ResourceType: 3, OperationType: 1,
		Tokens:  Tokens{StringToken(ReqDatabaseName, "db"), ULongToken(ReqTransportRequestID, 9), Token{ID: 0, Type: TypeBytes, Bytes: []byte{1, 2}}},
		Payload: []byte(`{"id":"1"}`)})
	f.Add(seed)
	ctx, _ := EncodeRequest(nil, &Request{Tokens: Tokens{ULongToken(CtxProtocolVersion, 1), SmallStringToken(CtxClientVersion, "2020-07-15")}})
	f.Add(ctx)
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	lim := Limits{MaxHeader: 1 << 16, MaxPayload: 1 << 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := ReadRequest(bytes.NewReader(data), lim)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		var rest Tokens
		for _, tk := range req.Tokens {
			if tk.ID != ReqPayloadPresent {
				rest = append(rest, tk)
			}
		}
		frame, err := EncodeRequest(nil, &Request{ResourceType: req.ResourceType, OperationType: req.OperationType, ActivityID: req.ActivityID, Tokens: rest, Payload: req.Payload})
		if err != nil {
			t.Fatalf("re-encoding a decoded request: %v", err)
		}
		back, err := ReadRequest(bytes.NewReader(frame), Limits{MaxHeader: 1 << 20, MaxPayload: 1 << 20})
		if err != nil {
			t.Fatalf("decoding a re-encoded request: %v", err)
		}
		if back.ResourceType != req.ResourceType || back.OperationType != req.OperationType || back.ActivityID != req.ActivityID ||
			!bytes.Equal(back.Payload, req.Payload) || (back.Payload == nil) != (req.Payload == nil) {
			t.Fatalf("round trip changed the request:\n%+v\n%+v", req, back)
		}
		var backRest Tokens
		for _, tk := range back.Tokens {
			if tk.ID != ReqPayloadPresent {
				backRest = append(backRest, tk)
			}
		}
		norm := func(ts Tokens) Tokens {
			out := Tokens{}
			for _, tk := range ts {
				if tk.Bytes == nil && fixedSize(tk.Type) != 16 && prefixSize(tk.Type) > 0 {
					tk.Bytes = []byte{}
				}
				out = append(out, tk)
			}
			return out
		}
		if !reflect.DeepEqual(norm(backRest), norm(rest)) {
			t.Fatalf("round trip changed the tokens:\n%+v\n%+v", rest, backRest)
		}
	})
}
