package cosmosql

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file renders the AST two ways:
//
//   - String: a compact S-expression form for tests and messages, e.g.
//     (AND (= c.a 1) (NOT (IN c.b 1 2))). Paths print as written (c.a[0]),
//     calls as (NAME args...), arrays as [a b], objects as {k:v "k 2":w},
//     subqueries as (SELECT ...), (EXISTS (SELECT ...)), (ARRAY (SELECT ...)).
//   - SQL: query text that parses back to the same tree, with only the
//     parentheses precedence requires.

// ExprString returns the S-expression form of e ("<nil>" for nil).
func ExprString(e Expr) string {
	var b strings.Builder
	writeSexp(&b, e)
	return b.String()
}

// ExprSQL returns e as query-language text, with only the parentheses that
// precedence requires ("<nil>" for nil).
func ExprSQL(e Expr) string {
	var b strings.Builder
	writeSQL(&b, e)
	return b.String()
}

// String returns the S-expression form of the literal.
func (e *Literal) String() string { return ExprString(e) }

// String returns the identifier.
func (e *Ident) String() string { return ExprString(e) }

// String returns the parameter name.
func (e *Param) String() string { return ExprString(e) }

// String returns the S-expression form of the member access.
func (e *Member) String() string { return ExprString(e) }

// String returns the S-expression form of the index access.
func (e *Index) String() string { return ExprString(e) }

// String returns the S-expression form of the unary operation.
func (e *Unary) String() string { return ExprString(e) }

// String returns the S-expression form of the binary operation.
func (e *Binary) String() string { return ExprString(e) }

// String returns the S-expression form of the BETWEEN predicate.
func (e *Between) String() string { return ExprString(e) }

// String returns the S-expression form of the IN predicate.
func (e *In) String() string { return ExprString(e) }

// String returns the S-expression form of the LIKE predicate.
func (e *Like) String() string { return ExprString(e) }

// String returns the S-expression form of the conditional.
func (e *Ternary) String() string { return ExprString(e) }

// String returns the S-expression form of the call.
func (e *Call) String() string { return ExprString(e) }

// String returns the S-expression form of the array constructor.
func (e *ArrayLit) String() string { return ExprString(e) }

// String returns the S-expression form of the object constructor.
func (e *ObjectLit) String() string { return ExprString(e) }

// String returns the S-expression form of the subquery.
func (e *Subquery) String() string { return ExprString(e) }

// String returns the query with its expressions in S-expression form:
//
//	SELECT DISTINCT TOP 5 (+ c.a 1) AS x, c.b FROM c JOIN t IN c.tags WHERE (= t 1) ORDER BY c.b DESC
//
// A source alias is shown only when it differs from the name the source
// would bind without one.
func (q *Query) String() string {
	var b strings.Builder
	writeQuery(&b, q, writeSexp)
	return b.String()
}

// SQL returns the query as text, with only the parentheses that precedence
// requires. For a query Parse returned, parsing the text again gives an
// equal tree (same String), unless the parentheses it needs, for example
// around each NOT of a = NOT b = NOT c ..., nest deeper than MaxDepth.
func (q *Query) SQL() string {
	var b strings.Builder
	writeQuery(&b, q, writeSQL)
	return b.String()
}

func writeQuery(b *strings.Builder, q *Query, w func(*strings.Builder, Expr)) {
	if q == nil {
		b.WriteString("<nil>")
		return
	}
	b.WriteString("SELECT")
	if q.Distinct {
		b.WriteString(" DISTINCT")
	}
	if q.Top != nil {
		b.WriteString(" TOP ")
		w(b, q.Top)
	}
	switch {
	case q.Select.Star:
		b.WriteString(" *")
	case q.Select.Value != nil:
		b.WriteString(" VALUE ")
		w(b, q.Select.Value)
	default:
		for i, it := range q.Select.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte(' ')
			w(b, it.Expr)
			if it.Alias != "" {
				b.WriteString(" AS ")
				b.WriteString(it.Alias)
			}
		}
	}
	if q.From != nil {
		for i, s := range q.From.Sources() {
			if i == 0 {
				b.WriteString(" FROM ")
			} else {
				b.WriteString(" JOIN ")
			}
			writeSource(b, s, w)
		}
	}
	if q.Where != nil {
		b.WriteString(" WHERE ")
		w(b, q.Where)
	}
	for i, e := range q.GroupBy {
		if i == 0 {
			b.WriteString(" GROUP BY ")
		} else {
			b.WriteString(", ")
		}
		w(b, e)
	}
	if q.Rank != nil {
		b.WriteString(" ORDER BY RANK ")
		w(b, q.Rank)
	}
	for i, o := range q.OrderBy {
		if i == 0 {
			b.WriteString(" ORDER BY ")
		} else {
			b.WriteString(", ")
		}
		w(b, o.Expr)
		if o.Desc {
			b.WriteString(" DESC")
		}
	}
	if q.Offset != nil || q.Limit != nil {
		b.WriteString(" OFFSET ")
		w(b, q.Offset)
		b.WriteString(" LIMIT ")
		w(b, q.Limit)
	}
}

