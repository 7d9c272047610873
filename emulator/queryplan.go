package emulator

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// The query plan (reference §7.4) tells an SDK with a query pipeline how to
// run a query across partition key ranges: what to do on the client
// (queryInfo) and the query to send to each range (rewrittenQuery). This
// emulator builds the gateway's plans for ORDER BY (the orderByItems /
// payload rewrite), TOP, OFFSET/LIMIT, DISTINCT and VALUE aggregates (the
// [{"item": ...}] rewrites); for GROUP BY and aggregates without VALUE it
// gives a pass-through plan (no client-side work), which is correct for a
// container with one range, answered whole; with several ranges an SDK
// following it gets one partial result per range, unmerged (the gateway's
// groupBy plan is not built yet).

type queryInfo struct {
	DistinctType                string         `json:"distinctType"`
	Top                         *int64         `json:"top"`
	Offset                      *int64         `json:"offset"`
	Limit                       *int64         `json:"limit"`
	OrderBy                     []string       `json:"orderBy"`
	OrderByExpressions          []string       `json:"orderByExpressions"`
	GroupByExpressions          []string       `json:"groupByExpressions"`
	GroupByAliases              []string       `json:"groupByAliases"`
	Aggregates                  []string       `json:"aggregates"`
	GroupByAliasToAggregateType map[string]any `json:"groupByAliasToAggregateType"`
	RewrittenQuery              string         `json:"rewrittenQuery"`
	HasSelectValue              bool           `json:"hasSelectValue"`
	DCountInfo                  any            `json:"dCountInfo"`
	HasNonStreamingOrderBy      bool           `json:"hasNonStreamingOrderBy"`
}

type queryRange struct {
	Min            string `json:"min"`
	Max            string `json:"max"`
	IsMinInclusive bool   `json:"isMinInclusive"`
	IsMaxInclusive bool   `json:"isMaxInclusive"`
}

type queryPlan struct {
	Version   int          `json:"partitionedQueryExecutionInfoVersion"`
	QueryInfo queryInfo    `json:"queryInfo"`
	Ranges    []queryRange `json:"queryRanges"`
	Hybrid    any          `json:"hybridSearchQueryInfo"`
}

var aggregateNames = map[string]string{"COUNT": "Count", "SUM": "Sum", "MIN": "Min", "MAX": "Max", "AVG": "Average"}

// buildQueryPlan returns the plan of q as JSON.
func buildQueryPlan(q *cosmosql.Query, params map[string]json.RawMessage) []byte {
	info := queryInfo{DistinctType: "None", OrderBy: []string{}, OrderByExpressions: []string{}, GroupByExpressions: []string{},
		GroupByAliases: []string{}, Aggregates: []string{}, GroupByAliasToAggregateType: map[string]any{},
		HasSelectValue: q.Select.Value != nil}
	plan := queryPlan{Version: 2, Ranges: []queryRange{{Min: "", Max: "FF", IsMinInclusive: true}}}
	if q.From == nil {
		plan.QueryInfo = info
		plan.QueryInfo.HasSelectValue = false
		b, _ := json.Marshal(plan)
		return b
	}
	number := func(e cosmosql.Expr) *int64 {
		if e == nil {
			return nil
		}
		f, _ := countValue(e, params)
		n := int64(f)
		return &n
	}
	// (with GROUP BY or aggregates, the SDK applies TOP and OFFSET/LIMIT
	// to the merged groups)
	info.Top, info.Offset, info.Limit = number(q.Top), number(q.Offset), number(q.Limit)
	if q.GroupBy != nil || (q.HasAggregates() && q.Select.Value == nil) {
		if groupByPlan(q, &info) {
			plan.QueryInfo = info
			b, _ := json.Marshal(plan)
			return b
		}
		info = queryInfo{DistinctType: "None", OrderBy: []string{}, OrderByExpressions: []string{}, GroupByExpressions: []string{},
			GroupByAliases: []string{}, Aggregates: []string{}, GroupByAliasToAggregateType: map[string]any{}}
		plan.QueryInfo = info
		b, _ := json.Marshal(plan)
		return b
	}
	if q.Distinct {
		info.DistinctType = "Unordered"
		if q.OrderBy != nil {
			info.DistinctType = "Ordered"
		}
	}
	switch {
	case q.OrderBy != nil && !(q.HasAggregates() && q.Select.Value != nil):
		// (aggregates yield one value: their ORDER BY orders nothing, and
		// the gateway's plan is the aggregate's, below)
		var items []string
		for _, o := range q.OrderBy {
			dir := "Ascending"
			if o.Desc {
				dir = "Descending"
			}
			expr := cosmosql.ExprSQL(o.Expr)
			info.OrderBy = append(info.OrderBy, dir)
			info.OrderByExpressions = append(info.OrderByExpressions, expr)
			items = append(items, `{"item": `+expr+`}`)
		}
		info.RewrittenQuery = orderByRewrite(q, items)
	case q.HasAggregates():
		if call, ok := q.Select.Value.(*cosmosql.Call); ok {
			name := strings.ToUpper(call.Name)
			if agg, ok := aggregateNames[name]; ok && len(call.Args) == 1 {
				info.Aggregates = []string{agg}
				info.RewrittenQuery = aggregateRewrite(q, name, cosmosql.ExprSQL(call.Args[0]))
			}
		}
		if info.RewrittenQuery == "" { // an expression over aggregates: pass-through
			info = queryInfo{DistinctType: "None", OrderBy: []string{}, OrderByExpressions: []string{}, GroupByExpressions: []string{},
				GroupByAliases: []string{}, Aggregates: []string{}, GroupByAliasToAggregateType: map[string]any{}}
		}
	}
	if info.Offset != nil && info.Limit != nil && len(info.Aggregates) == 0 {
		// Each range returns its first offset+limit results; the client
		// skips and takes (a range must not skip on its own). This is the
		// service's plan, not a choice: the SDK pipelines skip queryInfo's
		// offset themselves over whatever the ranges return
		// (@azure/cosmos 4.10.1 OffsetLimitEndpointComponent; its
		// NonStreamingOrderByEndpointComponent sizes its queue to
		// offset+limit) and send the original text when rewrittenQuery is
		// empty (parallelQueryExecutionContextBase), so a plan that left
		// OFFSET n in the ranges' query would skip 2n. Serving the offset
		// here instead (no offset in queryInfo) would spare the SDK's empty
		// fetchNext per page of skipped results, but no gateway plan looks
		// like that: the pages the SDK returns are the service's.
		window := &cosmosql.Literal{Value: float64(*info.Offset + *info.Limit)}
		zero := &cosmosql.Literal{Value: float64(0)}
		if info.RewrittenQuery != "" {
			info.RewrittenQuery += " OFFSET 0 LIMIT " + cosmosql.ExprSQL(window)
		} else {
			clone := *q
			clone.Offset, clone.Limit = zero, window
			info.RewrittenQuery = clone.SQL()
		}
	}
	plan.QueryInfo = info
	b, _ := json.Marshal(plan)
	return b
}

