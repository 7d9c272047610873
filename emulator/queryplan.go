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
// payload rewrite), TOP, OFFSET/LIMIT, DISTINCT, VALUE aggregates (the
// [{"item": ...}] rewrites), aggregates without VALUE and GROUP BY (the
// groupByItems / payload rewrite, with or without VALUE), so that the
// pipeline's merge of the ranges' answers equals the answer of one range.
// A SELECT that computes over aggregates (an object of aggregates, a
// function of an aggregate) cannot be merged by the pipelines, which only
// combine whole aggregates and repeat per-group constants: its plan is
// pass-through (exact when the container has one range, answered whole)
// and, with several ranges, the query is refused as the gateway refuses
// aggregates it cannot serve (see QueryPlan).

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

// emptyQueryInfo is the queryInfo of a query that needs no client-side
// work (the pass-through plan).
func emptyQueryInfo() queryInfo {
	return queryInfo{DistinctType: "None", OrderBy: []string{}, OrderByExpressions: []string{}, GroupByExpressions: []string{},
		GroupByAliases: []string{}, Aggregates: []string{}, GroupByAliasToAggregateType: map[string]any{}}
}

// buildQueryPlan returns the plan of q as JSON; merged is false when q
// computes over aggregates in a way no SDK pipeline can merge across
// ranges, so that the plan is pass-through and exact only over one range.
//
// vectorFns maps the paths of the container's vectorEmbeddingPolicy to
// their distance functions (see vectorDistanceFunctions): an ORDER BY
// VectorDistance(...) item is sorted most similar first whatever direction
// is written, and the plan must say so, or the SDKs' ordered merge of the
// ranges' pages (which follows the plan's orderBy) interleaves them wrongly.
func buildQueryPlan(q *cosmosql.Query, params map[string]json.RawMessage, vectorFns map[string]string) (plan []byte, merged bool) {
	info := emptyQueryInfo()
	info.HasSelectValue = q.Select.Value != nil
	p := queryPlan{Version: 2, Ranges: []queryRange{{Min: "", Max: "FF", IsMinInclusive: true}}}
	done := func(info queryInfo, merged bool) ([]byte, bool) {
		p.QueryInfo = info
		b, _ := json.Marshal(p)
		return b, merged
	}
	if q.From == nil {
		info.HasSelectValue = false
		return done(info, true)
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
	if q.Distinct {
		info.DistinctType = "Unordered"
		if q.OrderBy != nil {
			info.DistinctType = "Ordered"
		}
	}
	if q.GroupBy != nil || q.HasAggregates() {
		// (aggregates yield one value per group: an ORDER BY next to them
		// orders nothing, and the gateway's plan is the aggregate's. The
		// SDK pipelines apply DISTINCT, TOP and OFFSET/LIMIT to the merged
		// groups: @azure/cosmos 4.10.1 pipelinedQueryExecutionContext
		// createStreamingEndpoint wraps the GROUP BY component in them.)
		if q.Distinct {
			info.DistinctType = "Unordered"
		}
		if !aggregatePlan(q, &info) {
			return done(emptyQueryInfo(), false)
		}
		return done(info, true)
	}
	if q.OrderBy != nil {
		var items []string
		for _, o := range q.OrderBy {
			desc := o.Desc
			if d, ok := similarityOrder(q, o.Expr, vectorFns, params); ok {
				desc = d
			}
			dir := "Ascending"
			if desc {
				dir = "Descending"
			}
			expr := cosmosql.ExprSQL(o.Expr)
			info.OrderBy = append(info.OrderBy, dir)
			info.OrderByExpressions = append(info.OrderByExpressions, expr)
			items = append(items, `{"item": `+expr+`}`)
		}
		info.RewrittenQuery = orderByRewrite(q, items)
	}
	if info.Offset != nil && info.Limit != nil {
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
	return done(info, true)
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

// aggregateItem is the partial-aggregate form the gateway's rewrites use
// for one aggregate, which the SDK pipelines merge across ranges: the
// aggregators take "item2" when present, else "item" (@azure/cosmos
// 4.10.1 EndpointComponent/emptyGroup extractAggregateResult; Average
// merges {sum, count}, Min and Max {min|max, count}, Count and Sum add).
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

// singleAggregate returns the aggregate type (Count, Sum, ...) and the
// partial-aggregate item of e when e is one aggregate call.
func singleAggregate(e cosmosql.Expr) (agg, item string, ok bool) {
	call, isCall := e.(*cosmosql.Call)
	if !isCall || call.UDF || len(call.Args) != 1 {
		return "", "", false
	}
	name := strings.ToUpper(call.Name)
	agg, ok = aggregateNames[name]
	if !ok {
		return "", "", false
	}
	return agg, aggregateItem(name, cosmosql.ExprSQL(call.Args[0])), true
}

// hasAggregate reports whether e calls an aggregate (at its own level).
func hasAggregate(e cosmosql.Expr) bool {
	q := cosmosql.Query{Select: cosmosql.Selection{Value: e}}
	return q.HasAggregates()
}

// aggregatePlan fills the plan of a query with GROUP BY or aggregates and
// reports whether the SDK pipelines can merge it across ranges. They can
// when each projected value is either one aggregate call, merged by the
// aggregator of its type, or holds no aggregate (a GROUP BY expression, a
// function of them, a literal), which is constant within a group and kept
// once (StaticValueAggregator: the type is null). The shapes, as the
// gateway rewrites them (reference §7.4) and as @azure/cosmos 4.10.1 reads
// them:
//   - SELECT VALUE <aggregate> without GROUP BY: aggregates [type],
//     hasSelectValue, "SELECT VALUE [<item>] FROM ..."; each range answers
//     one [item] (GroupByValueEndpointComponent, no groupByItems: the
//     payload is the row, its [0] the partial aggregate).
//   - SELECT VALUE with GROUP BY: groupByExpressions, hasSelectValue,
//     aggregates [type] with "[<item>] AS payload" for an aggregate, or
//     aggregates [] with "<expr> AS payload" for a per-group constant
//     (GroupByValueEndpointComponent groups rows by hash of groupByItems).
//   - SELECT <items> (aggregates without VALUE, or GROUP BY):
//     groupByAliases and groupByAliasToAggregateType name every output
//     property, aggregates stays [] (the SDK refuses aggregates without
//     hasSelectValue: queryIterator createPipelinedExecutionContext), and
//     payload is {alias: <item> or <expr>} (GroupByEndpointComponent).
//
// GROUP BY rows carry "[{"item": <key>}, ...] AS groupByItems".
func aggregatePlan(q *cosmosql.Query, info *queryInfo) bool {
	var keys, keyItems []string
	for _, g := range q.GroupBy {
		e := cosmosql.ExprSQL(g)
		keys = append(keys, e)
		keyItems = append(keyItems, `{"item": `+e+`}`)
	}
	info.GroupByExpressions = append([]string{}, keys...)
	rewrite := func(payload string) string {
		if q.GroupBy == nil {
			return "SELECT " + payload + fromWhere(q, "")
		}
		return "SELECT [" + strings.Join(keyItems, ", ") + "] AS groupByItems, " + payload + fromWhere(q, "") + " GROUP BY " + strings.Join(keys, ", ")
	}
	if q.Select.Value != nil {
		info.HasSelectValue = true
		agg, item, isAgg := singleAggregate(q.Select.Value)
		switch {
		case isAgg && q.GroupBy == nil:
			info.Aggregates = []string{agg}
			info.RewrittenQuery = rewrite("VALUE [" + item + "]")
		case isAgg:
			info.Aggregates = []string{agg}
			info.RewrittenQuery = rewrite("[" + item + "] AS payload")
		case q.GroupBy != nil && !hasAggregate(q.Select.Value):
			info.RewrittenQuery = rewrite(cosmosql.ExprSQL(q.Select.Value) + " AS payload")
		default:
			return false
		}
		return true
	}
	if q.Select.Star {
		return false
	}
	names := q.Select.OutputNames()
	var fields []string
	for i, it := range q.Select.Items {
		alias := names[i]
		n, _ := json.Marshal(alias)
		info.GroupByAliases = append(info.GroupByAliases, alias)
		if agg, item, ok := singleAggregate(it.Expr); ok {
			info.GroupByAliasToAggregateType[alias] = agg
			fields = append(fields, string(n)+": "+item)
			continue
		}
		if hasAggregate(it.Expr) {
			return false
		}
		info.GroupByAliasToAggregateType[alias] = nil
		fields = append(fields, string(n)+": "+cosmosql.ExprSQL(it.Expr))
	}
	info.HasSelectValue = false
	info.RewrittenQuery = rewrite("{" + strings.Join(fields, ", ") + "} AS payload")
	return true
}

// vectorDistanceFunctions maps the paths of a container's
// vectorEmbeddingPolicy ("/embedding") to their distance functions; nil
// without a policy.
func vectorDistanceFunctions(c Container) map[string]string {
	var props struct {
		Vectors struct {
			Embeddings []struct {
				Path             string `json:"path"`
				DistanceFunction string `json:"distanceFunction"`
			} `json:"vectorEmbeddings"`
		} `json:"vectorEmbeddingPolicy"`
	}
	if json.Unmarshal(c.Properties, &props) != nil {
		return nil
	}
	var fns map[string]string
	for _, e := range props.Vectors.Embeddings {
		if e.Path != "" && e.DistanceFunction != "" {
			if fns == nil {
				fns = map[string]string{}
			}
			fns[e.Path] = e.DistanceFunction
		}
	}
	return fns
}

// similarityOrder reports whether e, an ORDER BY item of q, is a
// VectorDistance call, and then whether it sorts descending: the service
// sorts it most similar first whatever the direction written, descending
// scores for cosine and the dot product, ascending distances for
// euclidean. The function is the one the call's options name, else the
// one vectorFns gives the path of its first argument, else cosine (the
// engine's rule, pgstore/sqlgen similarityOrder and
// ApplyVectorEmbeddingPolicy). ok is false when the function cannot be
// known from the text.
func similarityOrder(q *cosmosql.Query, e cosmosql.Expr, vectorFns map[string]string, params map[string]json.RawMessage) (desc, ok bool) {
	c, isCall := e.(*cosmosql.Call)
	if !isCall || c.UDF || !strings.EqualFold(c.Name, "VECTORDISTANCE") || len(c.Args) < 2 {
		return false, false
	}
	name := "cosine"
	if fn, found := vectorFns[aliasPath(q, c.Args[0])]; found {
		name = fn
	}
	if len(c.Args) > 3 {
		switch x := c.Args[3].(type) {
		case *cosmosql.ObjectLit:
			for _, f := range x.Fields {
				if strings.EqualFold(f.Key, "distanceFunction") {
					lit, isLit := f.Value.(*cosmosql.Literal)
					s, isStr := "", false
					if isLit {
						s, isStr = lit.Value.(string)
					}
					if !isStr {
						return false, false
					}
					name = s
				}
			}
		case *cosmosql.Param:
			var opts map[string]any
			if json.Unmarshal(params[x.Name], &opts) != nil {
				return false, false
			}
			if s, isStr := opts["distanceFunction"].(string); isStr {
				name = s
			}
		default:
			return false, false
		}
	}
	switch strings.ToLower(name) {
	case "cosine", "dotproduct":
		return true, true
	case "euclidean":
		return false, true
	}
	return false, false
}

// aliasPath is the policy-style path ("/a/b") of e when it is a path of
// property names from q's container alias (c.a.b, c["a"].b); "" otherwise.
func aliasPath(q *cosmosql.Query, e cosmosql.Expr) string {
	if q.From == nil || q.From.Source.In || q.From.Source.Subquery != nil {
		return ""
	}
	root, ok := q.From.Source.Expr.(*cosmosql.Ident)
	if !ok {
		return ""
	}
	alias := q.From.Source.Alias
	if alias == "" {
		alias = root.Name
	}
	var rev []string
	for {
		switch x := e.(type) {
		case *cosmosql.Member:
			rev = append(rev, x.Name)
			e = x.X
		case *cosmosql.Index:
			lit, isLit := x.Index.(*cosmosql.Literal)
			if !isLit {
				return ""
			}
			s, isString := lit.Value.(string)
			if !isString {
				return ""
			}
			rev = append(rev, s)
			e = x.X
		case *cosmosql.Ident:
			if x.Name != alias || len(rev) == 0 {
				return ""
			}
			var b strings.Builder
			for i := len(rev) - 1; i >= 0; i-- {
				b.WriteString("/" + rev[i])
			}
			return b.String()
		default:
			return ""
		}
	}
}
