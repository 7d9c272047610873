package emulator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// Computed properties (reference "search and computed properties" B1-B4):
// a container's computedProperties member names top-level properties whose
// values are not stored in items but computed, at query time, by a query
// of the form SELECT VALUE <expr> FROM c over each item. Queries that
// name one on their root alias (c.cp, c["cp"]) see the expression instead
// (expandComputedProperties); whole-item projections, point reads, the
// read feed and the change feed return stored items as they are, so they
// never hold one.

// MaxComputedProperties is the most computed properties of a container
// (the service's limit, B1).
const MaxComputedProperties = 20

// reservedComputedNames are the names a computed property cannot take: the
// service refuses "reserved system property names such as id, _rid, _ts"
// (B1). The list is the service's system properties of an item, the class
// that sentence names: id, _rid, _ts, _etag, _self and _attachments are
// written by the service on every item, so a computed property could never
// be told from them (_lsn, which only the change feed shows, is left out).
var reservedComputedNames = map[string]bool{
	"id": true, "_rid": true, "_ts": true, "_etag": true, "_self": true, "_attachments": true,
}

// ComputedProperty is one entry of a container's computedProperties.
type ComputedProperty struct {
	Name  string `json:"name"`
	Query string `json:"query"`
}

// computedDefinition is a validated computed property: its expression
// (the SELECT VALUE expression of its query) and the alias of its FROM,
// which stands for the item.
type computedDefinition struct {
	expr  cosmosql.Expr
	alias string
}

// checkComputedProperties validates the computedProperties member of a
// container body (absent or null: none). It refuses only what the service
// documents that it refuses (B1): not an array of {name, query} strings,
// more than MaxComputedProperties, a duplicate or reserved name, and a
// query that computedDefinitionOf refuses. Other members of an entry are
// kept as sent (the JS SDK's type lets a client add them).
func checkComputedProperties(obj *Object) error {
	list, _, err := listMember(obj, "computedProperties", MaxPolicyPaths)
	if err != nil {
		return err
	}
	if len(list) > MaxComputedProperties {
		return BadRequest("The number of computed properties (%d) exceeds the maximum of %d.", len(list), MaxComputedProperties)
	}
	cps := make([]ComputedProperty, 0, len(list))
	names := make(map[string]bool, len(list))
	for _, e := range list {
		o, ok := e.(*Object)
		if !ok {
			return BadRequest("Every computed property must be a JSON object with a 'name' and a 'query'.")
		}
		nv, _ := o.Get("name")
		qv, _ := o.Get("query")
		name, okName := nv.(string)
		query, okQuery := qv.(string)
		if !okName || !okQuery {
			return BadRequest("Every computed property must have a string 'name' and a string 'query'.")
		}
		if reservedComputedNames[name] {
			return BadRequest("The computed property name '%s' is invalid: it is a reserved system property name.", name)
		}
		if names[name] {
			return BadRequest("The computed property name '%s' is specified more than once.", name)
		}
		names[name] = true
		cps = append(cps, ComputedProperty{Name: name, Query: query})
	}
	for _, cp := range cps {
		def, err := computedDefinitionOf(cp)
		if err != nil {
			return err
		}
		var other string
		cosmosql.Walk(def.expr, func(e cosmosql.Expr) bool {
			if n, ok := rootMember(e, def.alias); ok && names[n] && other == "" {
				other = n
			}
			return other == ""
		})
		if other != "" {
			// B1: "cannot reference other computed properties"; a
			// reference to its own name is one too (within a definition a
			// computed name means the computed property, and it cannot be
			// computed from itself)
			return BadRequest("The computed property '%s' is invalid: its query references the computed property '%s'; computed properties cannot reference computed properties.", cp.Name, other)
		}
	}
	return nil
}

