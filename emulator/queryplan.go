package emulator

import (
	"encoding/json"
	"math"
	"slices"
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

// aggregateNames are the plan's names of the aggregates (queryInfo
// aggregates, groupByAliasToAggregateType), which the SDK pipelines map
// to their aggregators: @azure/cosmos 4.10.1 Aggregators/index.js
// createAggregator and its AggregateType ("Average" | "Count" | "Max" |
// "Min" | "Sum" | "MakeSet" | "MakeList" | "CountIf").
var aggregateNames = map[string]string{"COUNT": "Count", "COUNTIF": "CountIf", "SUM": "Sum", "MIN": "Min", "MAX": "Max", "AVG": "Average",
	"MAKELIST": "MakeList", "MAKESET": "MakeSet"}

// emptyQueryInfo is the queryInfo of a query that needs no client-side
// work (the pass-through plan).
func emptyQueryInfo() queryInfo {
	return queryInfo{DistinctType: "None", OrderBy: []string{}, OrderByExpressions: []string{}, GroupByExpressions: []string{},
		GroupByAliases: []string{}, Aggregates: []string{}, GroupByAliasToAggregateType: map[string]any{}}
}

// buildQueryPlan returns the plan of q as JSON; merged is false when q
// computes over aggregates in a way no SDK pipeline can merge across
// ranges, so that the plan is pass-through and exact only over one range.
// vectorFns maps the paths of the container's vectorEmbeddingPolicy
// ("/embedding") to their distance functions (see cosmosql.SimilarityOrder).
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
			dir := "Ascending"
			if o.Desc {
				dir = "Descending"
			}
			if desc, ok := cosmosql.SimilarityOrder(o.Expr, rootAlias(q), params, vectorFns); ok {
				// the ranges sort VectorDistance most similar first
				// whatever the direction written, and the SDKs merge
				// them in the plan's direction, without streaming
				dir = "Ascending"
				if desc {
					dir = "Descending"
				}
				info.HasNonStreamingOrderBy = true
			}
			expr := cosmosql.ExprSQL(o.Expr)
			info.OrderBy = append(info.OrderBy, dir)
			info.OrderByExpressions = append(info.OrderByExpressions, expr)
			items = append(items, `{"item": `+expr+`}`)
		}
		info.RewrittenQuery = orderByRewrite(q, items)
	}
	if info.Offset != nil && info.Limit != nil && !distinctWindow(q) {
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

// distinctWindow reports whether q is a DISTINCT query with ORDER BY,
// whose ranges' rewritten query carries neither its TOP nor its
// OFFSET/LIMIT window: the SDK pipelines apply DISTINCT to the merged
// ranges before TOP and OFFSET/LIMIT (@azure/cosmos 4.10.1
// pipelinedQueryExecutionContext createStreamingEndpoint), and the ranges'
// rows are not distinct (each carries its _rid, which the pipelines need:
// azure-cosmos for Java 4.81.0 OrderByContinuationToken refuses a null rid
// and OrderByDocumentQueryExecutionContext builds one for every page), so a
// window counted in rows could hold fewer distinct values than asked for:
// with 30 items of ages 1..10, LIMIT 10 would give ages 1..4. The ranges
// return every row, page by page, and the SDK stops reading once it has
// its results. (Without ORDER BY the ranges' query is DISTINCT itself and
// keeps its window: any window of a range's distinct values serves.)
func distinctWindow(q *cosmosql.Query) bool {
	return q.Distinct && q.OrderBy != nil
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
// _rid, its sort values and the projected payload. With DISTINCT the
// ranges' query keeps no TOP (see distinctWindow).
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
	if q.Top != nil && !q.Distinct {
		top = "TOP " + cosmosql.ExprSQL(q.Top) + " "
	}
	return "SELECT " + top + rootAlias(q) + "._rid, [" + strings.Join(items, ", ") + "] AS orderByItems, " + payload + " AS payload" +
		fromWhere(q, "{documentdb-formattableorderbyquery-filter}") + " ORDER BY " + strings.Join(order, ", ")
}

// aggregateItem is the partial-aggregate form the gateway's rewrites use
// for one aggregate, which the SDK pipelines merge across ranges: the
// aggregators take "item2" when present, else "item" (@azure/cosmos
// 4.10.1 EndpointComponent/emptyGroup extractAggregateResult; Average
// merges {sum, count}, Min and Max {min|max, count}, Count and Sum add,
// MakeList concatenates the ranges' arrays and MakeSet adds their
// elements to a set: MakeListAggregator, MakeSetAggregator).
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

// MsgUnsupportedQueryFeatures starts the service's refusal of a query plan
// whose query needs a feature the client did not list in
// x-ms-cosmos-supported-query-features (reference §3.3); a line per
// missing feature follows.
const MsgUnsupportedQueryFeatures = "Query contains 1 or more unsupported features. Upgrade your SDK to a version which does support the requested features:"

// CheckQueryFeatures refuses (400) a query plan that needs a query feature
// missing from supported, the value of the request's
// x-ms-cosmos-supported-query-features header (a comma-separated list;
// absent means none), as the gateway does: a client must not get a plan
// its pipeline cannot run. azure-cosmos (Python) 4.17.1 lists neither
// GroupBy nor NonValueAggregate nor MultipleAggregates nor DCount
// (_cosmos_client_connection.py _GetQueryPlanThroughGateway), so a
// cross-partition GROUP BY reaches it as this 400 instead of a plan its
// pipeline would concatenate per range. The features are the ones .NET's
// QueryPlanSupportChecker derives from a plan's queryInfo.
func CheckQueryFeatures(plan []byte, supported string) error {
	var p queryPlan
	if err := json.Unmarshal(plan, &p); err != nil {
		return err
	}
	have := map[string]bool{}
	for _, f := range strings.Split(supported, ",") {
		have[strings.ToLower(strings.TrimSpace(f))] = true
	}
	var missing []string
	for _, f := range neededQueryFeatures(p.QueryInfo) {
		if !have[strings.ToLower(f)] {
			missing = append(missing, "Query contained "+f+", which the calling client does not support.")
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return BadRequest("%s\r\n%s", MsgUnsupportedQueryFeatures, strings.Join(missing, "\r\n"))
}

// neededQueryFeatures lists the query features a plan's queryInfo needs
// from the client's pipeline, in the order of .NET's
// QueryPlanSupportChecker: one aggregate is Aggregate with SELECT VALUE
// and NonValueAggregate without, several are MultipleAggregates; a
// MakeList or MakeSet among them is also ListAndSetAggregate.
func neededQueryFeatures(info queryInfo) []string {
	var need []string
	aggregates := len(info.Aggregates)
	for _, t := range info.GroupByAliasToAggregateType {
		if t != nil {
			aggregates++
		}
	}
	switch {
	case aggregates == 1 && info.HasSelectValue:
		need = append(need, "Aggregate")
	case aggregates == 1:
		need = append(need, "NonValueAggregate")
	case aggregates > 1:
		need = append(need, "MultipleAggregates")
	}
	if listOrSet(info) {
		need = append(need, "ListAndSetAggregate")
	}
	if slices.Contains(info.Aggregates, "CountIf") {
		need = append(need, "CountIf")
	}
	if info.DistinctType != "" && info.DistinctType != "None" {
		need = append(need, "Distinct")
	}
	if len(info.GroupByExpressions) > 0 {
		need = append(need, "GroupBy")
	}
	switch {
	case len(info.OrderBy) == 1:
		need = append(need, "OrderBy")
	case len(info.OrderBy) > 1:
		need = append(need, "MultipleOrderBy")
	}
	if info.Offset != nil || info.Limit != nil {
		need = append(need, "OffsetAndLimit")
	}
	if info.Top != nil {
		need = append(need, "Top")
	}
	if info.DCountInfo != nil {
		need = append(need, "DCount")
	}
	if info.HasNonStreamingOrderBy {
		need = append(need, "NonStreamingOrderBy")
	}
	return need
}

// listOrSet reports whether a plan's queryInfo merges a MakeList or
// MakeSet aggregate, which a client's pipeline supports when it lists
// ListAndSetAggregate in x-ms-cosmos-supported-query-features (@azure/cosmos
// 4.10.1 and .NET do; azure-cosmos for Python 4.17.1 and Java do not, and
// get the service's refusal).
func listOrSet(info queryInfo) bool {
	is := func(t any) bool { return t == "MakeList" || t == "MakeSet" }
	for _, t := range info.Aggregates {
		if is(t) {
			return true
		}
	}
	for _, t := range info.GroupByAliasToAggregateType {
		if is(t) {
			return true
		}
	}
	return false
}

// vectorDistanceFunctions maps the paths of c's vectorEmbeddingPolicy to
// their distance functions (nil without a policy).
func vectorDistanceFunctions(c Container) map[string]string {
	return c.Definition().VectorDistanceFunctions
}
