package sqlgen

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// systemProperty maps the system properties of the container's documents to
// SQL over the row r (they are not stored inside doc).
func (t *translator) systemProperty(name string) (string, bool) {
	switch name {
	case "_ts":
		return "to_jsonb(r.ts)", true
	case "_etag":
		return "to_jsonb(r.etag)", true
	case "_rid":
		return "to_jsonb(cosmos.doc_rid(" + t.collRIDArg() + ", r.seq))", true
	case "_self":
		return "to_jsonb(" + t.selfPrefixArg() + " || cosmos.doc_rid(" + t.collRIDArg() + ", r.seq) || '/')", true
	case "_attachments":
		return `'"attachments/"'::jsonb`, true
	}
	return "", false
}

// collRIDArg and selfPrefixArg are the bind arguments of the container's
// RID and its documents' _self prefix, bound once per statement.
func (t *translator) collRIDArg() string {
	if t.collRID == "" {
		t.collRID = t.bind(t.in.CollRID) + "::bytea"
	}
	return t.collRID
}

func (t *translator) selfPrefixArg() string {
	if t.selfPrefix == "" {
		t.selfPrefix = t.bind(t.in.SelfPrefix) + "::text"
	}
	return t.selfPrefix
}

// fullDocument is the container's document as a value, system properties
// included (SELECT VALUE c inside expressions, c passed to a function...).
func (t *translator) fullDocument() string {
	return t.withSystemProperties("r.doc", "r.seq", "r.etag", "r.ts")
}

// withSystemProperties adds the system properties of the stored document
// whose seq, etag and ts columns are given to its body doc (all SQL).
func (t *translator) withSystemProperties(doc, seq, etag, ts string) string {
	return "cosmos.with_sys(" + doc + ", " + t.collRIDArg() + ", " + t.selfPrefixArg() + ", " + seq + ", " + etag + ", " + ts + ")"
}

// MaxExprDepth is the deepest nesting of expressions translated, chains
// of binary operators (a + b + c ...) included: each level is a level of
// the statement, which PostgreSQL parses recursively (and the translation
// copies). A chain of AND or of OR counts as one level.
const MaxExprDepth = 500

// MsgExprTooDeep is the refusal of an expression nested deeper than
// MaxExprDepth.
const MsgExprTooDeep = "The query nests expressions (or chains operators) more than 500 deep, which this emulator does not run."