// computedDefinitionOf parses and checks the query of a computed property
// against the service's rules (B1): a valid query, SELECT VALUE, a FROM
// that is the root item alone (FROM c, FROM root c, FROM Items c), and no
// JOIN, WHERE, GROUP BY, ORDER BY (or ORDER BY RANK), TOP, DISTINCT,
// OFFSET LIMIT, subquery, aggregate, spatial function (ST_...),
// nondeterministic function (GetCurrentDateTime, GetCurrentTimestamp,
// GetCurrentTicks, RAND) or user-defined function. Parameters are
// allowed: none can be supplied with a container, so they are undefined,
// as an unsupplied parameter of a query is.
func computedDefinitionOf(cp ComputedProperty) (computedDefinition, error) {
	invalid := func(format string, args ...any) error {
		return BadRequest("The computed property '%s' has an invalid query: %s", cp.Name, fmt.Sprintf(format, args...))
	}
	q, err := ParseQuery(cp.Query)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return computedDefinition{}, invalid("%s", e.Message)
		}
		return computedDefinition{}, err
	}
	switch {
	case q.Select.Value == nil:
		return computedDefinition{}, invalid("it must use SELECT VALUE.")
	case q.From == nil || q.From.Source.Subquery != nil || q.From.Source.In:
		return computedDefinition{}, invalid("its FROM clause must name the root item alone (FROM c).")
	case len(q.From.Joins) > 0:
		return computedDefinition{}, invalid("JOIN is not allowed.")
	case q.Where != nil:
		return computedDefinition{}, invalid("WHERE is not allowed.")
	case q.GroupBy != nil:
		return computedDefinition{}, invalid("GROUP BY is not allowed.")
	case q.OrderBy != nil || q.Rank != nil:
		return computedDefinition{}, invalid("ORDER BY is not allowed.")
	case q.Top != nil:
		return computedDefinition{}, invalid("TOP is not allowed.")
	case q.Distinct:
		return computedDefinition{}, invalid("DISTINCT is not allowed.")
	case q.Offset != nil:
		return computedDefinition{}, invalid("OFFSET LIMIT is not allowed.")
	}
	root, ok := q.From.Source.Expr.(*cosmosql.Ident)
	if !ok {
		return computedDefinition{}, invalid("its FROM clause must name the root item alone (FROM c).")
	}
	alias := q.From.Source.Alias
	if alias == "" {
		alias = root.Name
	}
	var refusal error
	cosmosql.Walk(q.Select.Value, func(e cosmosql.Expr) bool {
		switch x := e.(type) {
		case *cosmosql.Subquery:
			refusal = invalid("subqueries (EXISTS, ARRAY and scalar subqueries) are not allowed.")
		case *cosmosql.Call:
			name := strings.ToUpper(x.Name)
			switch {
			case x.UDF:
				refusal = invalid("user-defined functions are not allowed.")
			case cosmosql.IsAggregate(name):
				refusal = invalid("aggregate functions are not allowed.")
			case strings.HasPrefix(name, "ST_"):
				refusal = invalid("spatial functions are not allowed.")
			case name == "GETCURRENTDATETIME" || name == "GETCURRENTTIMESTAMP" || name == "GETCURRENTTICKS" || name == "RAND":
				refusal = invalid("nondeterministic functions are not allowed.")
			}
		}
		return refusal == nil
	})
	if refusal != nil {
		return computedDefinition{}, refusal
	}
	return computedDefinition{expr: q.Select.Value, alias: alias}, nil
}

// rootMember returns name when e is alias.name or alias["name"].
func rootMember(e cosmosql.Expr, alias string) (string, bool) {
	var base cosmosql.Expr
	var name string
	switch x := e.(type) {
	case *cosmosql.Member:
		base, name = x.X, x.Name
	case *cosmosql.Index:
		l, ok := x.Index.(*cosmosql.Literal)
		if !ok {
			return "", false
		}
		s, ok := l.Value.(string)
		if !ok {
			return "", false
		}
		base, name = x.X, s
	default:
		return "", false
	}
	id, ok := base.(*cosmosql.Ident)
	if !ok || id.Name != alias {
		return "", false
	}
	return name, true
}

// computedProperties returns the computed properties of container c, by
// name (nil when it has none), from its parsed definition. Its definition
// was validated when it was stored.
func computedProperties(c Container) (map[string]ComputedProperty, error) {
	d := c.Definition()
	return d.ComputedProperties, d.ComputedPropertiesErr()
}

// expandComputedProperties rewrites q, a query over container c, so that
// each reference to a computed property of c on the root alias (c.cp or
// c["cp"], where c is bound to the container's items: not a JOIN, FROM or
// subquery alias of the same name, which shadows it) is that property's
// expression, with the alias of its definition renamed to the reference's.
// It does so in every clause and in subqueries that refer to the root
// alias. A projected item that is a bare reference (SELECT c.cp) keeps the
// property's name as its output name. Whole-item projections (SELECT *,
// SELECT VALUE c) are left alone: computed properties are not part of the
// item. The rewritten query is translated like any other, so plans,
// partition routing and SQL all see the expressions.
func expandComputedProperties(c Container, q *cosmosql.Query) error {
	cps, err := computedProperties(c)
	if err != nil || cps == nil {
		return err
	}
	x := &computedExpander{cps: cps}
	x.query(q, nil, true)
	return nil
}

// computedExpander holds the state of one expandComputedProperties.
type computedExpander struct {
	cps map[string]ComputedProperty
}

// aliasScope maps the aliases bound at one query level to whether they
// stand for the container's items (the root).
type aliasScope struct {
	root   map[string]bool
	parent *aliasScope
}

// isRoot reports whether name, looked up from the innermost level out,
// stands for the container's items.
func (s *aliasScope) isRoot(name string) bool {
	for ; s != nil; s = s.parent {
		if r, ok := s.root[name]; ok {
			return r
		}
	}
	return false
}

