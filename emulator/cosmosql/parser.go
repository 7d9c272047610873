package cosmosql

import (
	"math"
	"strings"
)

// Parse parses one Cosmos DB for NoSQL query and runs the static semantic
// checks (identifier resolution, SELECT * validity, duplicate property names,
// aggregate placement, GROUP BY rules, the JOIN limit).
//
// Every error is a *SyntaxError whose Start and End delimit the offending
// text (End exclusive):
//
//   - CodeEmpty for a query that is only whitespace and comments;
//   - CodeInvalidToken for text that is no token at all: ';' (so a trailing
//     semicolon), '$', '!', '#', an unterminated string, a bad escape, a
//     number too large for a double;
//   - CodeSyntax for a token the grammar does not allow where it stands
//     ("near 'FROM'"; at the end of the text, the last token). A /* */
//     comment is not a comment: it gives CodeSyntax near '/';
//   - the SC2xxx codes for semantic errors (see the Code constants).
//
// Parse never panics, it rejects input nested deeper than MaxDepth (and
// more than MaxJoins JOINs), and it is safe for concurrent use. It does not
// bound the length of the text or of flat chains (a OR b OR c ..., a + b +
// c ..., which it builds as left-deep trees in a loop): the caller bounds
// the text (emulator.ParseQuery: 512 KB, the service's
// maxSqlQueryInputLength) and the translator the chains (pgstore/sqlgen).
// Literal strings and numbers are values in the tree; nothing here quotes
// or escapes them for another language.
//
// Choices where the sources disagree or are silent:
//
//   - NOT is a prefix operator binding just above AND, as the documentation
//     says (NOT > AND > OR): NOT c.a = 1 is NOT (c.a = 1). The .NET SDK
//     grammar binds it tighter than '=' instead.
//   - Keywords, including true, false, null, undefined and udf, are
//     case-insensitive.
//   - Hexadecimal numbers (0x1F) are accepted, as the documentation allows.
//   - Identifiers are [A-Za-z_][A-Za-z0-9_]*; '$' is not an identifier
//     character.
//   - The identifiers NaN and Infinity, when no FROM alias of that name is in
//     scope, become number literals holding NaN and +Inf (-Infinity is a
//     Unary "-" over the latter): the service evaluates them as JavaScript
//     numbers (its samples: ToString(NaN) is "NaN", ToString(Infinity)
//     "Infinity"). A *Literal float64 may therefore be NaN or +Inf; no
//     other construct makes a non-finite literal.
//
// What a successful Parse guarantees about the tree:
//
//   - every *Ident in an expression names a FROM alias in scope (of its own
//     query or an enclosing one); only the first identifier of a top-level
//     FROM source (the container name, or "root" for ROOT) is unchecked;
//   - Top, Offset and Limit are a *Param or a *Literal holding a
//     non-negative integral float64;
//   - a FROM container expression is an *Ident followed by *Member and
//     *Index nodes whose indexes are string or non-negative integer literals;
//   - no aggregate appears in WHERE, GROUP BY or ORDER BY, none is nested in
//     another, and the selection of an aggregate or GROUP BY query references
//     properties only inside aggregates or as GROUP BY expressions;
//   - parentheses leave no node, "<>" is Op "!=", and -1 is a Unary "-" over
//     the literal 1 (no constant folding).
//
// Expression positions (Expr.Position) are the offset of the first byte of
// the expression's text; for a binary operator that is the start of its left
// operand.
func Parse(query string) (q *Query, err error) {
	p := &parser{
		src:  query,
		lx:   lexer{src: query},
		info: map[*Query]*queryInfo{},
		keys: map[*ObjectLit][]span{},
	}
	p.cur = p.lx.next()
	if p.cur.kind == tkEOF {
		return nil, errorAt(CodeEmpty, span{0, Pos(len(query))}, "Syntax error, unexpected end-of-file.")
	}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			q, err = nil, b.err
		}
	}()
	q = p.parseQuery()
	if t := p.tok(); t.kind != tkEOF {
		p.fail(t)
	}
	(&checker{p: p}).query(q, nil, true)
	if calls := UDFCalls(q); len(calls) > MaxUDFRefs {
		panic(bailout{errorAt(CodeTooManyUDFs, p.spanOf(calls[MaxUDFRefs]),
			"The number of user-defined function references in the query exceeds the maximum of %d.", MaxUDFRefs)})
	}
	return q, nil
}