// val translates an expression into a jsonb SQL expression (NULL =
// undefined).
func (t *translator) val(e cosmosql.Expr) (string, error) {
	t.exprDepth++
	defer func() { t.exprDepth-- }()
	if t.exprDepth > MaxExprDepth {
		return "", &QueryError{Message: MsgExprTooDeep}
	}
	switch x := e.(type) {
	case *cosmosql.Literal:
		return t.literal(x.Value)
	case *cosmosql.Param:
		raw, ok := t.in.Params[x.Name]
		if !ok || len(raw) == 0 {
			return "NULL::jsonb", nil
		}
		return t.jsonArg(raw), nil
	case *cosmosql.Ident:
		b, ok := t.binds[x.Name]
		if !ok {
			return "", unsupported("the identifier '%s' (it is not bound by FROM)", x.Name)
		}
		if b.root && !t.in.RawDocuments {
			return t.fullDocument(), nil
		}
		return b.expr, nil
	case *cosmosql.Member:
		return t.member(x.X, x.Name)
	case *cosmosql.Index:
		if lit, ok := x.Index.(*cosmosql.Literal); ok {
			switch v := lit.Value.(type) {
			case string:
				return t.member(x.X, v)
			case float64:
				base, err := t.val(x.X)
				if err != nil {
					return "", err
				}
				if v < 0 || v != math.Trunc(v) || v >= 1<<31 {
					// No element: undefined. The base stays in the
					// statement, as every bind argument its translation
					// made must appear there (PostgreSQL cannot type an
					// unused one).
					return "(" + base + " -> NULL::integer)", nil
				}
				return "(" + base + " -> " + t.bind(int32(v)) + "::integer)", nil
			}
		}
		base, err := t.val(x.X)
		if err != nil {
			return "", err
		}
		i, err := t.val(x.Index)
		if err != nil {
			return "", err
		}
		return "cosmos.idx(" + base + ", " + i + ")", nil
	case *cosmosql.Unary:
		a, err := t.val(x.X)
		if err != nil {
			return "", err
		}
		switch strings.ToUpper(x.Op) {
		case "-":
			return t.f8("-" + t.num(a)), nil
		case "+":
			return t.f8(t.num(a)), nil
		case "NOT":
			return "cosmos.l_not(" + a + ")", nil
		case "~":
			return t.f8("(~" + t.int32Of(a) + ")::double precision"), nil
		}
		return "", unsupported("the operator %s", x.Op)
	case *cosmosql.Binary:
		return t.binary(x)
	case *cosmosql.Between:
		v, err := t.val(x.X)
		if err != nil {
			return "", err
		}
		lo, err := t.val(x.Lo)
		if err != nil {
			return "", err
		}
		hi, err := t.val(x.Hi)
		if err != nil {
			return "", err
		}
		s := "cosmos.between(" + v + ", " + lo + ", " + hi + ")"
		if t.anyDouble(v, lo, hi) {
			// a non-finite bound or operand: compared as numbers (any
			// operand that is not a number makes it undefined)
			s = "cosmos.between8(" + t.num(v) + ", " + t.num(lo) + ", " + t.num(hi) + ")"
		}
		if x.Not {
			s = "cosmos.l_not(" + s + ")"
		}
		return s, nil
	case *cosmosql.In:
		v, err := t.val(x.X)
		if err != nil {
			return "", err
		}
		if len(x.List) == 0 {
			return "", unsupported("an empty IN list")
		}
		list, err := t.inList(x.List)
		if err != nil {
			return "", err
		}
		// = ANY is true when an element equals v, NULL (undefined) when
		// none does and an element (or v) is undefined, false otherwise:
		// the OR of cosmos.eq over the list, with v written once.
		s := "to_jsonb(" + v + " = ANY(" + list + "))"
		if x.Not {
			s = "cosmos.l_not(" + s + ")"
		}
		return s, nil
	case *cosmosql.Like:
		return t.like(x)
	case *cosmosql.Ternary:
		c, err := t.val(x.Cond)
		if err != nil {
			return "", err
		}
		a, err := t.val(x.Then)
		if err != nil {
			return "", err
		}
		b, err := t.val(x.Else)
		if err != nil {
			return "", err
		}
		return "(CASE WHEN (" + c + ") = 'true'::jsonb THEN " + a + " ELSE " + b + " END)", nil
	case *cosmosql.Call:
		return t.call(x)
	case *cosmosql.ArrayLit, *cosmosql.ObjectLit:
		s, _, err := t.constructor(e, t.val)
		return s, err
	case *cosmosql.Subquery:
		return t.subquery(x)
	}
	return "", unsupported("this expression")
}

func (t *translator) literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "'null'::jsonb", nil
	case bool:
		if x {
			return "'true'::jsonb", nil
		}
		return "'false'::jsonb", nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			// NaN or Infinity: a double, bound like every value
			return t.f8(t.bind(x) + "::double precision"), nil
		}
		return t.jsonArg(strconv.AppendFloat(nil, x, 'g', -1, 64)), nil
	case string:
		b, _ := json.Marshal(x)
		return t.jsonArg(b), nil
	case cosmosql.Undefined:
		return "NULL::jsonb", nil
	}
	return "", unsupported("this literal")
}

// member translates x.name; system properties of the container's document
// come from the row's columns.
func (t *translator) member(x cosmosql.Expr, name string) (string, error) {
	if id, ok := x.(*cosmosql.Ident); ok {
		if b, ok := t.binds[id.Name]; ok && b.root {
			if !t.in.RawDocuments {
				if s, ok := t.systemProperty(name); ok {
					return s, nil
				}
			}
			return "(r.doc -> " + QuoteLiteral(name) + ")", nil
		}
	}
	base, err := t.val(x)
	if err != nil {
		return "", err
	}
	return "(" + base + " -> " + QuoteLiteral(name) + ")", nil
}

// QuoteLiteral quotes a property name as an SQL string literal. Property
// names are identifiers, not values: they are written into the statement
// (quoted) so that an expression over a document path has the same shape
// as the expression of the index that serves it; PostgreSQL cannot match
// an index expression against one holding a bind parameter. With
// standard_conforming_strings (the default since PostgreSQL 9.1) doubling
// the single quotes is the whole escaping; a NUL, which no PostgreSQL text
// can hold, is replaced so the literal stays valid (and matches nothing).
func QuoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, "\x00", "\uFFFD"), "'", "''") + "'::text"
}