// query expands the references of q, whose enclosing scope is outer;
// containerLevel is true when q's first FROM source names the container
// (the top-level query, and a FROM subquery in first position of one), as
// in the parser's checks.
func (x *computedExpander) query(q *cosmosql.Query, outer *aliasScope, containerLevel bool) {
	s := &aliasScope{root: map[string]bool{}, parent: outer}
	if q.From != nil {
		srcs := []*cosmosql.Source{&q.From.Source}
		for i := range q.From.Joins {
			srcs = append(srcs, &q.From.Joins[i])
		}
		for i, src := range srcs {
			first := containerLevel && i == 0
			isRoot, alias := false, src.Alias
			switch {
			case src.Subquery != nil:
				x.query(src.Subquery, s, first)
			case first:
				// FROM c, FROM root r: the container's items. FROM c.a x
				// and FROM x IN c.a read inside them from the container
				// name, which is the root for that expression.
				if id, ok := src.Expr.(*cosmosql.Ident); ok && !src.In {
					isRoot = true
					if alias == "" {
						alias = id.Name
					}
				} else if root := rootIdentOf(src.Expr); root != nil {
					src.Expr = x.expr(src.Expr, &aliasScope{root: map[string]bool{root.Name: true}})
				}
			default:
				src.Expr = x.expr(src.Expr, s)
			}
			if alias != "" {
				s.root[alias] = isRoot
			}
		}
	}
	sel := &q.Select
	sel.Value = x.expr(sel.Value, s)
	for i := range sel.Items {
		it := &sel.Items[i]
		if it.Alias == "" {
			if name, ok := x.reference(it.Expr, s); ok {
				it.Alias = name
			}
		}
		it.Expr = x.expr(it.Expr, s)
	}
	q.Where = x.expr(q.Where, s)
	for i := range q.GroupBy {
		q.GroupBy[i] = x.expr(q.GroupBy[i], s)
	}
	for i := range q.OrderBy {
		o := &q.OrderBy[i]
		if name, ok := x.reference(o.Expr, s); ok {
			// a composite index can name the computed property's path
			o.Computed = name
		}
		o.Expr = x.expr(o.Expr, s)
	}
	q.Rank = x.expr(q.Rank, s)
}

// rootIdentOf returns the identifier a path expression starts from.
func rootIdentOf(e cosmosql.Expr) *cosmosql.Ident {
	for {
		switch x := e.(type) {
		case *cosmosql.Ident:
			return x
		case *cosmosql.Member:
			e = x.X
		case *cosmosql.Index:
			e = x.X
		default:
			return nil
		}
	}
}

// reference returns the computed property e names, when e is one on an
// alias that stands for the root in s.
func (x *computedExpander) reference(e cosmosql.Expr, s *aliasScope) (string, bool) {
	var alias string
	switch y := e.(type) {
	case *cosmosql.Member:
		id, ok := y.X.(*cosmosql.Ident)
		if !ok {
			return "", false
		}
		alias = id.Name
	case *cosmosql.Index:
		id, ok := y.X.(*cosmosql.Ident)
		if !ok {
			return "", false
		}
		alias = id.Name
	default:
		return "", false
	}
	name, ok := rootMember(e, alias)
	if !ok || !s.isRoot(alias) {
		return "", false
	}
	_, ok = x.cps[name]
	return name, ok
}

// expr returns e with its references expanded.
func (x *computedExpander) expr(e cosmosql.Expr, s *aliasScope) cosmosql.Expr {
	return cosmosql.Rewrite(e, func(e cosmosql.Expr) (cosmosql.Expr, bool) {
		if sub, ok := e.(*cosmosql.Subquery); ok {
			x.query(sub.Query, s, false)
			return sub, false
		}
		name, ok := x.reference(e, s)
		if !ok {
			return e, true
		}
		return x.expansion(name, rootIdentOf(e).Name), false
	})
}

// expansion returns a fresh copy of the expression of computed property
// name, its alias renamed to alias and its parameters undefined.
func (x *computedExpander) expansion(name, alias string) cosmosql.Expr {
	def, err := computedDefinitionOf(x.cps[name])
	if err != nil {
		// stored definitions were validated: one that no longer passes
		// (a rule added since) is undefined rather than a failed query
		return &cosmosql.Literal{Value: cosmosql.Undefined{}}
	}
	return cosmosql.Rewrite(def.expr, func(e cosmosql.Expr) (cosmosql.Expr, bool) {
		switch y := e.(type) {
		case *cosmosql.Ident:
			if y.Name == def.alias {
				return &cosmosql.Ident{P: y.P, Name: alias}, false
			}
		case *cosmosql.Param:
			return &cosmosql.Literal{P: y.P, Value: cosmosql.Undefined{}}, false
		}
		return e, true
	})
}