// bailout carries an error out of the recursive descent.
type bailout struct{ err *SyntaxError }

// parser is a recursive-descent parser with one token of lookahead beyond
// the current one. The maps record what the AST does not carry but error
// messages need: where select items, sources and object keys are. (Where an
// expression ends is found again by endOf.)
type parser struct {
	src   string
	lx    lexer
	cur   token   // the current token
	ahead []token // tokens read by peek, not yet current
	prev  token   // the last consumed token (zero before the first)
	depth int
	info  map[*Query]*queryInfo
	keys  map[*ObjectLit][]span
}

// queryInfo holds the positions of the parts of one query.
type queryInfo struct {
	star    span   // the '*' of SELECT *
	items   []span // each select item, expression through alias
	sources []span // each FROM source, first then JOINs
	orderBy span   // the ORDER keyword
}

func (p *parser) tok() token { return p.cur }

// peek returns the token after the current one.
func (p *parser) peek() token {
	if len(p.ahead) == 0 {
		p.ahead = append(p.ahead, p.lx.next())
	}
	return p.ahead[0]
}

// next consumes and returns the current token. The end of the text is never
// consumed.
func (p *parser) next() token {
	t := p.cur
	if t.kind == tkEOF {
		return t
	}
	p.prev = t
	if len(p.ahead) > 0 {
		p.cur = p.ahead[0]
		p.ahead = p.ahead[:copy(p.ahead, p.ahead[1:])]
	} else {
		p.cur = p.lx.next()
	}
	return t
}

// prevEnd is the end of the last consumed token.
func (p *parser) prevEnd() Pos { return p.prev.end }

func (p *parser) isKw(kw string) bool {
	t := p.tok()
	return t.kind == tkWord && t.kw == kw
}

func (p *parser) isOp(op string) bool {
	t := p.tok()
	return t.kind == tkOp && t.text == op
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.next()
		return true
	}
	return false
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) token {
	if !p.isKw(kw) {
		p.fail(p.tok())
	}
	return p.next()
}

func (p *parser) expectOp(op string) token {
	if !p.isOp(op) {
		p.fail(p.tok())
	}
	return p.next()
}

// isIdent reports whether t is an identifier (a word that is not reserved).
func isIdent(t token) bool { return t.kind == tkWord && t.kw == "" }

// fail aborts parsing with the error for an unexpected token t.
func (p *parser) fail(t token) {
	panic(bailout{p.unexpected(t)})
}

// unexpected builds the error for token t. At the end of the text the
// service reports the last token ("near 'WHERE'" for "... WHERE").
func (p *parser) unexpected(t token) *SyntaxError {
	switch t.kind {
	case tkInvalid:
		return errorAt(CodeInvalidToken, t.span(), "Syntax error, invalid token '%s'.", clip(t.text))
	case tkEOF:
		t = p.prev // the text is not empty, so a token was consumed
	}
	return errorAt(CodeSyntax, t.span(), "Syntax error, incorrect syntax near '%s'.", clip(p.src[t.start:t.end]))
}

// enter records one more level of nesting and fails beyond MaxDepth; leave
// undoes it.
func (p *parser) enter() {
	p.depth++
	if p.depth > MaxDepth {
		t := p.tok()
		if t.kind == tkEOF || t.kind == tkInvalid {
			t = p.prev
		}
		panic(bailout{errorAt(CodeSyntax, t.span(),
			"Syntax error, the query is nested more than %d levels deep near '%s'.", MaxDepth, clip(p.src[t.start:t.end]))})
	}
}

func (p *parser) leave() { p.depth-- }