// int32Of converts the Cosmos value v (translated SQL) to a 32-bit integer
// the way JavaScript bitwise operators do (ECMAScript ToInt32, exact for
// every double, 0 for NaN and the infinities: see cosmos.i32 in migration
// 0022); NULL for anything but a number. Each operand is written once, so
// the SQL stays linear in the query.
func (t *translator) int32Of(v string) string {
	if d, ok := t.rawDouble(v); ok {
		return "cosmos.i32f(" + d + ")"
	}
	return "cosmos.i32(" + v + ")"
}

// num is the Cosmos value v (translated SQL) as a double precision SQL
// expression: NULL unless v is a number. A value computed in doubles (see
// f8) gives its double itself, so NaN and the infinities reach the
// operators and functions that take numbers; any other value (a jsonb) is
// converted by cosmos.num. The result is parenthesized (it may start with
// a minus sign, and "--" would open a comment).
func (t *translator) num(v string) string {
	if d, ok := t.rawDouble(v); ok {
		return "(" + d + ")"
	}
	return "cosmos.num(" + v + ")"
}

// anyDouble reports whether one of the translated values vs has a double
// form (see f8), i.e. may be NaN or infinite.
func (t *translator) anyDouble(vs ...string) bool {
	for _, v := range vs {
		if _, ok := t.rawDouble(v); ok {
			return true
		}
	}
	return false
}

// f8 is the Cosmos number of the double precision SQL d as a value (a
// jsonb, NULL when d is NaN or infinite: such a value is left out of
// results, which stay valid JSON). It remembers d, the number's double
// form, so that whatever takes numbers (arithmetic, comparisons, the math
// and type-checking functions, TOSTRING) uses d itself and sees NaN and
// the infinities as JavaScript does (see num and rawDouble).
func (t *translator) f8(d string) string {
	s := "cosmos.f8(" + d + ")"
	if t.raw8 == nil {
		t.raw8 = map[string]string{}
	}
	t.raw8[s] = d
	return s
}

// rawDouble is the double precision SQL a number translated by f8 came
// from (ok false for any other SQL).
func (t *translator) rawDouble(v string) (string, bool) {
	d, ok := t.raw8[v]
	return d, ok
}

// cancelled is the error of the request's context (Input.Ctx) once it is
// done, checked at every 1024th step i of a loop over a query's terms.
func (t *translator) cancelled(i int) error {
	if i%1024 != 0 || t.in.Ctx == nil {
		return nil
	}
	return t.in.Ctx.Err()
}

// maxINListBind is how many constant IN-list items travel as separate bind
// arguments; longer constant lists travel as one array argument, as the
// wire protocol carries at most 65535 arguments per statement.
const maxINListBind = 64

// inList is the SQL jsonb[] of an IN list, each item written once:
// constants (literals and parameters) of a long list are bound together as
// one text[] argument; other items are expressions of an ARRAY[...].
func (t *translator) inList(list []cosmosql.Expr) (string, error) {
	var consts []*string
	var exprs []string
	for i, el := range list {
		if err := t.cancelled(i); err != nil {
			return "", err
		}
		if len(list) > maxINListBind {
			if raw, ok := t.constText(el); ok {
				consts = append(consts, raw)
				continue
			}
		}
		ev, err := t.val(el)
		if err != nil {
			return "", err
		}
		exprs = append(exprs, ev)
	}
	var parts []string
	if len(consts) > 0 {
		parts = append(parts, t.bind(consts)+"::text[]::jsonb[]")
	}
	if len(exprs) > 0 {
		parts = append(parts, "ARRAY["+strings.Join(exprs, ", ")+"]::jsonb[]")
	}
	return strings.Join(parts, " || "), nil
}

// constText is the JSON text of a literal or parameter (nil when it is
// undefined); ok is false for any other expression.
func (t *translator) constText(e cosmosql.Expr) (*string, bool) {
	switch x := e.(type) {
	case *cosmosql.Literal:
		var b []byte
		switch v := x.Value.(type) {
		case cosmosql.Undefined:
			return nil, true
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, false // no JSON text: translated as an expression
			}
			b = strconv.AppendFloat(nil, v, 'g', -1, 64)
		case nil, bool, string:
			b, _ = json.Marshal(v)
		default:
			return nil, false
		}
		s := string(jsonWithoutNUL(b))
		return &s, true
	case *cosmosql.Param:
		raw, ok := t.in.Params[x.Name]
		if !ok || len(raw) == 0 {
			return nil, true
		}
		s := string(jsonWithoutNUL(raw))
		return &s, true
	}
	return nil, false
}

