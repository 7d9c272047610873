package sqlgen

import (
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// User-defined functions (udf.name(args)) run in JavaScript, outside
// PostgreSQL, so a query that calls them is translated into two
// statements that the caller (pgstore) runs batch after batch:
//
//   - the scan statement (UDFStage.Batch nil) reads the candidate rows in
//     the query's order after the cursor: everything of the query except
//     the conjuncts of WHERE that call a UDF (so those that do not keep
//     their index use), at most PageSize rows, each with its keyset
//     columns and the JSON text of every UDF argument (ModeUDFArgs; NULL
//     when undefined);
//   - the evaluation statement (UDFStage.Batch set) is the whole query
//     restricted to the rows of one batch, joined with the results the
//     caller computed for them (one jsonb column per call), so that
//     comparisons, projections and the rest keep their SQL semantics. It
//     has the query's order, no cursor and no LIMIT (the batch bounds it).
//
// A query whose order or groups span batches (ORDER BY on a UDF, GROUP
// BY, DISTINCT, aggregates: NeedsWholeSet) is evaluated over its whole set
// instead (UDFStage.Whole): the scan reads the candidate rows in storage
// order, and one evaluation statement over all of them is the query's own
// page, with its cursor and LIMIT.
//
// UDF calls are allowed in the SELECT list (or VALUE), WHERE, ORDER BY,
// GROUP BY and aggregate arguments of a query without FROM subquery, not
// inside subqueries, FROM/JOIN sources or another UDF's arguments: each of
// these is a 400 that says so.

// UDFStage selects the statement of a query with UDF calls.
type UDFStage struct {
	// Batch is nil for the scan statement; for the evaluation statement
	// it holds the rows of one batch and the results of the calls.
	Batch *UDFBatch
	// Whole selects the whole-set evaluation (see NeedsWholeSet): the scan
	// reads the candidate rows in storage order, and the evaluation
	// statement, given every candidate row in one batch, is the query's own
	// page (its cursor, LIMIT, ORDER BY, GROUP BY, DISTINCT, aggregates).
	Whole bool
}

// NeedsWholeSet reports a query calling UDFs that cannot be evaluated
// batch by batch in the scan's order: ORDER BY on a UDF, GROUP BY,
// DISTINCT or aggregates. Its candidate rows are read whole (within the
// caller's bounds) and evaluated by one statement per page.
func NeedsWholeSet(q *cosmosql.Query) bool {
	if q.GroupBy != nil || q.Distinct || hasAggregates(q) {
		return true
	}
	for _, o := range q.OrderBy {
		if hasUDF(o.Expr) {
			return true
		}
	}
	return false
}

// UDFBatch is the rows of one batch (in scan order) and what the UDF
// calls returned for them.
type UDFBatch struct {
	// Seqs are the rows' seq column values.
	Seqs []int64
	// Ords[j][i] is the j-th join ordinal of row i (Statement.Joins of
	// them).
	Ords [][]int64
	// Results[k][i] is the JSON text of call k (UDFCalls order) for row i,
	// nil when undefined.
	Results [][]*string
}

// UDFCalls returns the UDF calls of q in the order of the scan
// statement's argument columns and of UDFBatch.Results.
func UDFCalls(q *cosmosql.Query) []*cosmosql.Call { return cosmosql.UDFCalls(q) }

// errUDFOrderBy refuses ORDER BY on a UDF in the batch-by-batch
// evaluation (see the package comment above).
var errUDFOrderBy = &UnsupportedError{What: "ORDER BY on a user-defined function (its values are computed outside PostgreSQL, so continuation tokens could not stay exact)"}

// checkUDFPlacement refuses UDF calls where the two statements cannot
// evaluate them (whole: the whole-set evaluation, see NeedsWholeSet).
func checkUDFPlacement(q *cosmosql.Query, calls []*cosmosql.Call, whole bool) error {
	if !whole && NeedsWholeSet(q) {
		for _, o := range q.OrderBy {
			if hasUDF(o.Expr) {
				return errUDFOrderBy
			}
		}
		return unsupported("user-defined functions in a query with GROUP BY, DISTINCT or aggregates evaluated batch by batch")
	}
	if q.From == nil && hasAggregates(q) {
		return unsupported("user-defined functions in aggregates without FROM")
	}
	if q.From != nil && q.From.Source.Subquery != nil {
		return unsupported("user-defined functions in a query over a FROM subquery")
	}
	if q.Rank != nil {
		return errRank
	}
	top := map[*cosmosql.Call]bool{}
	nested := false
	visit := func(e cosmosql.Expr) {
		cosmosql.Walk(e, func(x cosmosql.Expr) bool {
			switch y := x.(type) {
			case *cosmosql.Subquery:
				return false
			case *cosmosql.Call:
				if y.UDF {
					top[y] = true
					for _, a := range y.Args {
						nested = nested || hasUDF(a)
					}
					return false
				}
			}
			return true
		})
	}
	for _, e := range udfPlaces(q) {
		visit(e)
	}
	if nested {
		return unsupported("a user-defined function call in the arguments of another")
	}
	for _, c := range calls {
		if !top[c] {
			return unsupported("user-defined functions inside subqueries or FROM and JOIN sources (udf.%s)", c.Name)
		}
	}
	return nil
}

// hasUDF reports a UDF call in e (subqueries included).
func hasUDF(e cosmosql.Expr) bool {
	found := false
	cosmosql.Walk(e, func(x cosmosql.Expr) bool {
		if c, ok := x.(*cosmosql.Call); ok && c.UDF {
			found = true
		}
		return !found
	})
	return found
}

// conjuncts flattens the top-level AND chain of e.
func conjuncts(e cosmosql.Expr) []cosmosql.Expr {
	if b, ok := e.(*cosmosql.Binary); ok && strings.EqualFold(b.Op, "AND") {
		return append(conjuncts(b.L), conjuncts(b.R)...)
	}
	return []cosmosql.Expr{e}
}

// SplitWhere splits a WHERE clause into the conjuncts that call no UDF
// (evaluated by the scan statement, with index use) and those that do
// (evaluated by the evaluation statement). A row passes the clause exactly
// when it passes every conjunct of both.
func SplitWhere(where cosmosql.Expr) (plain, withUDF []cosmosql.Expr) {
	if where == nil {
		return nil, nil
	}
	for _, c := range conjuncts(where) {
		if hasUDF(c) {
			withUDF = append(withUDF, c)
		} else {
			plain = append(plain, c)
		}
	}
	return plain, withUDF
}

// udfWhere translates the WHERE clause of a UDF query's statement into
// where: the plain conjuncts (and their index terms) in the scan, the UDF
// conjuncts in the evaluation.
func (t *translator) udfWhere(where cosmosql.Expr, out []string) ([]string, error) {
	plain, withUDF := SplitWhere(where)
	list := withUDF
	if t.udfScan {
		list = plain
	}
	for _, c := range list {
		w, err := t.val(c)
		if err != nil {
			return nil, err
		}
		out = append(out, "("+w+") = 'true'::jsonb")
		if t.udfScan {
			terms, _ := t.sargable(c) // the predicate stays: exact or not
			out = append(out, terms...)
		}
	}
	return out, nil
}

// udfJoin is the batch of an evaluation statement as a row source:
// unnest over the bound arrays, AS u(seq, o1.., v0..). ords are the join
// ordinal columns it must match; from is "" for a query without FROM.
func (t *translator) udfJoin(ords []string, noFrom bool) (string, error) {
	b := t.udfBatch
	if len(b.Ords) != len(ords) || len(b.Results) != len(t.udfIndex) {
		return "", errBadCursor
	}
	arrays := []string{t.bind(b.Seqs) + "::bigint[]"}
	names := []string{"seq"}
	on := []string{"u.seq = r.seq"}
	for j, o := range b.Ords {
		n := "o" + strconv.Itoa(j+1)
		arrays = append(arrays, t.bind(o)+"::bigint[]")
		names = append(names, n)
		on = append(on, "u."+n+" = "+ords[j])
	}
	for k, r := range b.Results {
		arrays = append(arrays, t.bind(jsonsWithoutNUL(r))+"::text[]::jsonb[]")
		names = append(names, "v"+strconv.Itoa(k))
	}
	src := "unnest(" + strings.Join(arrays, ", ") + ") AS u(" + strings.Join(names, ", ") + ")"
	if noFrom {
		return src, nil
	}
	return "JOIN " + src + " ON " + strings.Join(on, " AND "), nil
}

// udfGuards returns, for the UDF calls in a branch of ?: or on the right
// of ??, the SQL condition under which the query uses their value (the
// branch is taken, the left of ?? is undefined), so that the caller calls
// them only then, as the service evaluates lazily: c.x != null ?
// udf.f(c.x) : 0 never calls f with null. A condition that itself calls a
// UDF cannot be known in the scan: the calls under it are made for every
// row.
func (t *translator) udfGuards() (map[*cosmosql.Call]string, error) {
	guards := map[*cosmosql.Call]string{}
	var err error
	var visit func(e cosmosql.Expr, conds []string)
	branch := func(cond cosmosql.Expr, sql func(string) [2]string, a, b cosmosql.Expr, conds []string) {
		visit(cond, conds)
		if hasUDF(cond) {
			visit(a, conds)
			visit(b, conds)
			return
		}
		c, e := t.val(cond)
		if e != nil {
			err = e
			return
		}
		g := sql(c)
		visit(a, append(conds[:len(conds):len(conds)], g[0]))
		visit(b, append(conds[:len(conds):len(conds)], g[1]))
	}
	visit = func(e cosmosql.Expr, conds []string) {
		cosmosql.Walk(e, func(x cosmosql.Expr) bool {
			if err != nil {
				return false
			}
			switch y := x.(type) {
			case *cosmosql.Subquery:
				return false
			case *cosmosql.Ternary:
				branch(y.Cond, func(c string) [2]string {
					return [2]string{"(" + c + ") = 'true'::jsonb", "(" + c + ") IS DISTINCT FROM 'true'::jsonb"}
				}, y.Then, y.Else, conds)
				return false
			case *cosmosql.Binary:
				if y.Op == "??" {
					// the left is evaluated whatever; the right only when
					// the left is undefined
					branch(y.L, func(c string) [2]string { return [2]string{"TRUE", "(" + c + ") IS NULL"} }, nil, y.R, conds)
					return false
				}
			case *cosmosql.Call:
				if y.UDF {
					if len(conds) > 0 {
						guards[y] = "(" + strings.Join(conds, " AND ") + ")"
					}
					return false // (arguments hold no UDF call)
				}
			}
			return true
		})
	}
	for _, e := range udfPlaces(t.udfQuery) {
		visit(e, nil)
	}
	return guards, err
}

// udfPlaces returns the expressions of q where UDF calls may appear: the
// selection, WHERE, GROUP BY and ORDER BY (nil ones included).
func udfPlaces(q *cosmosql.Query) []cosmosql.Expr {
	out := []cosmosql.Expr{q.Select.Value}
	for _, it := range q.Select.Items {
		out = append(out, it.Expr)
	}
	out = append(out, q.Where)
	out = append(out, q.GroupBy...)
	for _, o := range q.OrderBy {
		out = append(out, o.Expr)
	}
	return out
}

// udfCall translates a UDF call: its result column in the evaluation
// statement.
func (t *translator) udfCall(c *cosmosql.Call) (string, error) {
	k, ok := t.udfIndex[c]
	if !ok || t.udfScan {
		// placement was checked: a call outside the SELECT list and WHERE,
		// or one the scan statement should not evaluate
		return "", unsupported("user-defined functions in this position (udf.%s)", c.Name)
	}
	return "u.v" + strconv.Itoa(k), nil
}

// udfArgColumns translates the arguments of every call into the scan
// statement's output columns (JSON text, NULL when undefined) and records
// their number per call in st.UDFArgs (st.UDFCols in all).
func (t *translator) udfArgColumns(st *Statement, calls []*cosmosql.Call) ([]string, error) {
	st.Mode = ModeUDFArgs
	guards, err := t.udfGuards()
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, c := range calls {
		for _, a := range c.Args {
			if id, ok := a.(*cosmosql.Ident); ok && t.binds[id.Name].root && !t.in.RawDocuments {
				// the stored document, rendered as a query returns it
				cols = append(cols, t.documentText())
				continue
			}
			s, err := t.render(a, t.val, true)
			if err != nil {
				return nil, err
			}
			cols = append(cols, s)
		}
		st.UDFArgs = append(st.UDFArgs, len(c.Args))
		g, ok := guards[c]
		if ok {
			cols = append(cols, "(CASE WHEN "+g+" THEN 'true' END)")
		}
		st.UDFGuards = append(st.UDFGuards, ok)
	}
	if len(cols) == 0 {
		// a statement needs an output column after the keyset
		cols = []string{"NULL::text"}
	}
	st.UDFCols = len(cols)
	return cols, nil
}

// noFromUDF translates the scan or evaluation statement of a query without
// FROM: one row, its seq 0.
func (t *translator) noFromUDF(q *cosmosql.Query, st *Statement) (*Statement, error) {
	var cols []string
	from, where := "", []string{"TRUE"}
	var err error
	if t.udfScan {
		if cols, err = t.udfArgColumns(st, t.udfCalls); err != nil {
			return nil, err
		}
	} else {
		var v string
		if cols, v, err = t.project(q, st, t.val, true); err != nil {
			return nil, err
		}
		if v != "" {
			where = append(where, "("+v+") IS NOT NULL")
		}
		j, err := t.udfJoin(nil, true)
		if err != nil {
			return nil, err
		}
		from = " FROM " + j
	}
	if where, err = t.udfWhere(q.Where, where); err != nil {
		return nil, err
	}
	st.SQL = "SELECT 0::bigint, " + strings.Join(cols, ", ") + from + " WHERE " + strings.Join(where, " AND ")
	st.Args = t.args
	return st, nil
}

// documentText is the JSON text of the row's document as SELECT * returns
// it: the stored text (members in their stored order) followed by the
// system properties (see emulator.Item.AppendJSON).
func (t *translator) documentText() string {
	rid := "cosmos.doc_rid(" + t.collRIDArg() + ", r.seq)"
	return "((CASE WHEN length(r.body) > 2 THEN left(r.body, -1) || ',' ELSE '{' END) || '\"_rid\":' || to_jsonb(" + rid + ")::text" +
		" || ',\"_self\":' || to_jsonb(" + t.selfPrefixArg() + " || " + rid + " || '/')::text || ',\"_etag\":' || to_jsonb(r.etag)::text" +
		" || ',\"_attachments\":\"attachments/\",\"_ts\":' || r.ts::text || '}')"
}