// spanOf returns the text range of a parsed expression (see endOf).
func (p *parser) spanOf(e Expr) span {
	return span{e.Position(), p.endOf(e)}
}

// endOf returns where the text of e ends, by scanning the query again from
// e's position; the checker uses it only after the whole query has parsed.
// It is exact for the nodes errors point at: identifiers, parameters,
// literals, paths, calls and subqueries; for a path with a parenthesized
// base, such as (c).a, it returns the end of the base's text, and for other
// nodes the end of their first operand.
func (p *parser) endOf(e Expr) Pos {
	steps := 0
	for {
		if m, ok := e.(*Member); ok {
			e, steps = m.X, steps+1
		} else if ix, ok := e.(*Index); ok {
			e, steps = ix.X, steps+1
		} else {
			break
		}
	}
	l := &lexer{src: p.src, i: int(e.Position())}
	end := skipOperand(l)
	for ; steps > 0; steps-- {
		t := l.next()
		switch {
		case t.kind == tkOp && t.text == ".":
			n := l.next()
			if n.kind != tkWord {
				return end
			}
			end = n.end
		case t.kind == tkOp && t.text == "[":
			end = skipBalanced(l, t)
		default:
			return end
		}
	}
	return end
}

// skipOperand scans one operand: a token, or a call, bracketed construct or
// subquery, and returns its end.
func skipOperand(l *lexer) Pos {
	t := l.next()
	switch {
	case t.kind == tkOp && (t.text == "(" || t.text == "[" || t.text == "{"):
		return skipBalanced(l, t)
	case t.kind == tkWord && (t.kw == "EXISTS" || t.kw == "ARRAY"):
		if n := l.next(); n.kind == tkOp && n.text == "(" {
			return skipBalanced(l, n)
		}
	case t.kind == tkWord && t.kw == "UDF":
		l.next() // '.'
		l.next() // name
		if n := l.next(); n.kind == tkOp && n.text == "(" {
			return skipBalanced(l, n)
		}
	case t.kind == tkWord && t.kw == "":
		save := *l
		if n := l.next(); n.kind == tkOp && n.text == "(" {
			return skipBalanced(l, n)
		}
		*l = save
	}
	return t.end
}

