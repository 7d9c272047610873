package sqlgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// Subqueries are correlated (reference §6.6): their FROM iterates values
// of the enclosing row (t IN c.tags, c.children ch, or the outer aliases'
// arrays). Each becomes a SQL subselect producing one jsonb column v:
//
//	EXISTS(q)  true iff q yields at least one (defined) value
//	ARRAY(q)   the JSON array of q's values, in order
//	(q)        q's single value (the first, if several), undefined if none

// subselect translates a subquery into "SELECT v, ord FROM ..." (v never
// undefined for SELECT VALUE; ord orders the results).
func (t *translator) subselect(q *cosmosql.Query) (string, error) {
	t.depth++
	saved := make(map[string]binding, len(t.binds))
	for k, v := range t.binds {
		saved[k] = v
	}
	defer func() {
		t.binds = saved
		t.depth--
	}()
	if q.GroupBy != nil {
		return "", unsupported("GROUP BY inside a correlated subquery")
	}
	if q.Rank != nil {
		return "", errRank
	}
	var from, where, ords []string
	// star is the value of the (only) source, for SELECT *
	star := ""
	if q.From != nil {
		for i, src := range q.From.Sources() {
			name := fmt.Sprintf("sq%d_%d", t.depth, i)
			star = name + ".v"
			if src.Subquery != nil {
				// (query) x: one tuple per (defined) value of the nested
				// subquery, in its order; it may read the sources before it
				sub, err := t.subselect(src.Subquery)
				if err != nil {
					return "", err
				}
				from = append(from, "LATERAL (SELECT s.v, row_number() OVER () AS o FROM ("+sub+") AS s WHERE s.v IS NOT NULL) AS "+name)
				ords = append(ords, name+".o")
				if src.Alias != "" {
					t.binds[src.Alias] = binding{expr: name + ".v"}
				}
				continue
			}
			base, err := t.val(src.Expr)
			if err != nil {
				return "", err
			}
			if src.In {
				from = append(from, "jsonb_array_elements(cosmos.arr("+base+")) WITH ORDINALITY AS "+name+"(v, o)")
				t.binds[src.Alias] = binding{expr: name + ".v"}
				ords = append(ords, name+".o")
				continue
			}
			// a single value: one tuple when defined (OFFSET 0: see
			// fenced)
			from = append(from, "LATERAL (SELECT "+base+" AS v"+fenced+") AS "+name)
			where = append(where, name+".v IS NOT NULL")
			if src.Alias != "" {
				t.binds[src.Alias] = binding{expr: name + ".v"}
			}
		}
	}
	if q.Where != nil {
		w, err := t.val(q.Where)
		if err != nil {
			return "", err
		}
		where = append(where, "("+w+") = 'true'::jsonb")
	}
	var v string
	agg := hasAggregates(q)
	switch {
	case q.Select.Star:
		// the value of the single source (the parser refuses SELECT *
		// without FROM and over JOIN), never undefined
		v = star
	case q.Select.Value != nil && agg:
		a := &aggTranslator{t: t, order: ords}
		x, err := a.val(q.Select.Value)
		if err != nil {
			return "", err
		}
		v = x
	case q.Select.Value != nil:
		x, err := t.val(q.Select.Value)
		if err != nil {
			return "", err
		}
		// evaluated once, in a lateral subselect, for the result and the
		// test that drops undefined results
		name := fmt.Sprintf("sv%d", t.depth)
		from = append(from, "LATERAL (SELECT "+x+" AS v"+fenced+") AS "+name)
		v = name + ".v"
		where = append(where, v+" IS NOT NULL")
	default:
		v = "'{}'::jsonb"
		names := q.Select.OutputNames()
		for i, it := range q.Select.Items {
			var x string
			var err error
			if agg {
				x, err = (&aggTranslator{t: t, order: ords}).val(it.Expr)
			} else {
				x, err = t.val(it.Expr)
			}
			if err != nil {
				return "", err
			}
			v = "cosmos.obj_put(" + v + ", " + t.bind(names[i]) + "::text, " + x + ")"
		}
	}
	sql := "SELECT " + v + " AS v"
	if len(from) > 0 {
		sql += " FROM " + strings.Join(from, " CROSS JOIN ")
	}
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	if agg {
		return sql, nil
	}
	var order []string
	for _, o := range q.OrderBy {
		x, err := t.val(o.Expr)
		if err != nil {
			return "", err
		}
		dir := ""
		if o.Desc {
			dir = " DESC"
		}
		order = append(order, "cosmos.type_rank("+x+")"+dir, "("+x+")"+dir)
	}
	order = append(order, ords...)
	sql += orderClause(order)
	if q.Distinct {
		// the first occurrence of each value, in the subquery's order
		sql = "SELECT v FROM (SELECT d.v, row_number() OVER () AS o FROM (" + sql + ") AS d) AS d GROUP BY v ORDER BY min(o)"
	}
	total, offset, err := t.limits(q)
	if err != nil {
		return "", err
	}
	if total >= 0 {
		sql += " LIMIT " + t.bind(total)
	}
	if offset > 0 {
		sql += " OFFSET " + t.bind(offset)
	}
	return sql, nil
}

