package cosmosql

import (
	"math"
	"strings"
)

// checker runs the static semantic checks on a parsed query. It fails with
// a bailout like the parser. It rewrites unbound NaN and Infinity
// identifiers into number literals holding NaN and +Inf (see Parse).
//
// Scoping: a query's FROM binds its aliases in order; each JOIN source and
// every expression of the query can use the aliases bound before it and
// those of the enclosing queries (subqueries are correlated). The first
// source of the top-level query, and of a subquery that is itself the first
// FROM source of such a query, names the container: its first identifier is
// not resolved. Any other source must start from an alias in scope.
type checker struct {
	p     *parser
	joins int
}

// scope is the set of FROM aliases of one query level.
type scope struct {
	names  map[string]bool
	parent *scope
}

func (s *scope) lookup(name string) bool {
	for ; s != nil; s = s.parent {
		if s.names[name] {
			return true
		}
	}
	return false
}

func (c *checker) fail(err *SyntaxError) { panic(bailout{err}) }

// query checks q, whose enclosing scope is outer. containerLevel is true
// when q's first source names the container.
func (c *checker) query(q *Query, outer *scope, containerLevel bool) {
	info := c.p.info[q]
	s := &scope{names: map[string]bool{}, parent: outer}

	if q.From != nil {
		for i, src := range q.From.Sources() {
			sp := info.sources[i]
			if i > 0 {
				c.joins++
				if c.joins > MaxJoins {
					c.fail(errorAt(CodeTooManyJoins, sp,
						"The number of JOINs in the query exceeds the maximum of %d.", MaxJoins))
				}
			}
			if src.Subquery != nil {
				c.query(src.Subquery, s, containerLevel && i == 0)
			} else if !(containerLevel && i == 0) {
				root := rootIdent(src.Expr)
				if root != nil && !s.lookup(root.Name) {
					c.fail(errorAt(CodeUnresolvedIdentifier, c.p.spanOf(root),
						"Identifier '%s' could not be resolved.", root.Name))
				}
			}
			if src.Alias != "" {
				if s.names[src.Alias] {
					c.fail(errorAt(CodeDuplicateAlias, sp,
						"The input set name or alias '%s' is specified more than once in the FROM clause.", src.Alias))
				}
				s.names[src.Alias] = true
			}
		}
	}

	sel := &q.Select
	if sel.Star {
		switch {
		case q.From == nil:
			c.fail(errorAt(CodeSelectStar, info.star, "'SELECT *' is not valid if FROM clause is omitted."))
		case len(q.From.Joins) > 0:
			c.fail(errorAt(CodeSelectStar, info.star, "'SELECT *' is only valid with a single input set."))
		case len(q.GroupBy) > 0:
			c.fail(errorAt(CodeSelectStar, info.star, "'SELECT *' is not valid with GROUP BY."))
		}
	}
	if sel.Value != nil {
		sel.Value = c.expr(sel.Value, s)
	}
	for i := range sel.Items {
		sel.Items[i].Expr = c.expr(sel.Items[i].Expr, s)
	}
	seen := map[string]bool{}
	for i, n := range sel.OutputNames() {
		if seen[n] {
			c.fail(errorAt(CodeDuplicateProperty, info.items[i],
				"The object property name '%s' is specified more than once.", n))
		}
		seen[n] = true
	}

	if q.Where != nil {
		q.Where = c.expr(q.Where, s)
		c.noAggregates(q.Where, "WHERE")
	}
	for i := range q.GroupBy {
		q.GroupBy[i] = c.expr(q.GroupBy[i], s)
		c.noAggregates(q.GroupBy[i], "GROUP BY")
		walkLevel(q.GroupBy[i], func(x Expr) bool {
			if _, ok := x.(*Subquery); ok {
				c.fail(errorAt(CodeInvalidGroupBy, c.p.spanOf(x), "Subqueries are not allowed in the GROUP BY clause."))
			}
			return true
		})
	}
	if len(q.OrderBy) > 0 && len(q.GroupBy) > 0 {
		c.fail(errorAt(CodeGroupByOrderBy, info.orderBy, "ORDER BY is not supported in combination with GROUP BY."))
	}
	if q.Rank != nil {
		q.Rank = c.expr(q.Rank, s)
		c.rank(q.Rank)
	}
	for i := range q.OrderBy {
		q.OrderBy[i].Expr = c.expr(q.OrderBy[i].Expr, s)
		c.noAggregates(q.OrderBy[i].Expr, "ORDER BY")
	}
	others := append(q.selectExprs(), q.Where)
	others = append(others, q.GroupBy...)
	for _, o := range q.OrderBy {
		others = append(others, o.Expr)
	}
	if q.From != nil {
		for _, src := range q.From.Sources() {
			others = append(others, src.Expr)
		}
	}
	for _, e := range others {
		c.noScoring(e)
	}

	selected := q.selectExprs()
	for _, e := range selected {
		c.nestedAggregates(e)
	}
	if len(q.GroupBy) > 0 || q.HasAggregates() {
		for _, e := range selected {
			c.grouped(e, q.GroupBy)
		}
	}
}

