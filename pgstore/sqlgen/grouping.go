package sqlgen

import (
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// limits evaluates TOP and OFFSET/LIMIT: the total number of results
// (-1: unbounded) and the offset of the first page.
func (t *translator) limits(q *cosmosql.Query) (total, offset int64, err error) {
	total = -1
	if q.Top != nil {
		if total, err = t.intArg(q.Top, "TOP"); err != nil {
			return 0, 0, err
		}
	}
	if q.Limit != nil {
		n, err := t.intArg(q.Limit, "LIMIT")
		if err != nil {
			return 0, 0, err
		}
		if total < 0 || n < total {
			total = n
		}
		if offset, err = t.intArg(q.Offset, "OFFSET"); err != nil {
			return 0, 0, err
		}
	}
	return total, offset, nil
}

// offsetPage sets st's page for a statement paged by position: the
// query's TOP/OFFSET/LIMIT, then the cursor's rows already taken, skipped
// after the query's OFFSET. It returns the rows to fetch (fetchCount) and
// the offset to skip.
func (t *translator) offsetPage(q *cosmosql.Query, st *Statement) (fetch int, offset int64, err error) {
	total, offset, err := t.limits(q)
	if err != nil {
		return 0, 0, err
	}
	if t.in.Cursor != nil {
		st.Taken = t.in.Cursor.Taken
		offset += st.Taken
	}
	t.pageLimit(st, total)
	return fetchCount(st), offset, nil
}

// fetchCount makes st peek one row past its page unless the page is the
// last (Capped), and returns how many rows the statement fetches.
func fetchCount(st *Statement) int {
	st.Peek = !st.Capped
	if st.Peek {
		return st.Limit + 1
	}
	return st.Limit
}

// pageLimit applies the total bound to the page size.
func (t *translator) pageLimit(st *Statement, total int64) {
	st.Limit = t.in.PageSize
	if total >= 0 {
		remaining := max(total-st.Taken, 0)
		if int64(st.Limit) >= remaining {
			st.Limit = int(remaining)
			st.Capped = true
		}
	}
}

// groupBy translates GROUP BY: the grouping keys and the aggregates'
// arguments are computed per row in an inner query, grouped outside.
// Undefined is a group of its own (its key is left out of the output).
// Groups come sorted by key; pages continue by position.
func (t *translator) groupBy(q *cosmosql.Query, sc *scope) (*Statement, error) {
	var inner []string
	for i, g := range q.GroupBy {
		v, err := t.val(g)
		if err != nil {
			return nil, err
		}
		inner = append(inner, "("+v+") AS k"+strconv.Itoa(i))
	}
	gt := &groupTranslator{t: t, keys: q.GroupBy, ords: len(sc.ords)}
	if q.Select.Star {
		return nil, unsupported("SELECT * with GROUP BY")
	}
	st := &Statement{Peek: true}
	cols, _, err := t.project(q, st, gt.val, false)
	if err != nil {
		return nil, err
	}
	inner = append(inner, gt.args...)
	if gt.ordered {
		// the input order, for MAKELIST and MAKESET
		for i, o := range append([]string{"r.seq"}, sc.ords...) {
			inner = append(inner, o+" AS o"+strconv.Itoa(i))
		}
	}
	var keys, order []string
	for i := range q.GroupBy {
		k := "s.k" + strconv.Itoa(i)
		keys = append(keys, k)
		order = append(order, "cosmos.type_rank("+k+")", k)
	}
	fetch, offset, err := t.offsetPage(q, st)
	if err != nil {
		return nil, err
	}
	st.SQL = "SELECT 0::bigint, " + strings.Join(cols, ", ") + " FROM (SELECT " + strings.Join(inner, ", ") + " FROM " +
		strings.Join(sc.from, " ") + " WHERE " + strings.Join(sc.where, " AND ") + ") s GROUP BY " + strings.Join(keys, ", ") +
		" ORDER BY " + strings.Join(order, ", ") + " LIMIT " + t.bind(fetch) + " OFFSET " + t.bind(offset)
	st.Args = t.args
	st.OffsetPaging = true
	return st, nil
}

// groupTranslator translates SELECT expressions of a GROUP BY query over the
// grouped rows s: group keys, aggregates of per-row arguments, literals.
type groupTranslator struct {
	t    *translator
	keys []cosmosql.Expr
	args []string // inner columns holding aggregate arguments
	// ordered is set when an aggregate keeps the input order (MAKELIST,
	// MAKESET): the inner rows carry it in columns o0 (seq), o1... (the
	// iterations' ordinals); order names them.
	ordered bool
	order   []string
	ords    int // the number of iteration ordinals of the scope
}

func (g *groupTranslator) val(e cosmosql.Expr) (string, error) {
	for i, k := range g.keys {
		if cosmosql.Equal(e, k) {
			return "s.k" + strconv.Itoa(i), nil
		}
	}
	switch x := e.(type) {
	case *cosmosql.Call:
		name := strings.ToUpper(x.Name)
		if !x.UDF && cosmosql.IsAggregate(name) {
			if len(x.Args) != 1 {
				return "", unsupported("%s with %d arguments", name, len(x.Args))
			}
			v, err := g.t.val(x.Args[0])
			if err != nil {
				return "", err
			}
			col := "a" + strconv.Itoa(len(g.args))
			g.args = append(g.args, "("+v+") AS "+col)
			if (name == "MAKELIST" || name == "MAKESET") && !g.ordered {
				g.ordered = true
				for i := 0; i <= g.ords; i++ {
					g.order = append(g.order, "s.o"+strconv.Itoa(i))
				}
			}
			return aggregateSQL(name, "s."+col, g.order), nil
		}
		f, ok := functions[name]
		if !ok || x.UDF {
			return "", unsupported("the function %s over groups", x.Name)
		}
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			v, err := g.val(a)
			if err != nil {
				return "", err
			}
			args[i] = v
		}
		if len(args) < f.min || (f.max >= 0 && len(args) > f.max) {
			return "", &UnsupportedError{What: "calling " + name + " with this number of arguments"}
		}
		return f.gen(g.t, args), nil
	case *cosmosql.Literal, *cosmosql.Param:
		return g.t.val(e)
	}
	if s, ok, err := g.t.constructor(e, g.val); ok {
		return s, err
	}
	return "", unsupported("this expression over groups (SELECT may hold GROUP BY expressions, aggregates and literals)")
}