// fenced ends a one-row subselect whose column the enclosing query reads
// more than once: OFFSET 0 keeps PostgreSQL's planner from pulling the
// subselect up into it, which would copy the column's expression into
// each place that reads it, and so double the plan at every level of
// nested subqueries (a statement linear in the query, planned
// exponentially: 32 nested scalar subqueries exhausted the server's
// memory).
const fenced = " OFFSET 0"

// orderClause is " ORDER BY terms", or "" without terms.
func orderClause(terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	return " ORDER BY " + strings.Join(terms, ", ")
}

// subquery translates a subquery expression.
func (t *translator) subquery(x *cosmosql.Subquery) (string, error) {
	sql, err := t.subselect(x.Query)
	if err != nil {
		return "", err
	}
	switch x.Kind {
	case cosmosql.ExistsSubquery:
		return "to_jsonb(EXISTS (" + sql + "))", nil
	case cosmosql.ArraySubquery:
		return "(SELECT coalesce(jsonb_agg(s.v), '[]'::jsonb) FROM (" + sql + ") AS s)", nil
	default:
		return "(SELECT s.v FROM (" + sql + ") AS s LIMIT 1)", nil
	}
}

// derivedTable translates the subquery of FROM (query) alias: a complete
// query over the container (partition, expiry, DISTINCT, GROUP BY,
// aggregates, ORDER BY, TOP and OFFSET/LIMIT included), evaluated whole,
// whose results become rows (seq, v) numbered in the inner query's order.
// The outer query pages over seq, so pages of such a query continue by
// position within the inner results.
func (t *translator) derivedTable(q *cosmosql.Query) (string, error) {
	t.depth++
	savedBinds, savedIn := t.binds, t.in
	t.binds = map[string]binding{}
	t.in.Cursor = nil
	t.in.PageSize = math.MaxInt32 - 1
	defer func() {
		t.binds, t.in = savedBinds, savedIn
		t.depth--
	}()
	st, err := t.query(q)
	if err != nil {
		return "", err
	}
	// The inner statement's columns: seq, the join ordinals, a (rank,
	// value) pair per sort key, then the output columns of its mode.
	first := 1 + st.Joins + 2*st.SortKeys
	outs := 1
	switch st.Mode {
	case ModeDocument:
		outs = 5 // pk, id, body, ts, etag
	case ModeObject:
		outs = len(st.Names)
	}
	cols := make([]string, first+outs)
	for i := range cols {
		cols[i] = "c" + strconv.Itoa(i)
	}
	col := func(i int) string { return "q.c" + strconv.Itoa(first+i) }
	var v string
	switch st.Mode {
	case ModeDocument:
		v = col(2) + "::jsonb"
		if !t.in.RawDocuments {
			v = t.withSystemProperties(v, "q.c0", col(4), col(3))
		}
	case ModeValue:
		v = col(0) + "::jsonb"
	default:
		v = "'{}'::jsonb"
		for i, name := range st.Names {
			v = "cosmos.obj_put(" + v + ", " + t.bind(name) + "::text, " + col(i) + "::jsonb)"
		}
	}
	return "SELECT row_number() OVER () AS seq, " + v + " AS v FROM (" + st.SQL + ") AS q(" + strings.Join(cols, ", ") + ") WHERE " + v + " IS NOT NULL", nil
}
