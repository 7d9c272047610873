package sqlgen

import (
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// hasAggregates reports whether the SELECT list uses an aggregate.
func hasAggregates(q *cosmosql.Query) bool {
	found := false
	visit := func(e cosmosql.Expr) {
		cosmosql.Walk(e, func(x cosmosql.Expr) bool {
			if c, ok := x.(*cosmosql.Call); ok && !c.UDF && cosmosql.IsAggregate(strings.ToUpper(c.Name)) {
				found = true
			}
			_, sub := x.(*cosmosql.Subquery)
			return !found && !sub
		})
	}
	if q.Select.Value != nil {
		visit(q.Select.Value)
	}
	for _, it := range q.Select.Items {
		visit(it.Expr)
	}
	return found
}

// aggregate translates a query whose SELECT list aggregates the whole set
// (no GROUP BY): one row, no paging.
func (t *translator) aggregate(q *cosmosql.Query, sc *scope) (*Statement, error) {
	// ORDER BY orders the single result: nothing to do (the gateway's
	// plan for SELECT VALUE AVG(c.x) FROM c ORDER BY c.x drops it too)
	st := &Statement{Single: true, Limit: 1}
	from, where := sc.from, sc.where
	order := append([]string{"r.seq"}, sc.ords...)
	cols, _, err := t.project(q, st, (&aggTranslator{t: t, order: order}).val, false)
	if err != nil {
		return nil, err
	}
	st.SQL = "SELECT 0::bigint, " + strings.Join(cols, ", ") + " FROM " + strings.Join(from, " ") + " WHERE " + strings.Join(where, " AND ")
	st.Args = t.args
	return st, nil
}

// aggTranslator translates a SELECT expression in which aggregate calls
// stand for their value over the set; outside aggregates only literals
// (and operators combining aggregates) may appear. order lists the SQL
// expressions giving the input order of the rows (MAKELIST and MAKESET
// keep it).
type aggTranslator struct {
	t     *translator
	order []string
}

func (a *aggTranslator) val(e cosmosql.Expr) (string, error) {
	switch x := e.(type) {
	case *cosmosql.Call:
		name := strings.ToUpper(x.Name)
		if !x.UDF && cosmosql.IsAggregate(name) {
			if len(x.Args) != 1 {
				return "", unsupported("%s with %d arguments", name, len(x.Args))
			}
			v, err := a.t.val(x.Args[0])
			if err != nil {
				return "", err
			}
			return aggregateSQL(name, v, a.order), nil
		}
	case *cosmosql.Literal, *cosmosql.Param:
		return a.t.val(e)
	}
	if s, ok, err := a.t.constructor(e, a.val); ok {
		return s, err
	}
	return "", unsupported("mixing aggregates with per-item values in SELECT (without GROUP BY)")
}

// aggregateSQL is the SQL aggregate for a Cosmos aggregate over the jsonb
// values v (NULL = undefined, skipped by every aggregate):
// COUNT counts defined values; COUNTIF the values that are true (the
// gateway's statistics query counts FullTextContains hits with it); SUM and AVG are undefined when any defined
// value is not a number (SUM of nothing is 0, AVG of nothing undefined);
// MIN and MAX follow the type order and are undefined when an array or
// object is among the values. MAKELIST is the array of the defined values
// in input order (order: the SQL expressions of the input order, none for
// any order), duplicates kept; MAKESET keeps the first occurrence of each
// value (deep equality, 1 equals 1.0); both are [] over no value.
func aggregateSQL(name, v string, order []string) string {
	notNumber := "count(*) FILTER (WHERE (" + v + ") IS NOT NULL AND jsonb_typeof(" + v + ") <> 'number') > 0"
	composite := "count(*) FILTER (WHERE jsonb_typeof(" + v + ") IN ('array', 'object')) > 0"
	switch name {
	case "COUNT":
		return "to_jsonb(count(" + v + "))"
	case "COUNTIF":
		return "to_jsonb(count(*) FILTER (WHERE (" + v + ") = 'true'::jsonb))"
	case "SUM":
		return "(CASE WHEN " + notNumber + " THEN NULL ELSE cosmos.f8(coalesce(sum(cosmos.num(" + v + ")), 0)) END)"
	case "AVG":
		return "(CASE WHEN " + notNumber + " THEN NULL ELSE cosmos.f8(avg(cosmos.num(" + v + "))) END)"
	case "MIN":
		return "(CASE WHEN " + composite + " THEN NULL ELSE (array_agg(" + v + " ORDER BY cosmos.type_rank(" + v + "), " + v + ") FILTER (WHERE (" + v + ") IS NOT NULL))[1] END)"
	case "MAKELIST", "MAKESET":
		by := ""
		if len(order) > 0 {
			by = " ORDER BY " + strings.Join(order, ", ")
		}
		list := "coalesce(jsonb_agg(" + v + by + ") FILTER (WHERE (" + v + ") IS NOT NULL), '[]'::jsonb)"
		if name == "MAKELIST" {
			return list
		}
		// (an aggregate whose arguments are all of the outer level is
		// computed there: the subselect only dedupes the list)
		return "(SELECT coalesce(jsonb_agg(d.e ORDER BY d.o), '[]'::jsonb) FROM (SELECT x.e, min(x.o) AS o FROM jsonb_array_elements(" + list +
			") WITH ORDINALITY AS x(e, o) GROUP BY x.e) AS d)"
	default: // MAX
		return "(CASE WHEN " + composite + " THEN NULL ELSE (array_agg(" + v + " ORDER BY cosmos.type_rank(" + v + ") DESC, " + v + " DESC) FILTER (WHERE (" + v + ") IS NOT NULL))[1] END)"
	}
}

// constructor translates an object or array constructor whose members are
// translated by val; ok is false for any other expression. Every
// translator (per row, over aggregates, over groups) shares it.
func (t *translator) constructor(e cosmosql.Expr, val func(cosmosql.Expr) (string, error)) (string, bool, error) {
	switch x := e.(type) {
	case *cosmosql.ObjectLit:
		s := "'{}'::jsonb"
		for _, f := range x.Fields {
			v, err := val(f.Value)
			if err != nil {
				return "", true, err
			}
			s = "cosmos.obj_put(" + s + ", " + t.bind(f.Key) + "::text, " + v + ")"
		}
		return s, true, nil
	case *cosmosql.ArrayLit:
		if len(x.Elems) == 0 {
			return "'[]'::jsonb", true, nil
		}
		parts := make([]string, len(x.Elems))
		for i, el := range x.Elems {
			v, err := val(el)
			if err != nil {
				return "", true, err
			}
			parts[i] = v
		}
		// Undefined elements become null, as the hosted service returned
		// (reference §6.2; the older docs said they are dropped). A SQL
		// function takes at most 100 arguments: longer literals are built
		// in chunks and concatenated.
		var chunks []string
		for len(parts) > 0 {
			n := min(len(parts), 100)
			chunks = append(chunks, "jsonb_build_array("+strings.Join(parts[:n], ", ")+")")
			parts = parts[n:]
		}
		return "(" + strings.Join(chunks, " || ") + ")", true, nil
	}
	return "", false, nil
}