func writeSource(b *strings.Builder, s Source, w func(*strings.Builder, Expr)) {
	switch {
	case s.Subquery != nil:
		b.WriteByte('(')
		writeQuery(b, s.Subquery, w)
		b.WriteByte(')')
		if s.Alias != "" {
			b.WriteString(" AS ")
			b.WriteString(s.Alias)
		}
	case s.In:
		b.WriteString(s.Alias)
		b.WriteString(" IN ")
		w(b, s.Expr)
	default:
		w(b, s.Expr)
		if s.Alias != "" && s.Alias != derivedAlias(s.Expr) {
			b.WriteString(" AS ")
			b.WriteString(s.Alias)
		}
	}
}

func writeSexp(b *strings.Builder, e Expr) {
	list := func(head string, args ...Expr) {
		b.WriteByte('(')
		b.WriteString(head)
		for _, a := range args {
			b.WriteByte(' ')
			writeSexp(b, a)
		}
		b.WriteByte(')')
	}
	not := func(n bool, op string) string {
		if n {
			return "NOT " + op
		}
		return op
	}
	switch x := e.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Literal:
		writeLiteral(b, x.Value)
	case *Ident:
		b.WriteString(x.Name)
	case *Param:
		b.WriteString(x.Name)
	case *Member:
		writeSexp(b, x.X)
		writeMemberName(b, x.Name)
	case *Index:
		writeSexp(b, x.X)
		b.WriteByte('[')
		writeSexp(b, x.Index)
		b.WriteByte(']')
	case *Unary:
		list(x.Op, x.X)
	case *Binary:
		list(x.Op, x.L, x.R)
	case *Between:
		list(not(x.Not, "BETWEEN"), x.X, x.Lo, x.Hi)
	case *In:
		list(not(x.Not, "IN"), append([]Expr{x.X}, x.List...)...)
	case *Like:
		if x.Escape == nil {
			list(not(x.Not, "LIKE"), x.X, x.Pattern)
		} else {
			b.WriteByte('(')
			b.WriteString(not(x.Not, "LIKE"))
			for _, a := range []Expr{x.X, x.Pattern} {
				b.WriteByte(' ')
				writeSexp(b, a)
			}
			b.WriteString(" ESCAPE ")
			writeSexp(b, x.Escape)
			b.WriteByte(')')
		}
	case *Ternary:
		list("?", x.Cond, x.Then, x.Else)
	case *Call:
		name := x.Name
		if x.UDF {
			name = "udf." + name
		}
		list(name, x.Args...)
	case *ArrayLit:
		b.WriteByte('[')
		for i, a := range x.Elems {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeSexp(b, a)
		}
		b.WriteByte(']')
	case *ObjectLit:
		b.WriteByte('{')
		for i, f := range x.Fields {
			if i > 0 {
				b.WriteByte(' ')
			}
			if isName(f.Key) {
				b.WriteString(f.Key)
			} else {
				writeQuoted(b, f.Key)
			}
			b.WriteByte(':')
			writeSexp(b, f.Value)
		}
		b.WriteByte('}')
	case *Subquery:
		switch x.Kind {
		case ExistsSubquery:
			b.WriteString("(EXISTS ")
		case ArraySubquery:
			b.WriteString("(ARRAY ")
		}
		b.WriteByte('(')
		writeQuery(b, x.Query, writeSexp)
		b.WriteByte(')')
		if x.Kind != ScalarSubquery {
			b.WriteByte(')')
		}
	default:
		b.WriteString("<unknown>")
	}
}

// SQL precedence levels, loosest first: the parser's levels, with the
// binary operators of parseBinary at 5 + their binaryPrec - 1.
const (
	precCond    = 0 // ?: ??
	precOr      = 1
	precAnd     = 2
	precNot     = 3
	precPred    = 4 // IN LIKE BETWEEN
	precBinary  = 4 // + binaryPrec: || is 5, * / % are 13
	precUnary   = 14
	precPostfix = 15 // member, index, and every primary
)

// sqlPrec returns the precedence level of e's top operator.
func sqlPrec(e Expr) int {
	switch x := e.(type) {
	case *Ternary:
		return precCond
	case *Binary:
		switch x.Op {
		case "??":
			return precCond
		case "OR":
			return precOr
		case "AND":
			return precAnd
		}
		return precBinary + binaryPrec[x.Op]
	case *Unary:
		if x.Op == "NOT" {
			return precNot
		}
		return precUnary
	case *Between, *In, *Like:
		return precPred
	}
	return precPostfix
}

// writeSQL writes e where any expression may stand.
func writeSQL(b *strings.Builder, e Expr) { writeSQLPrec(b, e, precCond) }