// MaxLogicalTerms is the most operands one chain of AND or of OR may have.
// The service has no such limit; PostgreSQL's planner time grows faster
// than linearly with the terms (about 1 s for 1,000 range comparisons),
// so longer chains are refused rather than left to hold a backend for
// minutes and gigabytes. A long list of alternatives is an IN list, which
// has no such cost.
const MaxLogicalTerms = 1000

// MsgTooManyLogicalTerms is the refusal of a chain longer than
// MaxLogicalTerms.
const MsgTooManyLogicalTerms = "The query joins more than 1000 conditions with AND or with OR, which this emulator does not run; use IN (...) or ARRAY_CONTAINS(@list, ...) for a list of alternatives."

// logicalChain translates a chain of one logical operator (a OR b OR c
// ...) as one call over the array of its operands: a chain of thousands
// of terms (generated filters) then nests one level deep in the
// statement, not thousands, which PostgreSQL's parser would refuse
// ("stack depth limit exceeded"). ok is false for shorter chains.
func (t *translator) logicalChain(x *cosmosql.Binary) (string, bool, error) {
	op := strings.ToUpper(x.Op)
	if op != "AND" && op != "OR" {
		return "", false, nil
	}
	var terms []cosmosql.Expr
	var walk func(e cosmosql.Expr)
	walk = func(e cosmosql.Expr) {
		if b, ok := e.(*cosmosql.Binary); ok && strings.EqualFold(b.Op, op) {
			walk(b.L)
			walk(b.R)
			return
		}
		terms = append(terms, e)
	}
	walk(x)
	if len(terms) <= 8 {
		return "", false, nil
	}
	if len(terms) > MaxLogicalTerms {
		return "", true, &QueryError{Message: MsgTooManyLogicalTerms}
	}
	parts := make([]string, 0, len(terms))
	// OR: the equalities of one expression to constants, e = 'a' OR e =
	// 'b' ..., are one e = ANY(list), as IN is (the same three-valued
	// result): e is evaluated once rather than once per term, which for
	// 1,000 terms over a document property was the whole cost of the
	// query (about 5 ms per row, seconds over a thousand rows).
	var lists map[string]*[]*string
	var listOrder []string
	for i, e := range terms {
		if err := t.cancelled(i); err != nil {
			return "", true, err
		}
		if op == "OR" {
			lhs, c, ok, err := t.constEquality(e)
			if err != nil {
				return "", true, err
			}
			if ok {
				if lists == nil {
					lists = map[string]*[]*string{}
				}
				l, seen := lists[lhs]
				if !seen {
					l = new([]*string)
					lists[lhs] = l
					listOrder = append(listOrder, lhs)
				}
				*l = append(*l, c)
				continue
			}
		}
		v, err := t.val(e)
		if err != nil {
			return "", true, err
		}
		parts = append(parts, v)
	}
	for _, lhs := range listOrder {
		parts = append(parts, "to_jsonb("+lhs+" = ANY("+t.bind(*lists[lhs])+"::text[]::jsonb[]))")
	}
	if len(parts) == 1 {
		return parts[0], true, nil
	}
	fn := "cosmos.l_all"
	if op == "OR" {
		fn = "cosmos.l_any"
	}
	return fn + "(ARRAY[" + strings.Join(parts, ", ") + "]::jsonb[])", true, nil
}

// constEquality reports whether e is an equality of an expression to a
// constant (a literal or a parameter, either side) and returns the
// expression's translation and the constant's JSON (nil: undefined). It
// translates the expression only when it reports true (or an error), so
// no bind argument is left unused.
func (t *translator) constEquality(e cosmosql.Expr) (string, *string, bool, error) {
	b, ok := e.(*cosmosql.Binary)
	if !ok || b.Op != "=" {
		return "", nil, false, nil
	}
	x, c := b.L, b.R
	if _, ok := t.constText(c); !ok {
		x, c = b.R, b.L
	}
	raw, ok := t.constText(c)
	if _, xConst := t.constText(x); !ok || xConst {
		return "", nil, false, nil // no constant, or two: the general form
	}
	v, err := t.val(x)
	return v, raw, err == nil, err
}

