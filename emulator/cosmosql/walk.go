package cosmosql

import (
	"strconv"
	"strings"
)

// Walk calls fn for e and then, if fn returned true, for each of e's
// children in source order (pre-order). It descends into subqueries: after a
// *Subquery node it visits the expressions of its query as WalkQuery does.
// A nil e is not visited.
func Walk(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	switch x := e.(type) {
	case *Member:
		Walk(x.X, fn)
	case *Index:
		Walk(x.X, fn)
		Walk(x.Index, fn)
	case *Unary:
		Walk(x.X, fn)
	case *Binary:
		Walk(x.L, fn)
		Walk(x.R, fn)
	case *Between:
		Walk(x.X, fn)
		Walk(x.Lo, fn)
		Walk(x.Hi, fn)
	case *In:
		Walk(x.X, fn)
		for _, y := range x.List {
			Walk(y, fn)
		}
	case *Like:
		Walk(x.X, fn)
		Walk(x.Pattern, fn)
		Walk(x.Escape, fn)
	case *Ternary:
		Walk(x.Cond, fn)
		Walk(x.Then, fn)
		Walk(x.Else, fn)
	case *Call:
		for _, y := range x.Args {
			Walk(y, fn)
		}
	case *ArrayLit:
		for _, y := range x.Elems {
			Walk(y, fn)
		}
	case *ObjectLit:
		for _, f := range x.Fields {
			Walk(f.Value, fn)
		}
	case *Subquery:
		WalkQuery(x.Query, fn)
	}
}

// WalkQuery calls Walk for every expression of q in source order: TOP, the
// selection, the FROM container expressions (whose first identifier may be
// the container name rather than an alias) and FROM subqueries, WHERE,
// GROUP BY, ORDER BY, OFFSET and LIMIT. A nil q is ignored.
func WalkQuery(q *Query, fn func(Expr) bool) {
	if q == nil {
		return
	}
	Walk(q.Top, fn)
	Walk(q.Select.Value, fn)
	for _, it := range q.Select.Items {
		Walk(it.Expr, fn)
	}
	if q.From != nil {
		for _, s := range q.From.Sources() {
			Walk(s.Expr, fn)
			WalkQuery(s.Subquery, fn)
		}
	}
	Walk(q.Where, fn)
	for _, e := range q.GroupBy {
		Walk(e, fn)
	}
	for _, o := range q.OrderBy {
		Walk(o.Expr, fn)
	}
	Walk(q.Rank, fn)
	Walk(q.Offset, fn)
	Walk(q.Limit, fn)
}

// walkLevel is Walk without descending into subqueries: it visits the
// expressions that belong to one query level. fn still sees the *Subquery
// node itself.
func walkLevel(e Expr, fn func(Expr) bool) {
	Walk(e, func(x Expr) bool {
		ok := fn(x)
		if _, sub := x.(*Subquery); sub {
			return false
		}
		return ok
	})
}

// Sources returns the first source followed by the JOINed ones.
func (f *From) Sources() []Source {
	return append([]Source{f.Source}, f.Joins...)
}

// IsAggregate reports whether name (any case) is an aggregate function:
// COUNT, COUNTIF, SUM, AVG, MIN, MAX, MAKELIST or MAKESET.
func IsAggregate(name string) bool {
	switch strings.ToUpper(name) {
	case "COUNT", "COUNTIF", "SUM", "AVG", "MIN", "MAX", "MAKELIST", "MAKESET":
		return true
	}
	return false
}

// isAggregateCall reports whether e is a call of a built-in aggregate.
func isAggregateCall(e Expr) (*Call, bool) {
	c, ok := e.(*Call)
	if ok && !c.UDF && IsAggregate(c.Name) {
		return c, true
	}
	return nil, false
}

// HasAggregates reports whether the selection of q calls an aggregate
// function at q's own level (aggregates inside subqueries belong to those
// subqueries). Such a query yields one row per group, or a single row
// without GROUP BY. Parse rejects aggregates in WHERE, GROUP BY and ORDER BY.
func (q *Query) HasAggregates() bool {
	found := false
	check := func(e Expr) {
		walkLevel(e, func(x Expr) bool {
			if _, ok := isAggregateCall(x); ok {
				found = true
			}
			return !found
		})
	}
	check(q.Select.Value)
	for _, it := range q.Select.Items {
		check(it.Expr)
	}
	return found
}

// OutputName returns the property name under which the item appears in each
// result object: the alias if there is one; else, for a property path, its
// last property name (c.address.city → "city", c["a"] → "a", c → "c");
// else "$n". n is the 1-based ordinal of the item among the items of its
// selection that get a generated name (SELECT "a", c.x, "b" names them $1,
// x, $2); Selection.OutputNames computes it for every item.
func (s SelectItem) OutputName(n int) string {
	if s.Alias != "" {
		return s.Alias
	}
	if name, ok := pathName(s.Expr); ok {
		return name
	}
	return "$" + strconv.Itoa(n)
}

// OutputNames returns the output name of each item of the selection (see
// SelectItem.OutputName); nil for SELECT * and SELECT VALUE.
func (s Selection) OutputNames() []string {
	if len(s.Items) == 0 {
		return nil
	}
	names := make([]string, len(s.Items))
	n := 0
	for i, it := range s.Items {
		if it.Alias == "" {
			if _, ok := pathName(it.Expr); !ok {
				n++
			}
		}
		names[i] = it.OutputName(n)
	}
	return names
}

