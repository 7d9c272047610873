package rntbd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// TokenType is the type byte of a token, which fixes the encoding of its
// value (RntbdTokenType.java).
type TokenType byte

// The token types.
const (
	TypeByte        TokenType = 0x00 // 1 byte (booleans are 0 or 1)
	TypeUShort      TokenType = 0x01 // u16
	TypeULong       TokenType = 0x02 // u32
	TypeLong        TokenType = 0x03 // i32
	TypeULongLong   TokenType = 0x04 // u64
	TypeLongLong    TokenType = 0x05 // i64
	TypeGUID        TokenType = 0x06 // 16 bytes
	TypeSmallString TokenType = 0x07 // u8 length + UTF-8
	TypeString      TokenType = 0x08 // u16 length + UTF-8
	TypeULongString TokenType = 0x09 // u32 length + UTF-8
	TypeSmallBytes  TokenType = 0x0A // u8 length + bytes
	TypeBytes       TokenType = 0x0B // u16 length + bytes
	TypeULongBytes  TokenType = 0x0C // u32 length + bytes
	TypeFloat       TokenType = 0x0D // f32
	TypeDouble      TokenType = 0x0E // f64
	TypeInvalid     TokenType = 0xFF // no value
)

// Token is one id, type and value of a token list. Numbers (and the bits
// of a Float or Double) are in Num; a GUID, string or byte value is in
// Bytes, which aliases the decoded frame.
type Token struct {
	ID    uint16
	Type  TokenType
	Num   uint64
	Bytes []byte
}

// String returns a string token's value (the bytes of any type with bytes).
func (t Token) String() string { return string(t.Bytes) }

// Int returns a number token's value as a signed number: Long and LongLong
// values sign-extended, the unsigned ones as they are.
func (t Token) Int() int64 {
	switch t.Type {
	case TypeLong:
		return int64(int32(uint32(t.Num)))
	default:
		return int64(t.Num)
	}
}

// Float returns a Float or Double token's value.
func (t Token) Float() float64 {
	if t.Type == TypeFloat {
		return float64(math.Float32frombits(uint32(t.Num)))
	}
	return math.Float64frombits(t.Num)
}

// ErrMalformed is the cause of every decoding failure: a frame or token
// that ends early, declares more than the frame holds or has an unknown
// type.
var ErrMalformed = errors.New("rntbd: malformed frame")

// fixedSize is the size of a fixed-size value (-1: a length-prefixed one,
// 0 for Invalid).
func fixedSize(t TokenType) int {
	switch t {
	case TypeByte:
		return 1
	case TypeUShort:
		return 2
	case TypeULong, TypeLong, TypeFloat:
		return 4
	case TypeULongLong, TypeLongLong, TypeDouble:
		return 8
	case TypeGUID:
		return 16
	case TypeInvalid:
		return 0
	}
	return -1
}

// prefixSize is the size of a length-prefixed value's length (0: not one).
func prefixSize(t TokenType) int {
	switch t {
	case TypeSmallString, TypeSmallBytes:
		return 1
	case TypeString, TypeBytes:
		return 2
	case TypeULongString, TypeULongBytes:
		return 4
	}
	return 0
}

// Tokens is a token list in wire order.
type Tokens []Token

// Get returns the token with id, and whether there is one. When a list
// holds id more than once the last one counts, as in the Java SDK's
// decoder (RntbdTokenStream.decode decodes each occurrence into the same
// token).
func (ts Tokens) Get(id uint16) (Token, bool) {
	for i := len(ts) - 1; i >= 0; i-- {
		if ts[i].ID == id {
			return ts[i], true
		}
	}
	return Token{}, false
}