// distinct translates SELECT DISTINCT: the projected value (an object for
// a projection list) is computed per row and grouped; results come sorted
// by value (or by the ORDER BY, see distinctOrdered) and pages continue
// after the last value, so every distinct value is returned once even
// when items are written between pages.
func (t *translator) distinct(q *cosmosql.Query, sc *scope) (*Statement, error) {
	if hasAggregates(q) {
		return nil, unsupported("DISTINCT with aggregates")
	}
	var v string
	st := &Statement{SortKeys: 1}
	switch {
	case q.Select.Value != nil:
		x, err := t.val(q.Select.Value)
		if err != nil {
			return nil, err
		}
		v, st.Mode = x, ModeValue
	case q.Select.Star:
		return nil, unsupported("SELECT DISTINCT *")
	default:
		v = "'{}'::jsonb"
		names := q.Select.OutputNames()
		for i, it := range q.Select.Items {
			x, err := t.val(it.Expr)
			if err != nil {
				return nil, err
			}
			v = "cosmos.obj_put(" + v + ", " + t.bind(names[i]) + "::text, " + x + ")"
		}
		st.Mode = ModeValue
	}
	dir := "ASC"
	switch {
	case len(q.OrderBy) == 0:
	case len(q.OrderBy) == 1 && q.Select.Value != nil && cosmosql.Equal(q.OrderBy[0].Expr, q.Select.Value):
		if q.OrderBy[0].Desc {
			dir = "DESC"
		}
	default:
		return t.distinctOrdered(q, sc, v, st)
	}
	where := append([]string{}, sc.where...)
	where = append(where, "("+v+") IS NOT NULL")
	total, offset, err := t.limits(q)
	if err != nil {
		return nil, err
	}
	if c := t.in.Cursor; c != nil {
		if len(c.Ranks) != 1 || len(c.Vals) != 1 {
			return nil, errBadCursor
		}
		st.Taken = c.Taken
		op := " > "
		if dir == "DESC" {
			op = " < "
		}
		r, cv := t.bind(c.Ranks[0]), t.jsonArg(c.Vals[0])
		where = append(where, "(cosmos.type_rank("+v+")"+op+r+" OR (cosmos.type_rank("+v+") = "+r+" AND ("+v+")"+op+cv+"))")
		offset = 0
	}
	t.pageLimit(st, total)
	fetch := fetchCount(st)
	st.SQL = "SELECT 0::bigint, cosmos.type_rank(s.v), s.v::text, s.v::text FROM (SELECT (" + v + ") AS v FROM " + strings.Join(sc.from, " ") +
		" WHERE " + strings.Join(where, " AND ") + ") s GROUP BY s.v ORDER BY cosmos.type_rank(s.v) " + dir + ", s.v " + dir +
		" LIMIT " + t.bind(fetch) + " OFFSET " + t.bind(offset)
	st.Args = t.args
	return st, nil
}