// Messages of the service's refusals of TOP, OFFSET and LIMIT counts that
// are not non-negative integers (a parameter holding a string, say).
const (
	MsgTopNotInteger    = "The count value provided for a TOP clause must be an integer."
	MsgOffsetNotInteger = "The offset count value provided for an OFFSET clause must be an integer."
	MsgLimitNotInteger  = "The count value provided for a LIMIT clause must be an integer."
)

// checkCounts refuses (400) TOP, OFFSET and LIMIT values, literal or
// parameter, that are not non-negative integers, in q and its subqueries
// at any depth; otherwise a plan would carry them as 0.
func checkCounts(q *cosmosql.Query, params map[string]json.RawMessage) error {
	var err error
	check := func(e cosmosql.Expr, msg string) {
		if e == nil || err != nil {
			return
		}
		f, ok := countValue(e, params)
		if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
			err = BadRequest("%s", msg)
		}
	}
	var level func(q *cosmosql.Query)
	level = func(q *cosmosql.Query) {
		if q == nil {
			return
		}
		check(q.Top, MsgTopNotInteger)
		check(q.Offset, MsgOffsetNotInteger)
		check(q.Limit, MsgLimitNotInteger)
		if q.From != nil {
			for _, src := range q.From.Sources() {
				level(src.Subquery)
			}
		}
	}
	level(q)
	cosmosql.WalkQuery(q, func(e cosmosql.Expr) bool {
		if sub, ok := e.(*cosmosql.Subquery); ok {
			level(sub.Query)
		}
		return err == nil
	})
	return err
}

// countValue is the number a TOP, OFFSET or LIMIT count e (a literal or a
// parameter) holds; ok is false when it holds no number.
func countValue(e cosmosql.Expr, params map[string]json.RawMessage) (f float64, ok bool) {
	switch x := e.(type) {
	case *cosmosql.Literal:
		f, ok = x.Value.(float64)
	case *cosmosql.Param:
		raw, found := params[x.Name]
		ok = found && json.Unmarshal(raw, &f) == nil
	}
	return f, ok
}

// fromWhere renders " FROM ... [WHERE (cond) AND (extra)]" of q.
func fromWhere(q *cosmosql.Query, extra string) string {
	// Render the query reduced to SELECT VALUE 1 FROM ..., then drop the
	// fixed SELECT part: what remains is the FROM clause as the parser
	// rendering writes it.
	clone := cosmosql.Query{Select: cosmosql.Selection{Value: &cosmosql.Literal{Value: float64(1)}}, From: q.From}
	fromPart := strings.TrimPrefix(clone.SQL(), "SELECT VALUE 1")
	where := ""
	switch {
	case q.Where != nil && extra != "":
		where = " WHERE (" + cosmosql.ExprSQL(q.Where) + ") AND (" + extra + ")"
	case q.Where != nil:
		where = " WHERE " + cosmosql.ExprSQL(q.Where)
	case extra != "":
		where = " WHERE (" + extra + ")"
	}
	return fromPart + where
}