// isScoring reports whether e is a call of the built-in function name
// (upper case), in any case.
func isScoring(e Expr, name string) bool {
	call, ok := e.(*Call)
	return ok && !call.UDF && strings.EqualFold(call.Name, name)
}

// noScoring fails on FullTextScore and RRF calls in e (at this level):
// they are only allowed as ORDER BY RANK's scoring function (reference
// search §A2, the service's codes and texts).
func (c *checker) noScoring(e Expr) {
	if e == nil {
		return
	}
	walkLevel(e, func(x Expr) bool {
		switch {
		case isScoring(x, "FULLTEXTSCORE"):
			c.fail(errorAt(CodeFullTextScorePlacement, c.p.spanOf(x), "The FullTextScore function is only allowed in the ORDER BY RANK clause."))
		case isScoring(x, "RRF"):
			c.fail(errorAt(CodeUnknownFunction, c.p.spanOf(x), "'%s' is not a recognized built-in function name.", x.(*Call).Name))
		}
		return true
	})
}

// rank checks the expression after ORDER BY RANK: FullTextScore,
// VectorDistance, or RRF whose arguments are two or more of them,
// optionally followed by the weights (an array or a parameter).
func (c *checker) rank(e Expr) {
	bad := func() {
		c.fail(errorAt(CodeRankExpression, c.p.spanOf(e), "The ORDER BY RANK clause must be followed by a VectorDistance and/or a FullTextScore function call."))
	}
	component := func(x Expr) bool {
		if !isScoring(x, "FULLTEXTSCORE") && !isScoring(x, "VECTORDISTANCE") {
			return false
		}
		for _, a := range x.(*Call).Args {
			c.noScoring(a)
		}
		return true
	}
	switch {
	case isScoring(e, "RRF"):
		args := e.(*Call).Args
		if n := len(args); n > 0 {
			switch args[n-1].(type) {
			case *ArrayLit, *Param:
				args = args[:n-1]
			}
		}
		if len(args) < 2 {
			bad()
		}
		for _, a := range args {
			if !component(a) {
				bad()
			}
		}
	case !component(e):
		bad()
	}
}

// selectExprs returns the expressions of q's selection.
func (q *Query) selectExprs() []Expr {
	if q.Select.Value != nil {
		return []Expr{q.Select.Value}
	}
	var list []Expr
	for _, it := range q.Select.Items {
		list = append(list, it.Expr)
	}
	return list
}

// rootIdent returns the identifier a container expression starts from.
func rootIdent(e Expr) *Ident {
	for {
		switch x := e.(type) {
		case *Ident:
			return x
		case *Member:
			e = x.X
		case *Index:
			e = x.X
		default:
			return nil
		}
	}
}

