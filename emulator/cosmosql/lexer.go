package cosmosql

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// tokenKind classifies a token.
type tokenKind int

const (
	tkEOF     tokenKind = iota
	tkInvalid           // a lexical error; the parser reports it as CodeInvalidToken
	tkWord              // identifier or keyword
	tkNumber
	tkString
	tkParam
	tkOp // punctuation and operators
)

// token is one lexeme. text is the raw source text; for tkOp it is the
// operator itself.
type token struct {
	kind       tokenKind
	start, end Pos
	text       string
	kw         string  // upper-cased keyword for reserved words, else ""
	str        string  // decoded value of a tkString
	num        float64 // value of a tkNumber
}

func (t token) span() span { return span{t.start, t.end} }

// keywords are the reserved words, matched case-insensitively. They cannot be
// used as identifiers or aliases, but any of them may follow a '.' as a
// property name (c.value) and may be an object constructor key ({value: 1}).
//
// true, false, null and undefined (and udf) are lower-case-only tokens in the
// .NET SDK grammar; the emulator matches them case-insensitively like every
// other keyword (see TestLiteralKeywordsAreCaseInsensitive).
var keywords = map[string]bool{
	"AND": true, "ARRAY": true, "AS": true, "ASC": true, "BETWEEN": true,
	"BY": true, "DESC": true, "DISTINCT": true, "ESCAPE": true, "EXISTS": true,
	"FALSE": true, "FROM": true, "GROUP": true, "IN": true, "JOIN": true,
	"LIKE": true, "LIMIT": true, "NOT": true, "NULL": true, "OFFSET": true,
	"OR": true, "ORDER": true, "ROOT": true, "SELECT": true, "TOP": true,
	"TRUE": true, "UDF": true, "UNDEFINED": true, "VALUE": true, "WHERE": true,
}

// operators lists the multi-character operators, longest first.
var operators = []string{">>>", ">>", ">=", "<<", "<=", "<>", "!=", "||", "??"}

const singleOps = "+-*/%=<>|&^~?:.,()[]{}"

// lexer produces tokens on demand, so that a syntax error is reported
// before a lexical error that follows it, and input that fails early is not
// scanned to its end. After a tkInvalid token it returns only tkEOF.
//
// Lexical grammar:
//
//	whitespace := ' ' | '\t' | '\r' | '\n'
//	comment    := '--' any-char-but-newline*
//	word       := [A-Za-z_][A-Za-z0-9_]*
//	param      := '@' word
//	number     := digit+ ['.' digit*] [exponent] | '.' digit+ [exponent] | '0' ('x'|'X') hexdigit+
//	exponent   := ('e'|'E') ['+'|'-'] digit+
//	string     := '"' char* '"' | "'" char* "'"   (escapes \' \" \\ \/ \b \f \n \r \t \uXXXX)
type lexer struct {
	src  string
	i    int
	done bool // a tkInvalid token was returned
}

// next returns the next token.
func (l *lexer) next() token {
	src := l.src
	if l.done {
		return token{kind: tkEOF, start: Pos(l.i), end: Pos(l.i)}
	}
	// Skip whitespace and comments.
	for l.i < len(src) {
		c := src[l.i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			l.i++
			continue
		}
		if c == '-' && l.i+1 < len(src) && src[l.i+1] == '-' {
			for l.i < len(src) && src[l.i] != '\n' {
				l.i++
			}
			continue
		}
		break
	}
	if l.i >= len(src) {
		return token{kind: tkEOF, start: Pos(l.i), end: Pos(l.i)}
	}
	t := lexOne(src, l.i)
	l.i = int(t.end)
	l.done = t.kind == tkInvalid
	return t
}

