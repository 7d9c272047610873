package wire

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// ParsePartitionKeyHeader decodes an x-ms-documentdb-partitionkey header:
//
//	header    = "[" [ component { "," component } ] "]"
//	component = JSON string | number | true | false | null | {}   ({} = undefined)
//
// It first tries JSON; if that fails it retries after translating the Go
// SDK's strconv.QuoteToASCII escapes, which are not JSON (\UXXXXXXXX,
// \xNN, \a, \v; sdk-notes §2.5). An empty header ("") means no header and
// returns nil, nil.
func ParsePartitionKeyHeader(h string) (emulator.PartitionKey, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return nil, nil
	}
	vals, err := decodePKArray(h)
	if err != nil {
		fixed, ok := goEscapesToJSON(h)
		if !ok {
			return nil, errBadPKHeader
		}
		if vals, err = decodePKArray(fixed); err != nil {
			return nil, errBadPKHeader
		}
	}
	pk, ok := emulator.PartitionKeyFromJSON(vals)
	if !ok {
		return nil, errBadPKHeader
	}
	return pk, nil
}

var errBadPKHeader = emulator.BadRequest("The partition key header x-ms-documentdb-partitionkey is invalid. It must be a JSON array of primitive values, e.g. [\"a\"], [1], [null] or [{}] for an undefined key.")

func decodePKArray(s string) ([]any, error) {
	v, err := emulator.DecodeJSON([]byte(s))
	if err != nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, errors.New("not an array")
	}
	return arr, nil
}

// goEscapesToJSON rewrites the escapes of Go's strconv.QuoteToASCII that JSON
// lacks, inside string literals only.
func goEscapesToJSON(s string) (string, bool) {
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			b.WriteByte(c)
			continue
		}
		switch c {
		case '"':
			inString = false
			b.WriteByte(c)
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			e := s[i+1]
			switch e {
			case 'a':
				b.WriteString(`\u0007`)
				i++
			case 'v':
				b.WriteString(`\u000b`)
				i++
			case 'x':
				if i+3 >= len(s) {
					return "", false
				}
				n, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
				if err != nil {
					return "", false
				}
				b.WriteString(`\u00`)
				b.WriteString(s[i+2 : i+4])
				_ = n
				i += 3
			case 'U':
				if i+9 >= len(s) {
					return "", false
				}
				n, err := strconv.ParseUint(s[i+2:i+10], 16, 32)
				if err != nil || n > 0x10FFFF {
					return "", false
				}
				r := rune(n)
				if r >= 0x10000 {
					r1, r2 := utf16.EncodeRune(r)
					b.WriteString(`\u` + hex4(r1) + `\u` + hex4(r2))
				} else {
					b.WriteString(`\u` + hex4(r))
				}
				i += 9
			default:
				b.WriteByte(c)
				b.WriteByte(e)
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), !inString
}

func hex4(r rune) string {
	s := strconv.FormatUint(uint64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}