func (t *translator) binary(x *cosmosql.Binary) (string, error) {
	if s, ok, err := t.logicalChain(x); ok {
		return s, err
	}
	a, err := t.val(x.L)
	if err != nil {
		return "", err
	}
	b, err := t.val(x.R)
	if err != nil {
		return "", err
	}
	na, nb := t.num(a), t.num(b)
	_, da := t.rawDouble(a)
	_, db := t.rawDouble(b)
	switch strings.ToUpper(x.Op) {
	case "+":
		// the IEEE sum, product...: an infinity or zero where PostgreSQL's
		// operators raise (migration 0022)
		return t.f8("cosmos.add8(" + na + ", " + nb + ")"), nil
	case "-":
		return t.f8("cosmos.sub8(" + na + ", " + nb + ")"), nil
	case "*":
		return t.f8("cosmos.mul8(" + na + ", " + nb + ")"), nil
	case "/":
		// Division by zero is an infinity or NaN (the reference records
		// both a 400 and an infinite result): a number inside the
		// expression, undefined where it reaches a result (see f8).
		return t.f8("cosmos.div8(" + na + ", " + nb + ")"), nil
	case "%":
		return t.f8("cosmos.mod8(" + na + ", " + nb + ")"), nil
	case "||":
		// bounded: a chain of || over a stored string multiplies it
		return "to_jsonb(cosmos.concat_bounded(cosmos.str(" + a + "), cosmos.str(" + b + ")))", nil
	case "=":
		return t.equal(a, b, da, db), nil
	case "!=", "<>":
		return "cosmos.l_not(" + t.equal(a, b, da, db) + ")", nil
	case "<", "<=", ">", ">=":
		if da || db {
			// numbers as JavaScript compares them: false with NaN; a
			// non-number operand is undefined (across types)
			return "cosmos.cmp8(" + na + ", " + nb + ", '" + x.Op + "')", nil
		}
		return "to_jsonb(cosmos.cmp(" + a + ", " + b + ") " + x.Op + " 0)", nil
	case "AND":
		return "cosmos.l_and(" + a + ", " + b + ")", nil
	case "OR":
		return "cosmos.l_or(" + a + ", " + b + ")", nil
	case "??":
		return "COALESCE(" + a + ", " + b + ")", nil
	case "&":
		return t.f8("(" + t.int32Of(a) + " & " + t.int32Of(b) + ")::double precision"), nil
	case "|":
		return t.f8("(" + t.int32Of(a) + " | " + t.int32Of(b) + ")::double precision"), nil
	case "^":
		return t.f8("(" + t.int32Of(a) + " # " + t.int32Of(b) + ")::double precision"), nil
	case "<<":
		return t.f8("(" + t.int32Of(a) + " << (" + t.int32Of(b) + " & 31))::double precision"), nil
	case ">>":
		return t.f8("(" + t.int32Of(a) + " >> (" + t.int32Of(b) + " & 31))::double precision"), nil
	case ">>>":
		return t.f8("((" + t.int32Of(a) + "::bigint & 4294967295) >> (" + t.int32Of(b) + " & 31))::double precision"), nil
	}
	return "", unsupported("the operator %s", x.Op)
}

// equal is a = b of the translated values a and b; da and db report
// whether each has a double form (see f8). Between numbers, equality is
// JavaScript's: NaN equals nothing, Infinity equals Infinity.
func (t *translator) equal(a, b string, da, db bool) string {
	switch {
	case da && db:
		return "cosmos.eq8(" + t.num(a) + ", " + t.num(b) + ")"
	case da:
		return "cosmos.eq8j(" + t.num(a) + ", " + b + ")"
	case db:
		return "cosmos.eq8j(" + t.num(b) + ", " + a + ")"
	}
	return "cosmos.eq(" + a + ", " + b + ")"
}