// lexOne scans the token starting at src[i], which is not whitespace.
func lexOne(src string, i int) token {
	c := src[i]
	switch {
	case isWordStart(c):
		j := i + 1
		for j < len(src) && isWordChar(src[j]) {
			j++
		}
		t := token{kind: tkWord, start: Pos(i), end: Pos(j), text: src[i:j]}
		if up := strings.ToUpper(t.text); keywords[up] {
			t.kw = up
		}
		return t
	case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
		return lexNumber(src, i)
	case c == '"' || c == '\'':
		return lexString(src, i)
	case c == '@':
		if i+1 < len(src) && isWordStart(src[i+1]) {
			j := i + 2
			for j < len(src) && isWordChar(src[j]) {
				j++
			}
			return token{kind: tkParam, start: Pos(i), end: Pos(j), text: src[i:j]}
		}
		return invalid(src, i, i+1)
	}
	for _, op := range operators {
		if strings.HasPrefix(src[i:], op) {
			return token{kind: tkOp, start: Pos(i), end: Pos(i + len(op)), text: op}
		}
	}
	if strings.IndexByte(singleOps, c) >= 0 {
		return token{kind: tkOp, start: Pos(i), end: Pos(i + 1), text: src[i : i+1]}
	}
	// Anything else (';', '!', '#', '$', '`', non-ASCII, control characters)
	// is not a token of the language. Report the whole UTF-8 sequence.
	_, n := utf8.DecodeRuneInString(src[i:])
	return invalid(src, i, i+n)
}

func invalid(src string, i, j int) token {
	return token{kind: tkInvalid, start: Pos(i), end: Pos(j), text: src[i:j]}
}

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isWordChar(c byte) bool { return isWordStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// lexNumber scans a number. Like a longest-match lexer, it stops before a
// part that does not fit: "1e" is the number 1 followed by the word e, and
// "0x" is 0 followed by x. A literal too large for a double (1e999) is an
// invalid token: the service does not allow non-finite numbers.
func lexNumber(src string, i int) token {
	j := i
	if src[i] == '0' && i+2 < len(src) && (src[i+1] == 'x' || src[i+1] == 'X') && hexVal(src[i+2]) >= 0 {
		j = i + 2
		v := 0.0
		for j < len(src) && hexVal(src[j]) >= 0 {
			v = v*16 + float64(hexVal(src[j]))
			j++
		}
		if math.IsInf(v, 0) {
			return invalid(src, i, j)
		}
		return token{kind: tkNumber, start: Pos(i), end: Pos(j), text: src[i:j], num: v}
	}
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '.' {
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			j = k
		}
	}
	text := src[i:j]
	// ParseFloat reports an underflow (1e-400) as a range error with a
	// value of 0 or a subnormal: that value is accepted.
	v, err := strconv.ParseFloat(text, 64)
	if math.IsInf(v, 0) || (err != nil && !errors.Is(err, strconv.ErrRange)) {
		return invalid(src, i, j)
	}
	return token{kind: tkNumber, start: Pos(i), end: Pos(j), text: text, num: v}
}

// lexString scans a quoted string starting at src[i]. Doubled quotes are not
// an escape: two quotes in a row end one string and start another.
func lexString(src string, i int) token {
	q := src[i]
	var b strings.Builder
	j := i + 1
	for {
		if j >= len(src) {
			return invalid(src, i, j) // unterminated
		}
		c := src[j]
		switch {
		case c == q:
			return token{kind: tkString, start: Pos(i), end: Pos(j + 1), text: src[i : j+1], str: b.String()}
		case c < 0x20:
			return invalid(src, i, j+1) // raw control character
		case c != '\\':
			b.WriteByte(c)
			j++
			continue
		}
		// Escape sequence.
		if j+1 >= len(src) {
			return invalid(src, i, j+1)
		}
		e := src[j+1]
		switch e {
		case '\'', '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(src, j+2)
			if !ok {
				return invalid(src, i, min(j+6, len(src)))
			}
			j += 6
			if utf16.IsSurrogate(r) {
				// Combine a high surrogate with a following \uDC00-\uDFFF.
				// A lone surrogate is a lexical error: no UTF-8 text (what
				// documents and results are) can hold it, and answering
				// U+FFFD instead would be a wrong result that looks right
				// (a body holding one is refused with 400 the same way).
				if r < 0xDC00 && j+1 < len(src) && src[j] == '\\' && src[j+1] == 'u' {
					if r2, ok := hex4(src, j+2); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
						r = utf16.DecodeRune(r, r2)
						j += 6
					}
				}
				if utf16.IsSurrogate(r) {
					return invalid(src, i, j)
				}
			}
			b.WriteRune(r)
			continue
		default:
			return invalid(src, i, j+2)
		}
		j += 2
	}
}

// hex4 decodes the four hex digits at src[i:i+4].
func hex4(src string, i int) (rune, bool) {
	if i+4 > len(src) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		v := hexVal(src[k])
		if v < 0 {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}