func rootAlias(q *cosmosql.Query) string {
	src := q.From.Source
	if src.Alias != "" && !src.In {
		return src.Alias
	}
	if id, ok := src.Expr.(*cosmosql.Ident); ok {
		return id.Name
	}
	return "root"
}

// orderByRewrite is the gateway's ORDER BY rewrite: each result carries its
// _rid, its sort values and the projected payload.
func orderByRewrite(q *cosmosql.Query, items []string) string {
	payload := rootAlias(q)
	switch {
	case q.Select.Value != nil:
		payload = cosmosql.ExprSQL(q.Select.Value)
	case !q.Select.Star:
		names := q.Select.OutputNames()
		var fields []string
		for i, it := range q.Select.Items {
			n, _ := json.Marshal(names[i])
			fields = append(fields, string(n)+": "+cosmosql.ExprSQL(it.Expr))
		}
		payload = "{" + strings.Join(fields, ", ") + "}"
	}
	var order []string
	for _, o := range q.OrderBy {
		dir := " ASC"
		if o.Desc {
			dir = " DESC"
		}
		order = append(order, cosmosql.ExprSQL(o.Expr)+dir)
	}
	top := ""
	if q.Top != nil {
		top = "TOP " + cosmosql.ExprSQL(q.Top) + " "
	}
	return "SELECT " + top + rootAlias(q) + "._rid, [" + strings.Join(items, ", ") + "] AS orderByItems, " + payload + " AS payload" +
		fromWhere(q, "{documentdb-formattableorderbyquery-filter}") + " ORDER BY " + strings.Join(order, ", ")
}

// aggregateRewrite is the gateway's rewrite of SELECT VALUE <aggregate>.
func aggregateRewrite(q *cosmosql.Query, name, arg string) string {
	var item string
	switch name {
	case "AVG":
		item = `{"item": {"sum": SUM(` + arg + `), "count": COUNT(` + arg + `)}}`
	case "MIN", "MAX":
		item = `{"item": ` + name + `(` + arg + `), "item2": {"` + strings.ToLower(name) + `": ` + name + `(` + arg + `), "count": COUNT(` + arg + `)}}`
	default:
		item = `{"item": ` + name + `(` + arg + `)}`
	}
	return "SELECT VALUE [" + item + "]" + fromWhere(q, "")
}

// aggregateItem is the partial-aggregate form the gateway's rewrites use
// for one aggregate, which the SDK pipelines merge across ranges.
func aggregateItem(name, arg string) string {
	switch name {
	case "AVG":
		return `{"item": {"sum": SUM(` + arg + `), "count": COUNT(` + arg + `)}}`
	case "MIN", "MAX":
		return `{"item": ` + name + `(` + arg + `), "item2": {"` + strings.ToLower(name) + `": ` + name + `(` + arg + `), "count": COUNT(` + arg + `)}}`
	default:
		return `{"item": ` + name + `(` + arg + `)}`
	}
}

// groupByPlan fills the plan of a GROUP BY query, or of aggregates without
// VALUE: every projected item is either a GROUP BY expression or a single
// aggregate call (other shapes get a pass-through plan: ok is false). The
// rewrite sends the group keys as groupByItems and, per alias, the key or
// the partial aggregate in payload.
func groupByPlan(q *cosmosql.Query, info *queryInfo) bool {
	if q.Select.Value != nil || q.Select.Star {
		return false
	}
	names := q.Select.OutputNames()
	var fields []string
	for i, it := range q.Select.Items {
		alias := names[i]
		n, _ := json.Marshal(alias)
		if call, ok := it.Expr.(*cosmosql.Call); ok {
			name := strings.ToUpper(call.Name)
			if agg, ok := aggregateNames[name]; ok && len(call.Args) == 1 {
				info.GroupByAliases = append(info.GroupByAliases, alias)
				info.GroupByAliasToAggregateType[alias] = agg
				fields = append(fields, string(n)+": "+aggregateItem(name, cosmosql.ExprSQL(call.Args[0])))
				continue
			}
		}
		isKey := false
		for _, g := range q.GroupBy {
			if cosmosql.Equal(it.Expr, g) {
				isKey = true
			}
		}
		if !isKey {
			return false
		}
		info.GroupByAliases = append(info.GroupByAliases, alias)
		info.GroupByAliasToAggregateType[alias] = nil
		fields = append(fields, string(n)+": "+cosmosql.ExprSQL(it.Expr))
	}
	var keys, items []string
	for _, g := range q.GroupBy {
		e := cosmosql.ExprSQL(g)
		keys = append(keys, e)
		items = append(items, `{"item": `+e+`}`)
	}
	info.GroupByExpressions = keys
	payload := "{" + strings.Join(fields, ", ") + "} AS payload"
	if q.GroupBy == nil {
		info.RewrittenQuery = "SELECT " + payload + fromWhere(q, "")
	} else {
		info.RewrittenQuery = "SELECT [" + strings.Join(items, ", ") + "] AS groupByItems, " + payload + fromWhere(q, "") + " GROUP BY " + strings.Join(keys, ", ")
	}
	info.HasSelectValue = false
	return true
}