// writeSQLPrec writes e where only an expression of precedence min or
// tighter parses as written, parenthesizing e if it binds looser.
func writeSQLPrec(b *strings.Builder, e Expr, min int) {
	if e != nil && sqlPrec(e) < min {
		b.WriteByte('(')
		writeSQLPrec(b, e, precCond)
		b.WriteByte(')')
		return
	}
	switch x := e.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Literal:
		writeLiteral(b, x.Value)
	case *Ident:
		b.WriteString(x.Name)
	case *Param:
		b.WriteString(x.Name)
	case *Member:
		writePostfixBase(b, x.X)
		writeMemberName(b, x.Name)
	case *Index:
		writePostfixBase(b, x.X)
		b.WriteByte('[')
		writeSQL(b, x.Index)
		b.WriteByte(']')
	case *Unary:
		if x.Op == "NOT" {
			b.WriteString("NOT ")
			writeSQLPrec(b, x.X, precNot)
			return
		}
		var operand strings.Builder
		writeSQLPrec(&operand, x.X, precUnary)
		b.WriteString(x.Op)
		if x.Op == "-" && strings.HasPrefix(operand.String(), "-") {
			b.WriteByte(' ') // "--" would start a comment
		}
		b.WriteString(operand.String())
	case *Binary:
		p := sqlPrec(x)
		left, right := p, p+1 // left-associative
		if x.Op == "??" {
			left, right = precOr, precCond // right-associative
		}
		writeSQLPrec(b, x.L, left)
		b.WriteByte(' ')
		b.WriteString(x.Op)
		b.WriteByte(' ')
		writeSQLPrec(b, x.R, right)
	case *Between:
		writeSQLPrec(b, x.X, precPred)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		writeSQLPrec(b, x.Lo, precBinary+1)
		b.WriteString(" AND ")
		writeSQLPrec(b, x.Hi, precBinary+1)
	case *In:
		writeSQLPrec(b, x.X, precPred)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN ")
		writeSQLList(b, "(", x.List, ")")
	case *Like:
		writeSQLPrec(b, x.X, precPred)
		if x.Not {
			b.WriteString(" NOT")
		}
		b.WriteString(" LIKE ")
		writeSQLPrec(b, x.Pattern, precBinary+1)
		if x.Escape != nil {
			b.WriteString(" ESCAPE ")
			writeSQLPrec(b, x.Escape, precBinary+1)
		}
	case *Ternary:
		writeSQLPrec(b, x.Cond, precOr)
		b.WriteString(" ? ")
		writeSQL(b, x.Then)
		b.WriteString(" : ")
		writeSQL(b, x.Else)
	case *Call:
		if x.UDF {
			b.WriteString("udf.")
		}
		b.WriteString(x.Name)
		writeSQLList(b, "(", x.Args, ")")
	case *ArrayLit:
		writeSQLList(b, "[", x.Elems, "]")
	case *ObjectLit:
		b.WriteByte('{')
		for i, f := range x.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			writeQuoted(b, f.Key)
			b.WriteString(": ")
			writeSQL(b, f.Value)
		}
		b.WriteByte('}')
	case *Subquery:
		switch x.Kind {
		case ExistsSubquery:
			b.WriteString("EXISTS")
		case ArraySubquery:
			b.WriteString("ARRAY")
		}
		b.WriteByte('(')
		writeQuery(b, x.Query, writeSQL)
		b.WriteByte(')')
	default:
		b.WriteString("<unknown>")
	}
}

// writePostfixBase writes the operand of a member or index access,
// parenthesized unless it is a primary. A number is parenthesized too, so
// that "1.x" does not lex as the number "1." followed by x.
func writePostfixBase(b *strings.Builder, e Expr) {
	if l, ok := e.(*Literal); ok {
		if _, num := l.Value.(float64); num {
			b.WriteByte('(')
			writeSQL(b, e)
			b.WriteByte(')')
			return
		}
	}
	writeSQLPrec(b, e, precPostfix)
}

func writeSQLList(b *strings.Builder, open string, list []Expr, close string) {
	b.WriteString(open)
	for i, e := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		writeSQL(b, e)
	}
	b.WriteString(close)
}

// writeMemberName writes .name, or ["name"] when name is not a word.
func writeMemberName(b *strings.Builder, name string) {
	if isName(name) {
		b.WriteByte('.')
		b.WriteString(name)
		return
	}
	b.WriteByte('[')
	writeQuoted(b, name)
	b.WriteByte(']')
}

// isName reports whether s lexes as one word.
func isName(s string) bool {
	if s == "" || !isWordStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isWordChar(s[i]) {
			return false
		}
	}
	return true
}

func writeLiteral(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		b.WriteString(formatNumber(x))
	case string:
		writeQuoted(b, x)
	case Undefined:
		b.WriteString("undefined")
	default:
		b.WriteString("<unknown>")
	}
}

// formatNumber formats a number like JavaScript does: plain digits for
// magnitudes in [1e-6, 1e21), an exponent otherwise; the shortest text that
// parses back to the same double. NaN and the infinities print as the
// identifiers that parse back to them (NaN, Infinity, -Infinity).
func formatNumber(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	if a := math.Abs(v); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// writeQuoted writes s as a double-quoted string literal of the language.
// Bytes that are not valid UTF-8 are copied as they are (the lexer copies
// them into string values the same way).
func writeQuoted(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xF])
			} else if c < utf8.RuneSelf {
				b.WriteByte(c)
			} else {
				_, n := utf8.DecodeRuneInString(s[i:])
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		i++
	}
	b.WriteByte('"')
}