// skipBalanced scans to the bracket that closes open (already scanned) and
// returns its end.
func skipBalanced(l *lexer, open token) Pos {
	depth, end := 1, open.end
	for depth > 0 {
		t := l.next()
		if t.kind == tkEOF || t.kind == tkInvalid {
			return end
		}
		end = t.end
		if t.kind == tkOp {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
	}
	return end
}

// parseQuery parses a SELECT statement (the whole query or a subquery):
//
//	query := SELECT [DISTINCT] [TOP count] selection
//	         [FROM from] [WHERE expr] [GROUP BY expr {',' expr}]
//	         [ORDER BY order_item {',' order_item}]
//	         [OFFSET count LIMIT count]
func (p *parser) parseQuery() *Query {
	p.enter()
	defer p.leave()
	start := p.expectKw("SELECT")
	q := &Query{Pos: start.start}
	info := &queryInfo{}
	p.info[q] = info
	if p.acceptKw("DISTINCT") {
		q.Distinct = true
	}
	if p.acceptKw("TOP") {
		q.Top = p.parseCount()
	}
	p.parseSelection(q, info)
	if p.acceptKw("FROM") {
		q.From = p.parseFrom(info)
	}
	if p.acceptKw("WHERE") {
		q.Where = p.parseExpr()
	}
	if p.acceptKw("GROUP") {
		p.expectKw("BY")
		q.GroupBy = p.parseExprList()
	}
	if p.isKw("ORDER") {
		info.orderBy = p.next().span()
		p.expectKw("BY")
		if t := p.tok(); t.kind == tkWord && t.kw == "" && strings.EqualFold(t.text, "RANK") && p.peek().kind == tkWord {
			p.next()
			q.Rank = p.parseExpr()
		} else {
			q.OrderBy = p.parseOrderItems()
		}
	}
	if p.acceptKw("OFFSET") {
		q.Offset = p.parseCount()
		p.expectKw("LIMIT")
		q.Limit = p.parseCount()
	}
	return q
}

// parseCount parses the argument of TOP, OFFSET and LIMIT, a non-negative
// integer or a parameter:
//
//	count := int | @param
func (p *parser) parseCount() Expr {
	t := p.tok()
	switch t.kind {
	case tkParam:
		p.next()
		return &Param{P: t.start, Name: t.text}
	case tkNumber:
		if isCount(t.num) {
			p.next()
			return &Literal{P: t.start, Value: t.num}
		}
	}
	p.fail(t)
	return nil
}

// isCount reports whether v is a non-negative integer.
func isCount(v float64) bool { return v >= 0 && v == math.Trunc(v) }

// parseSelection parses the SELECT list:
//
//	selection   := '*' | VALUE expr | select_item {',' select_item}
//	select_item := expr [[AS] alias]
func (p *parser) parseSelection(q *Query, info *queryInfo) {
	switch {
	case p.isOp("*"):
		info.star = p.next().span()
		q.Select.Star = true
	case p.acceptKw("VALUE"):
		q.Select.Value = p.parseExpr()
	default:
		for {
			start := p.tok().start
			e := p.parseExpr()
			alias := p.parseAlias()
			q.Select.Items = append(q.Select.Items, SelectItem{Expr: e, Alias: alias})
			info.items = append(info.items, span{start, p.prevEnd()})
			if !p.acceptOp(",") {
				break
			}
		}
	}
}

// parseAlias parses an optional alias; it returns "" if there is none:
//
//	alias := [AS] identifier
func (p *parser) parseAlias() string {
	if p.acceptKw("AS") {
		t := p.tok()
		if !isIdent(t) {
			p.fail(t)
		}
		p.next()
		return t.text
	}
	if t := p.tok(); isIdent(t) {
		p.next()
		return t.text
	}
	return ""
}

// parseFrom parses the FROM clause after the FROM keyword:
//
//	from := source {JOIN source}
func (p *parser) parseFrom(info *queryInfo) *From {
	f := &From{}
	start := p.tok().start
	f.Source = p.parseSource()
	info.sources = append(info.sources, span{start, p.prevEnd()})
	for p.isKw("JOIN") {
		start := p.next().start
		f.Joins = append(f.Joins, p.parseSource())
		info.sources = append(info.sources, span{start, p.prevEnd()})
	}
	return f
}

// parseSource parses one FROM or JOIN source:
//
//	source := container_expr [[AS] alias]
//	        | alias IN container_expr
//	        | '(' query ')' [[AS] alias]
//
// Without an alias, a container expression binds its last name: FROM c binds
// c, FROM c.children binds children, FROM c["a"] binds a.
func (p *parser) parseSource() Source {
	t := p.tok()
	s := Source{Pos: t.start}
	switch {
	case t.kind == tkOp && t.text == "(":
		p.next()
		s.Subquery = p.parseQuery()
		p.expectOp(")")
		s.Alias = p.parseAlias()
	case isIdent(t) && p.peek().kind == tkWord && p.peek().kw == "IN":
		p.next()
		p.next()
		s.In = true
		s.Alias = t.text
		s.Expr = p.parseContainerExpr()
	default:
		s.Expr = p.parseContainerExpr()
		s.Alias = p.parseAlias()
		if s.Alias == "" {
			s.Alias = derivedAlias(s.Expr)
		}
	}
	return s
}

// derivedAlias is the name a source without an alias binds.
func derivedAlias(e Expr) string {
	switch x := e.(type) {
	case *Ident:
		return x.Name
	case *Member:
		return x.Name
	case *Index:
		if l, ok := x.Index.(*Literal); ok {
			if s, ok := l.Value.(string); ok {
				return s
			}
		}
	}
	return ""
}

// parseContainerExpr parses the container expression of a source:
//
//	container_expr := (identifier | ROOT) {'.' name | '[' (string | int) ']'}
//
// ROOT is returned as Ident{Name: "root"}.
func (p *parser) parseContainerExpr() Expr {
	t := p.tok()
	var x Expr
	switch {
	case isIdent(t):
		x = &Ident{P: t.start, Name: t.text}
	case t.kind == tkWord && t.kw == "ROOT":
		x = &Ident{P: t.start, Name: "root"}
	default:
		p.fail(t)
	}
	p.next()
	start := t.start
	for {
		switch {
		case p.acceptOp("."):
			n := p.tok()
			if n.kind != tkWord {
				p.fail(n)
			}
			p.next()
			x = &Member{P: start, X: x, Name: n.text}
		case p.acceptOp("["):
			n := p.tok()
			var idx Expr
			switch {
			case n.kind == tkString:
				idx = &Literal{P: n.start, Value: n.str}
			case n.kind == tkNumber && isCount(n.num):
				idx = &Literal{P: n.start, Value: n.num}
			default:
				p.fail(n)
			}
			p.next()
			p.expectOp("]")
			x = &Index{P: start, X: x, Index: idx}
		default:
			return x
		}
	}
}

// parseExprList parses the GROUP BY list:
//
//	expr_list := expr {',' expr}
func (p *parser) parseExprList() []Expr {
	list := []Expr{p.parseExpr()}
	for p.acceptOp(",") {
		list = append(list, p.parseExpr())
	}
	return list
}

// parseOrderItems parses the ORDER BY list:
//
//	order_item := expr [ASC | DESC]
func (p *parser) parseOrderItems() []OrderItem {
	var items []OrderItem
	for {
		it := OrderItem{Expr: p.parseExpr()}
		if p.acceptKw("DESC") {
			it.Desc = true
		} else {
			p.acceptKw("ASC")
		}
		items = append(items, it)
		if !p.acceptOp(",") {
			return items
		}
	}
}

// parseExpr parses a full expression. The conditional and coalesce
// operators bind loosest and associate to the right:
//
//	expr := or_expr ['?' expr ':' expr | '??' expr]
func (p *parser) parseExpr() Expr {
	p.enter()
	defer p.leave()
	x := p.parseOr()
	switch {
	case p.acceptOp("?"):
		then := p.parseExpr()
		p.expectOp(":")
		els := p.parseExpr()
		return &Ternary{P: x.Position(), Cond: x, Then: then, Else: els}
	case p.acceptOp("??"):
		y := p.parseExpr()
		return &Binary{P: x.Position(), Op: "??", L: x, R: y}
	}
	return x
}

// parseOr parses a disjunction:
//
//	or_expr := and_expr {OR and_expr}
func (p *parser) parseOr() Expr {
	x := p.parseAnd()
	for p.acceptKw("OR") {
		y := p.parseAnd()
		x = &Binary{P: x.Position(), Op: "OR", L: x, R: y}
	}
	return x
}

// parseAnd parses a conjunction:
//
//	and_expr := not_expr {AND not_expr}
func (p *parser) parseAnd() Expr {
	x := p.parseNot()
	for p.acceptKw("AND") {
		y := p.parseNot()
		x = &Binary{P: x.Position(), Op: "AND", L: x, R: y}
	}
	return x
}

// parseNot parses a logical negation, which binds looser than comparisons
// and IN/LIKE/BETWEEN:
//
//	not_expr := NOT not_expr | pred_expr
func (p *parser) parseNot() Expr {
	if p.isKw("NOT") {
		t := p.next()
		p.enter()
		defer p.leave()
		x := p.parseNot()
		return &Unary{P: t.start, Op: "NOT", X: x}
	}
	return p.parsePred()
}

// parsePred parses the IN, BETWEEN and LIKE predicates:
//
//	pred_expr := bin_expr { [NOT] IN '(' expr {',' expr} ')'
//	                      | [NOT] BETWEEN bin_expr AND bin_expr
//	                      | [NOT] LIKE bin_expr [ESCAPE bin_expr] }
func (p *parser) parsePred() Expr {
	x := p.parseBinary(1)
	for {
		not := false
		if p.isKw("NOT") {
			k := p.peek()
			if k.kind != tkWord || (k.kw != "IN" && k.kw != "BETWEEN" && k.kw != "LIKE") {
				return x
			}
			p.next()
			not = true
		}
		switch {
		case p.acceptKw("IN"):
			p.expectOp("(")
			list := p.parseExprList()
			p.expectOp(")")
			x = &In{P: x.Position(), X: x, List: list, Not: not}
		case p.acceptKw("BETWEEN"):
			lo := p.parseBinary(1)
			p.expectKw("AND")
			hi := p.parseBinary(1)
			x = &Between{P: x.Position(), X: x, Lo: lo, Hi: hi, Not: not}
		case p.acceptKw("LIKE"):
			l := &Like{P: x.Position(), X: x, Pattern: p.parseBinary(1), Not: not}
			if p.acceptKw("ESCAPE") {
				l.Escape = p.parseBinary(1)
			}
			x = l
		default:
			return x
		}
	}
}

// binaryPrec gives the precedence of the binary operators parsed by
// parseBinary, loosest first. Shifts sit between comparisons and additive
// operators, as in C and JavaScript.
var binaryPrec = map[string]int{
	"||": 1,
	"|":  2,
	"^":  3,
	"&":  4,
	"=":  5, "!=": 5, "<>": 5,
	"<": 6, "<=": 6, ">": 6, ">=": 6,
	"<<": 7, ">>": 7, ">>>": 7,
	"+": 8, "-": 8,
	"*": 9, "/": 9, "%": 9,
}

// parseBinary parses left-associative binary operators whose precedence is
// at least minPrec (precedence climbing):
//
//	bin_expr := unary_expr {bin_op unary_expr}
//	bin_op   := '||' | '|' | '^' | '&' | '=' | '!=' | '<>' | '<' | '<=' | '>' | '>='
//	          | '<<' | '>>' | '>>>' | '+' | '-' | '*' | '/' | '%'
//
// '<>' is returned as "!=".
func (p *parser) parseBinary(minPrec int) Expr {
	x := p.parseUnary()
	for {
		t := p.tok()
		if t.kind != tkOp {
			return x
		}
		prec, ok := binaryPrec[t.text]
		if !ok || prec < minPrec {
			return x
		}
		p.next()
		y := p.parseBinary(prec + 1)
		op := t.text
		if op == "<>" {
			op = "!="
		}
		x = &Binary{P: x.Position(), Op: op, L: x, R: y}
	}
}

// parseUnary parses a prefix operator. NOT in an operand position (1 = NOT
// c.b) takes a not_expr operand, as it does at the start of a condition:
//
//	unary_expr := ('-' | '+' | '~') unary_expr | NOT not_expr | postfix_expr
func (p *parser) parseUnary() Expr {
	t := p.tok()
	switch {
	case t.kind == tkOp && (t.text == "-" || t.text == "+" || t.text == "~"):
		p.next()
		p.enter()
		defer p.leave()
		x := p.parseUnary()
		return &Unary{P: t.start, Op: t.text, X: x}
	case t.kind == tkWord && t.kw == "NOT":
		return p.parseNot()
	}
	return p.parsePostfix(p.parsePrimary())
}

// parsePostfix parses member and index accesses. After a '.', any word is
// a property name, reserved or not (c.value, c.select):
//
//	postfix_expr := primary {'.' name | '[' expr ']'}
func (p *parser) parsePostfix(x Expr) Expr {
	for {
		switch {
		case p.acceptOp("."):
			n := p.tok()
			if n.kind != tkWord {
				p.fail(n)
			}
			p.next()
			x = &Member{P: x.Position(), X: x, Name: n.text}
		case p.acceptOp("["):
			idx := p.parseExpr()
			p.expectOp("]")
			x = &Index{P: x.Position(), X: x, Index: idx}
		default:
			return x
		}
	}
}

// parsePrimary parses an operand:
//
//	primary := number | string | TRUE | FALSE | NULL | UNDEFINED | @param
//	         | identifier | ROOT
//	         | function '(' [expr {',' expr}] ')'
//	         | UDF '.' name '(' [expr {',' expr}] ')'
//	         | '[' [expr {',' expr}] ']'
//	         | '{' [key ':' expr {',' key ':' expr}] '}'
//	         | '(' expr ')' | '(' query ')'
//	         | EXISTS '(' query ')' | ARRAY '(' query ')'
//	key     := name | string
//
// Built-in function names are upper-cased; UDF names are kept as written.
func (p *parser) parsePrimary() Expr {
	t := p.tok()
	switch t.kind {
	case tkNumber:
		p.next()
		return &Literal{P: t.start, Value: t.num}
	case tkString:
		p.next()
		return &Literal{P: t.start, Value: t.str}
	case tkParam:
		p.next()
		return &Param{P: t.start, Name: t.text}
	case tkWord:
		switch t.kw {
		case "":
			p.next()
			if p.isOp("(") {
				args := p.parseArgs()
				return &Call{P: t.start, Name: strings.ToUpper(t.text), Args: args}
			}
			return &Ident{P: t.start, Name: t.text}
		case "ROOT":
			p.next()
			return &Ident{P: t.start, Name: "root"}
		case "TRUE", "FALSE":
			p.next()
			return &Literal{P: t.start, Value: t.kw == "TRUE"}
		case "NULL":
			p.next()
			return &Literal{P: t.start, Value: nil}
		case "UNDEFINED":
			p.next()
			return &Literal{P: t.start, Value: Undefined{}}
		case "UDF":
			p.next()
			p.expectOp(".")
			n := p.tok()
			if n.kind != tkWord {
				p.fail(n)
			}
			p.next()
			args := p.parseArgs()
			return &Call{P: t.start, Name: n.text, Args: args, UDF: true}
		case "EXISTS", "ARRAY":
			p.next()
			p.expectOp("(")
			q := p.parseQuery()
			p.expectOp(")")
			kind := ExistsSubquery
			if t.kw == "ARRAY" {
				kind = ArraySubquery
			}
			return &Subquery{P: t.start, Kind: kind, Query: q}
		}
	case tkOp:
		switch t.text {
		case "(":
			p.next()
			if p.isKw("SELECT") {
				q := p.parseQuery()
				p.expectOp(")")
				return &Subquery{P: t.start, Kind: ScalarSubquery, Query: q}
			}
			x := p.parseExpr()
			p.expectOp(")")
			return x
		case "[":
			p.next()
			a := &ArrayLit{P: t.start}
			if !p.acceptOp("]") {
				a.Elems = p.parseExprList()
				p.expectOp("]")
			}
			return a
		case "{":
			return p.parseObject()
		}
	}
	p.fail(t)
	return nil
}

// parseArgs parses the argument list of a call:
//
//	args := '(' [expr {',' expr}] ')'
func (p *parser) parseArgs() []Expr {
	p.expectOp("(")
	if p.acceptOp(")") {
		return nil
	}
	args := p.parseExprList()
	p.expectOp(")")
	return args
}

// parseObject parses an object constructor. A key is any word, reserved or
// not, or a string:
//
//	object := '{' [key ':' expr {',' key ':' expr}] '}'
func (p *parser) parseObject() Expr {
	o := &ObjectLit{P: p.expectOp("{").start}
	if p.acceptOp("}") {
		return o
	}
	var keys []span
	for {
		k := p.tok()
		var name string
		switch k.kind {
		case tkWord:
			name = k.text
		case tkString:
			name = k.str
		default:
			p.fail(k)
		}
		p.next()
		p.expectOp(":")
		o.Fields = append(o.Fields, Field{Key: name, Value: p.parseExpr()})
		keys = append(keys, k.span())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp("}")
	p.keys[o] = keys
	return o
}