// distinctOrdered translates SELECT DISTINCT with an ORDER BY other than
// the DISTINCT VALUE expression itself, v being the projected value and
// st the statement of distinct: each distinct value comes once, at the
// place of its first row in the ORDER BY order (rows whose sort values
// are undefined are left out, as without DISTINCT), ties between values
// broken by the value (SELECT DISTINCT c.x FROM c ORDER BY c.x, whose
// value is {"x": ...}, or SELECT DISTINCT VALUE c.a FROM c ORDER BY c.b).
// Pages continue after the last (sort values, value).
func (t *translator) distinctOrdered(q *cosmosql.Query, sc *scope, v string, st *Statement) (*Statement, error) {
	if len(q.OrderBy) > 1 {
		if err := t.compositeOrder(q); err != nil {
			return nil, err
		}
	}
	inner := []string{"(" + v + ") AS v"}
	where := append([]string{}, sc.where...)
	where = append(where, "("+v+") IS NOT NULL")
	var window, order, cols []string
	type key struct{ rank, val, dir string }
	var keys []key
	for i, o := range q.OrderBy {
		x, err := t.val(o.Expr)
		if err != nil {
			return nil, err
		}
		dir := t.orderDir(o)
		k := "k" + strconv.Itoa(i)
		inner = append(inner, "("+x+") AS "+k)
		where = append(where, "("+x+") IS NOT NULL")
		window = append(window, "cosmos.type_rank(s."+k+") "+dir, "s."+k+" "+dir)
		keys = append(keys, key{"cosmos.type_rank(d." + k + ")", "d." + k, dir})
	}
	keys = append(keys, key{"cosmos.type_rank(d.v)", "d.v", "ASC"})
	for _, k := range keys {
		order = append(order, k.rank+" "+k.dir, k.val+" "+k.dir)
		cols = append(cols, k.rank, k.val+"::text")
	}
	st.SortKeys = len(keys)
	total, offset, err := t.limits(q)
	if err != nil {
		return nil, err
	}
	outer := []string{"d.rn = 1"}
	if c := t.in.Cursor; c != nil {
		if len(c.Ranks) != len(keys) || len(c.Vals) != len(keys) {
			return nil, errBadCursor
		}
		st.Taken = c.Taken
		offset = 0
		// keyset: (rank, value) pairs strictly after the cursor's
		var ors []string
		for i, k := range keys {
			var ands []string
			for j := 0; j < i; j++ {
				ands = append(ands, keys[j].rank+" = "+t.bind(c.Ranks[j]), keys[j].val+" = "+t.jsonArg(c.Vals[j]))
			}
			op := " > "
			if k.dir == "DESC" {
				op = " < "
			}
			r := t.bind(c.Ranks[i])
			ands = append(ands, "("+k.rank+op+r+" OR ("+k.rank+" = "+r+" AND "+k.val+op+t.jsonArg(c.Vals[i])+"))")
			ors = append(ors, "("+strings.Join(ands, " AND ")+")")
		}
		outer = append(outer, "("+strings.Join(ors, " OR ")+")")
	}
	t.pageLimit(st, total)
	fetch := fetchCount(st)
	st.SQL = "SELECT 0::bigint, " + strings.Join(cols, ", ") + ", d.v::text FROM (SELECT s.*, row_number() OVER (PARTITION BY s.v ORDER BY " +
		strings.Join(window, ", ") + ") AS rn FROM (SELECT " + strings.Join(inner, ", ") + " FROM " + strings.Join(sc.from, " ") +
		" WHERE " + strings.Join(where, " AND ") + ") s) d WHERE " + strings.Join(outer, " AND ") + " ORDER BY " + strings.Join(order, ", ") +
		" LIMIT " + t.bind(fetch) + " OFFSET " + t.bind(offset)
	st.Args = t.args
	return st, nil
}