// like translates LIKE. A pattern known at translation time (a string
// literal or parameter, with a constant escape) becomes an anchored POSIX
// regular expression bound as an argument (likeToRegex); any other
// pattern or escape is converted row by row inside PostgreSQL by
// cosmos.like_regex, the same conversion written in SQL, so that no value
// of a row ever becomes statement text. A pattern, an operand or a
// row's escape that is not a string (or an escape that is not one
// character) makes the result undefined.
func (t *translator) like(x *cosmosql.Like) (string, error) {
	v, err := t.val(x.X)
	if err != nil {
		return "", err
	}
	pat, constPat := t.constString(x.Pattern)
	esc, constEsc := "", true
	if x.Escape != nil {
		esc, constEsc = t.constString(x.Escape)
		if constEsc && len([]rune(esc)) != 1 {
			return "", unsupported("LIKE ... ESCAPE with an escape that is not one character")
		}
	}
	var s string
	if constPat && constEsc {
		s = "to_jsonb(cosmos.str(" + v + ") ~ " + t.bind(likeToRegex(pat, esc)) + "::text)"
	} else {
		p, err := t.val(x.Pattern)
		if err != nil {
			return "", err
		}
		escArg := "NULL::text, false"
		switch {
		case x.Escape != nil && constEsc:
			escArg = t.bind(esc) + "::text, true"
		case x.Escape != nil:
			e, err := t.val(x.Escape)
			if err != nil {
				return "", err
			}
			escArg = "cosmos.str(" + e + "), true"
		}
		s = "to_jsonb(cosmos.str(" + v + ") ~ cosmos.like_regex(cosmos.str(" + p + "), " + escArg + "))"
	}
	if x.Not {
		s = "cosmos.l_not(" + s + ")"
	}
	return s, nil
}

func (t *translator) constString(e cosmosql.Expr) (string, bool) {
	switch x := e.(type) {
	case *cosmosql.Literal:
		s, ok := x.Value.(string)
		return s, ok
	case *cosmosql.Param:
		var s string
		raw, ok := t.in.Params[x.Name]
		if !ok || json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}

// likeToRegex converts a LIKE pattern: % any string, _ one character,
// [abc] [a-f] [^x] character sets, esc makes the next character literal.
// A set is a '[' followed by a ']' after at least one character (so "[]a]"
// is the set of ']' and 'a'); a '[' without one is literal. Inside a set a
// leading '^' negates it (unless it is the only character), x-y is a
// range (matching nothing when y < x), every other character is literal.
// A run of % is one ".*" (the same strings match, and PostgreSQL's regular
// expression compiler refuses thousands of them).
// The result is always a valid PostgreSQL regular expression: a set left
// empty matches nothing ("(?!)") or, negated, any character.
// cosmos.like_regex (migration 0032) is this function in SQL; the two must
// agree (TestLikeRegexAgreesWithSQL).
func likeToRegex(p, esc string) string {
	var b strings.Builder
	b.WriteString("^")
	rs := []rune(p)
	pct := false // the last thing written is a % (runs of % are one)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		wasPct := pct
		pct = false
		switch {
		case esc != "" && string(c) == esc && i+1 < len(rs):
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case c == '%':
			if !wasPct {
				b.WriteString(".*")
			}
			pct = true
		case c == '_':
			b.WriteString(".")
		case c == '[':
			end := -1
			for j := i + 2; j < len(rs); j++ {
				if rs[j] == ']' {
					end = j
					break
				}
			}
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(likeSet(rs[i+1 : end]))
			i = end
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

// likeSet converts the characters between a set's brackets (at least
// one) into a bracket expression (see likeToRegex).
func likeSet(set []rune) string {
	neg := len(set) > 1 && set[0] == '^'
	k := 0
	if neg {
		k = 1
	}
	var items strings.Builder
	for ; k < len(set); k++ {
		if k+2 < len(set) && set[k+1] == '-' {
			if set[k] <= set[k+2] {
				items.WriteString(setChar(set[k]) + "-" + setChar(set[k+2]))
			}
			k += 2
			continue
		}
		items.WriteString(setChar(set[k]))
	}
	switch {
	case items.Len() == 0 && neg:
		return "."
	case items.Len() == 0:
		return "(?!)"
	case neg:
		return "[^" + items.String() + "]"
	}
	return "[" + items.String() + "]"
}

// setChar is c inside a bracket expression: backslash-escaped when it is
// one of the characters special there.
func setChar(c rune) string {
	switch c {
	case '\\', ']', '[', '^', '-':
		return `\` + string(c)
	}
	return string(c)
}