// pathName returns the name a projected path expression takes.
func pathName(e Expr) (string, bool) {
	switch x := e.(type) {
	case *Ident:
		return x.Name, true
	case *Member:
		return x.Name, true
	case *Index:
		if l, ok := x.Index.(*Literal); ok {
			if s, ok := l.Value.(string); ok {
				return s, true
			}
		}
	}
	return "", false
}

// Equal reports whether a and b are the same expression, ignoring
// positions. x.name and x["name"] are equal, as they are in the language.
func Equal(a, b Expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if n, ok := memberName(a); ok {
		m, ok := memberName(b)
		return ok && n == m && Equal(memberBase(a), memberBase(b))
	}
	switch x := a.(type) {
	case *Literal:
		y, ok := b.(*Literal)
		return ok && literalEqual(x.Value, y.Value)
	case *Ident:
		y, ok := b.(*Ident)
		return ok && x.Name == y.Name
	case *Param:
		y, ok := b.(*Param)
		return ok && x.Name == y.Name
	case *Index:
		y, ok := b.(*Index)
		return ok && Equal(x.X, y.X) && Equal(x.Index, y.Index)
	case *Unary:
		y, ok := b.(*Unary)
		return ok && x.Op == y.Op && Equal(x.X, y.X)
	case *Binary:
		y, ok := b.(*Binary)
		return ok && x.Op == y.Op && Equal(x.L, y.L) && Equal(x.R, y.R)
	case *Between:
		y, ok := b.(*Between)
		return ok && x.Not == y.Not && Equal(x.X, y.X) && Equal(x.Lo, y.Lo) && Equal(x.Hi, y.Hi)
	case *In:
		y, ok := b.(*In)
		return ok && x.Not == y.Not && Equal(x.X, y.X) && equalList(x.List, y.List)
	case *Like:
		y, ok := b.(*Like)
		return ok && x.Not == y.Not && Equal(x.X, y.X) && Equal(x.Pattern, y.Pattern) && Equal(x.Escape, y.Escape)
	case *Ternary:
		y, ok := b.(*Ternary)
		return ok && Equal(x.Cond, y.Cond) && Equal(x.Then, y.Then) && Equal(x.Else, y.Else)
	case *Call:
		y, ok := b.(*Call)
		return ok && x.Name == y.Name && x.UDF == y.UDF && equalList(x.Args, y.Args)
	case *ArrayLit:
		y, ok := b.(*ArrayLit)
		return ok && equalList(x.Elems, y.Elems)
	case *ObjectLit:
		y, ok := b.(*ObjectLit)
		if !ok || len(x.Fields) != len(y.Fields) {
			return false
		}
		for i := range x.Fields {
			if x.Fields[i].Key != y.Fields[i].Key || !Equal(x.Fields[i].Value, y.Fields[i].Value) {
				return false
			}
		}
		return true
	case *Subquery:
		y, ok := b.(*Subquery)
		return ok && x.Kind == y.Kind && x.Query.String() == y.Query.String()
	}
	return false
}

// memberName returns the property name of x.name or x["name"].
func memberName(e Expr) (string, bool) {
	switch x := e.(type) {
	case *Member:
		return x.Name, true
	case *Index:
		if l, ok := x.Index.(*Literal); ok {
			if s, ok := l.Value.(string); ok {
				return s, true
			}
		}
	}
	return "", false
}

func memberBase(e Expr) Expr {
	switch x := e.(type) {
	case *Member:
		return x.X
	case *Index:
		return x.X
	}
	return nil
}

func literalEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || (x != x && y != y))
	case Undefined:
		_, ok := b.(Undefined)
		return ok
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

func equalList(a, b []Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Rewrite replaces e, and then its children, by what fn returns for them,
// in pre-order, and returns e's replacement. fn returns the replacement of
// the node it is given (the node itself to keep it) and whether to rewrite
// the replacement's children too. The children of a *Subquery are a
// statement, not expressions: Rewrite does not enter them (fn, which sees
// the *Subquery node, handles its query, whose scope it knows). Nodes are
// changed in place. A nil e is returned as is, fn not called.
func Rewrite(e Expr, fn func(Expr) (Expr, bool)) Expr {
	if e == nil {
		return nil
	}
	e, descend := fn(e)
	if !descend || e == nil {
		return e
	}
	switch x := e.(type) {
	case *Member:
		x.X = Rewrite(x.X, fn)
	case *Index:
		x.X = Rewrite(x.X, fn)
		x.Index = Rewrite(x.Index, fn)
	case *Unary:
		x.X = Rewrite(x.X, fn)
	case *Binary:
		x.L = Rewrite(x.L, fn)
		x.R = Rewrite(x.R, fn)
	case *Between:
		x.X = Rewrite(x.X, fn)
		x.Lo = Rewrite(x.Lo, fn)
		x.Hi = Rewrite(x.Hi, fn)
	case *In:
		x.X = Rewrite(x.X, fn)
		for i := range x.List {
			x.List[i] = Rewrite(x.List[i], fn)
		}
	case *Like:
		x.X = Rewrite(x.X, fn)
		x.Pattern = Rewrite(x.Pattern, fn)
		x.Escape = Rewrite(x.Escape, fn)
	case *Ternary:
		x.Cond = Rewrite(x.Cond, fn)
		x.Then = Rewrite(x.Then, fn)
		x.Else = Rewrite(x.Else, fn)
	case *Call:
		for i := range x.Args {
			x.Args[i] = Rewrite(x.Args[i], fn)
		}
	case *ArrayLit:
		for i := range x.Elems {
			x.Elems[i] = Rewrite(x.Elems[i], fn)
		}
	case *ObjectLit:
		for i := range x.Fields {
			x.Fields[i].Value = Rewrite(x.Fields[i].Value, fn)
		}
	}
	return e
}