// decodeTokens parses a token list filling b exactly, by each token's wire
// type (a server reads what the client wrote, known id or not).
func decodeTokens(b []byte) (Tokens, error) {
	var ts Tokens
	for len(b) > 0 {
		if len(b) < 3 {
			return nil, fmt.Errorf("%w: a token header is cut off", ErrMalformed)
		}
		t := Token{ID: binary.LittleEndian.Uint16(b), Type: TokenType(b[2])}
		b = b[3:]
		if n := fixedSize(t.Type); n >= 0 {
			if len(b) < n {
				return nil, fmt.Errorf("%w: token 0x%04x is cut off", ErrMalformed, t.ID)
			}
			switch t.Type {
			case TypeByte:
				t.Num = uint64(b[0])
			case TypeUShort:
				t.Num = uint64(binary.LittleEndian.Uint16(b))
			case TypeULong, TypeLong, TypeFloat:
				t.Num = uint64(binary.LittleEndian.Uint32(b))
			case TypeULongLong, TypeLongLong, TypeDouble:
				t.Num = binary.LittleEndian.Uint64(b)
			case TypeGUID:
				t.Bytes = b[:16:16]
			}
			b = b[n:]
		} else {
			p := prefixSize(t.Type)
			if p == 0 {
				return nil, fmt.Errorf("%w: token 0x%04x has the unknown type 0x%02x", ErrMalformed, t.ID, byte(t.Type))
			}
			if len(b) < p {
				return nil, fmt.Errorf("%w: token 0x%04x is cut off", ErrMalformed, t.ID)
			}
			var n uint64
			switch p {
			case 1:
				n = uint64(b[0])
			case 2:
				n = uint64(binary.LittleEndian.Uint16(b))
			case 4:
				n = uint64(binary.LittleEndian.Uint32(b))
			}
			b = b[p:]
			if uint64(len(b)) < n {
				return nil, fmt.Errorf("%w: token 0x%04x declares %d bytes, %d remain", ErrMalformed, t.ID, n, len(b))
			}
			t.Bytes = b[:n:n]
			b = b[n:]
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// appendTokens encodes ts; a value too long for its type's length prefix,
// or an unknown type, is an error.
func appendTokens(buf []byte, ts Tokens) ([]byte, error) {
	for _, t := range ts {
		buf = binary.LittleEndian.AppendUint16(buf, t.ID)
		buf = append(buf, byte(t.Type))
		switch t.Type {
		case TypeByte:
			buf = append(buf, byte(t.Num))
		case TypeUShort:
			buf = binary.LittleEndian.AppendUint16(buf, uint16(t.Num))
		case TypeULong, TypeLong, TypeFloat:
			buf = binary.LittleEndian.AppendUint32(buf, uint32(t.Num))
		case TypeULongLong, TypeLongLong, TypeDouble:
			buf = binary.LittleEndian.AppendUint64(buf, t.Num)
		case TypeGUID:
			if len(t.Bytes) != 16 {
				return nil, fmt.Errorf("rntbd: token 0x%04x: a GUID has 16 bytes, not %d", t.ID, len(t.Bytes))
			}
			buf = append(buf, t.Bytes...)
		case TypeInvalid:
		default:
			p := prefixSize(t.Type)
			if p == 0 {
				return nil, fmt.Errorf("rntbd: token 0x%04x has the unknown type 0x%02x", t.ID, byte(t.Type))
			}
			n := len(t.Bytes)
			switch {
			case p == 1 && n > math.MaxUint8, p == 2 && n > math.MaxUint16, p == 4 && uint64(n) > math.MaxUint32:
				return nil, fmt.Errorf("rntbd: token 0x%04x: %d bytes do not fit its type 0x%02x", t.ID, n, byte(t.Type))
			}
			switch p {
			case 1:
				buf = append(buf, byte(n))
			case 2:
				buf = binary.LittleEndian.AppendUint16(buf, uint16(n))
			case 4:
				buf = binary.LittleEndian.AppendUint32(buf, uint32(n))
			}
			buf = append(buf, t.Bytes...)
		}
	}
	return buf, nil
}

// Constructors of tokens of each type.

// ByteToken is a Byte token.
func ByteToken(id uint16, v byte) Token { return Token{ID: id, Type: TypeByte, Num: uint64(v)} }

// ULongToken is a ULong (u32) token.
func ULongToken(id uint16, v uint32) Token { return Token{ID: id, Type: TypeULong, Num: uint64(v)} }

// LongLongToken is a LongLong (i64) token.
func LongLongToken(id uint16, v int64) Token {
	return Token{ID: id, Type: TypeLongLong, Num: uint64(v)}
}

// DoubleToken is a Double token.
func DoubleToken(id uint16, v float64) Token {
	return Token{ID: id, Type: TypeDouble, Num: math.Float64bits(v)}
}

// StringToken is a String (u16 length) token.
func StringToken(id uint16, s string) Token { return Token{ID: id, Type: TypeString, Bytes: []byte(s)} }

// SmallStringToken is a SmallString (u8 length) token.
func SmallStringToken(id uint16, s string) Token {
	return Token{ID: id, Type: TypeSmallString, Bytes: []byte(s)}
}