// expr resolves the identifiers of e in scope s, checks object constructors
// for duplicate keys and checks subqueries. It returns e, or its
// replacement when e is an unbound NaN or Infinity: the number literal
// NaN or +Inf (a bound one is the FROM alias of that name).
func (c *checker) expr(e Expr, s *scope) Expr {
	switch x := e.(type) {
	case *Ident:
		if s.lookup(x.Name) {
			return x
		}
		switch x.Name {
		case "NaN":
			return &Literal{P: x.P, Value: math.NaN()}
		case "Infinity":
			return &Literal{P: x.P, Value: math.Inf(1)}
		}
		c.fail(errorAt(CodeUnresolvedIdentifier, c.p.spanOf(x), "Identifier '%s' could not be resolved.", x.Name))
	case *Member:
		x.X = c.expr(x.X, s)
	case *Index:
		x.X = c.expr(x.X, s)
		x.Index = c.expr(x.Index, s)
	case *Unary:
		x.X = c.expr(x.X, s)
	case *Binary:
		x.L = c.expr(x.L, s)
		x.R = c.expr(x.R, s)
	case *Between:
		x.X = c.expr(x.X, s)
		x.Lo = c.expr(x.Lo, s)
		x.Hi = c.expr(x.Hi, s)
	case *In:
		x.X = c.expr(x.X, s)
		for i := range x.List {
			x.List[i] = c.expr(x.List[i], s)
		}
	case *Like:
		x.X = c.expr(x.X, s)
		x.Pattern = c.expr(x.Pattern, s)
		if x.Escape != nil {
			x.Escape = c.expr(x.Escape, s)
		}
	case *Ternary:
		x.Cond = c.expr(x.Cond, s)
		x.Then = c.expr(x.Then, s)
		x.Else = c.expr(x.Else, s)
	case *Call:
		for i := range x.Args {
			x.Args[i] = c.expr(x.Args[i], s)
		}
	case *ArrayLit:
		for i := range x.Elems {
			x.Elems[i] = c.expr(x.Elems[i], s)
		}
	case *ObjectLit:
		keys := c.p.keys[x]
		seen := map[string]bool{}
		for i := range x.Fields {
			k := x.Fields[i].Key
			if seen[k] {
				c.fail(errorAt(CodeDuplicateProperty, keys[i],
					"The object property name '%s' is specified more than once.", k))
			}
			seen[k] = true
			x.Fields[i].Value = c.expr(x.Fields[i].Value, s)
		}
	case *Subquery:
		c.query(x.Query, s, false)
	}
	return e
}

// noAggregates fails if e calls an aggregate at this query level.
func (c *checker) noAggregates(e Expr, clause string) {
	walkLevel(e, func(x Expr) bool {
		if call, ok := isAggregateCall(x); ok {
			c.fail(errorAt(CodeAggregatePlacement, c.p.spanOf(call),
				"The aggregate function '%s' is not allowed in the %s clause.", call.Name, clause))
		}
		return true
	})
}

// nestedAggregates fails if an aggregate's argument calls an aggregate at
// this query level.
func (c *checker) nestedAggregates(e Expr) {
	walkLevel(e, func(x Expr) bool {
		call, ok := isAggregateCall(x)
		if !ok {
			return true
		}
		for _, a := range call.Args {
			walkLevel(a, func(y Expr) bool {
				if _, ok := isAggregateCall(y); ok {
					c.fail(errorAt(CodeNestedAggregate, c.p.spanOf(y),
						"Cannot perform an aggregate function on an expression containing an aggregate."))
				}
				return true
			})
		}
		return false
	})
}

// grouped fails if e, an expression of the selection of an aggregate or
// GROUP BY query, references a property outside an aggregate and outside
// every GROUP BY expression. Subqueries are not inspected.
func (c *checker) grouped(e Expr, keys []Expr) {
	walkLevel(e, func(x Expr) bool {
		for _, k := range keys {
			if Equal(x, k) {
				return false
			}
		}
		if _, ok := isAggregateCall(x); ok {
			return false
		}
		if isPath(x) {
			sp := c.p.spanOf(x)
			c.fail(errorAt(CodeUngroupedReference, sp,
				"Property reference '%s' is invalid in the select list because it is not contained in either an aggregate function or the GROUP BY clause.",
				clip(c.p.src[sp.start:sp.end])))
		}
		return true
	})
}

// isPath reports whether e is an alias followed by member accesses and
// constant indexes (c, c.a, c.a[0], c["b"]).
func isPath(e Expr) bool {
	for {
		switch x := e.(type) {
		case *Ident:
			return true
		case *Member:
			e = x.X
		case *Index:
			if _, ok := x.Index.(*Literal); !ok {
				return false
			}
			e = x.X
		default:
			return false
		}
	}
}
