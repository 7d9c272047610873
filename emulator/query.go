package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/internal/reqphase"
)

// QueryRequest is an item query (POST .../docs with a query body).
type QueryRequest struct {
	Database, Container string
	Query               Query
	// PartitionKey is the decoded partition key header (nil: none).
	PartitionKey PartitionKey
	// RangeID is x-ms-documentdb-partitionkeyrangeid ("" when absent): a
	// query addressed to a partition key range runs over that range's
	// EPKs ("<id>" or "<collRid>,<id>"; 410/1002 when it is not live,
	// unless SplitRangeServed).
	RangeID string
	// SplitRangeServed runs a query naming a range that a split replaced
	// over that range's former EPK interval instead of answering 410/1002
	// (Container.ResolveRangeScopeAcrossSplits): for the clients that
	// cannot recover from that 410 (wire: @azure/cosmos).
	SplitRangeServed bool
	// StartEPK and EndEPK, when EPKRange is set (x-ms-start-epk,
	// x-ms-end-epk with x-ms-read-key-type EffectivePartitionKeyRange),
	// confine the query to the items whose effective partition key lies
	// in [StartEPK, EndEPK): a sub-range of a partition key range.
	EPKRange         bool
	StartEPK, EndEPK string
	// EnableCrossPartition is x-ms-documentdb-query-enablecrosspartition.
	EnableCrossPartition bool
	Page                 PageRequest
}

// QueryResult is one page of an item query.
type QueryResult struct {
	Container Container
	// Range is the partition key range the request named (zero when none).
	Range        PartitionKeyRange
	Docs         [][]byte
	Continuation string
}

// Messages of the gateway's cross-partition refusals (reference §3.3).
const (
	MsgCrossPartitionDisabled    = "Cross partition query is required but disabled. Please set x-ms-documentdb-query-enablecrosspartition to true, specify x-ms-documentdb-partitionkey, or revise your query to avoid this exception."
	MsgCrossPartitionNotServable = "The provided cross partition query can not be directly served by the gateway. This is a first chance (internal) exception that all newer clients will know how to handle gracefully. This exception is traced, but unless you see it bubble up as an exception (which only happens on older SDK clients), then you can safely ignore this message."
	MsgCrossPartitionAggregate   = "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates."
)

// MaxQueryTextLength is the longest query text accepted, in bytes (the
// service's maxSqlQueryInputLength, reference §4).
const MaxQueryTextLength = 524288

// MsgQueryTooLong is the refusal of a query text longer than
// MaxQueryTextLength.
const MsgQueryTooLong = "The SQL query text exceeded the maximum limit of 524288 characters."

// ParseQuery parses a query, turning syntax errors into the service's 400
// (the message embeds the positioned error list, as the gateway's does).
// A text longer than MaxQueryTextLength is refused (400) unparsed.
func ParseQuery(text string) (*cosmosql.Query, error) {
	if len(text) > MaxQueryTextLength {
		return nil, BadRequest("%s", MsgQueryTooLong)
	}
	q, err := cosmosql.Parse(text)
	var se *cosmosql.SyntaxError
	if errors.As(err, &se) {
		return nil, queryCompileError(se)
	}
	return q, err
}

// queryCompileError is the service's 400 for a query that does not
// compile: the message embeds the positioned error list.
func queryCompileError(se *cosmosql.SyntaxError) error {
	detail, _ := json.Marshal(map[string]any{"errors": []any{map[string]any{
		"severity": "Error", "location": map[string]int{"start": int(se.Start), "end": int(se.End)},
		"code": se.Code, "message": se.Message,
	}}})
	return BadRequest("Message: %s", detail)
}

// QueryItems runs one page of an item query with the gateway's rules for
// partitions: a partition key header (or a WHERE clause that pins every
// partition key path to a value) makes it a single-partition query; a
// partition key range id runs it over that range's EPKs (410/1002 when the
// range is unknown or was split);
// otherwise it is cross-partition, which needs
// x-ms-documentdb-query-enablecrosspartition and is refused for queries
// the gateway cannot serve directly (TOP, ORDER BY, OFFSET/LIMIT,
// DISTINCT, GROUP BY, aggregates): 400 with sub-status 1004 and the query
// plan, so that SDKs with a query pipeline switch to it. EPK range headers
// (r.EPKRange) further confine it to the items whose effective partition
// key lies in the range.
func (s *Service) QueryItems(ctx context.Context, r QueryRequest) (QueryResult, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return QueryResult{}, err
	}
	res := QueryResult{Container: c}
	parsed := reqphase.Start(ctx, reqphase.Translate)
	q, err := ParseQuery(r.Query.Text)
	parsed()
	if err != nil {
		return res, err
	}
	// before routing and plans: c.cp = 'a' on a computed property named
	// like a partition key path pins no partition
	if err := expandComputedProperties(c, q); err != nil {
		return res, err
	}
	params := make(map[string]json.RawMessage, len(r.Query.Parameters))
	for _, p := range r.Query.Parameters {
		params[p.Name] = p.Value
	}
	if err := checkCounts(q, params); err != nil {
		return res, err
	}
	if q.Rank != nil {
		if err := checkRankLimits(q, params); err != nil {
			return res, err
		}
	}
	// A prefix of a hierarchical key addresses the partitions under it (the
	// service routes such queries to the ranges that hold them).
	pk, prefix, err := pkScope(c, r.PartitionKey)
	if err != nil {
		return res, err
	}
	// A range id confines the query to that live range's EPKs (the SDKs'
	// pipelines fan out this way; 410/1002 for an unknown or split range,
	// or a split range's former interval when SplitRangeServed), narrowed
	// by an EPK sub-range when one is sent.
	resolve := c.ResolveRangeScope
	if r.SplitRangeServed {
		resolve = c.ResolveRangeScopeAcrossSplits
	}
	scope, err := resolve(r.RangeID, r.EPKRange, r.StartEPK, r.EndEPK)
	if err != nil {
		return res, err
	}
	res.Range = scope.Range
	fanOut := false
	switch {
	case pk != nil: // scoped by the partition key header
	case scope.Named:
	default:
		if k, ok := pinnedPartitionKey(q, c.PartitionKey, params); ok {
			pk = &k
			break
		}
		if !r.EnableCrossPartition {
			return res, BadRequest("%s", MsgCrossPartitionDisabled)
		}
		if err := crossPartitionServable(q, params, c); err != nil {
			return res, err
		}
		fanOut = true
	}
	udfs, err := s.queryUDFs(ctx, c, q)
	if err != nil {
		return res, err
	}
	if udfs != nil {
		defer udfs.Close()
	}
	run := QueryItemsParams{
		Container: c, Expiry: s.expiry(c), PK: pk, PKPrefix: prefix, EPK: scope.EPK, Query: q, Text: r.Query.Text, Params: params, Page: r.Page,
		GatewayFanOut: fanOut, Now: s.clock.Now(), UDFs: udfs,
	}
	var page QueryPage
	if fanOut && q.From != nil && q.Rank == nil {
		// (a query without FROM reads no partition and yields its one
		// row once; ORDER BY RANK is ranked over the whole container:
		// both are served whole)
		page, err = s.fanOutPage(ctx, c, scope.EPK, run)
	} else {
		page, err = s.store.QueryItems(ctx, run)
	}
	if err != nil {
		return res, err
	}
	res.Docs, res.Continuation = page.Docs, page.Continuation
	return res, nil
}

// crossPartitionServable returns the gateway's refusal for queries that
// need state across partitions (reference §7.5): non-VALUE aggregates and
// GROUP BY with aggregates get "only supports 'VALUE <AggregateFunc>'",
// as do other aggregates that are not one aggregate call (SELECT VALUE
// {n: COUNT(1)}: the plan cannot merge them, see multiRangeRefusal); the
// others get 400/1004 with the plan an SDK pipeline follows.
func crossPartitionServable(q *cosmosql.Query, params map[string]json.RawMessage, c Container) error {
	if q.From == nil {
		return nil // reads no partition: one row, evaluated once
	}
	if q.Rank != nil {
		// ORDER BY RANK over one range is served whole, with the
		// container-wide statistics: the answer is the fused ranking the
		// SDKs' hybrid pipelines compute. Over several ranges the query
		// is refused with its hybrid search plan (400/1004), as the
		// gateway refuses it, and the SDK runs the plan: the statistics,
		// the component queries, the fusion (see hybridplan.go). A query
		// the emulator does not plan (SELECT VALUE...) is served whole.
		if len(c.liveRanges()) < 2 {
			return nil
		}
		plan, ok, err := hybridSearchPlan(q, params, vectorDistanceFunctions(c), false)
		if err != nil || !ok {
			return err
		}
		return &Error{Kind: KindBadRequest, SubStatus: SubStatusCrossPartitionQuery, Message: MsgCrossPartitionNotServable,
			AdditionalErrorInfo: string(plan)}
	}
	agg := q.HasAggregates()
	if agg && (q.Select.Value == nil || q.GroupBy != nil) {
		return BadRequest("%s", MsgCrossPartitionAggregate)
	}
	if agg || q.Top != nil || q.OrderBy != nil || q.Offset != nil || q.Distinct || q.GroupBy != nil || derivedNeedsPipeline(q) {
		// (the container's vector policy is parsed only here, for the
		// plan, not for every cross-partition query)
		plan, merged := buildQueryPlan(q, params, vectorDistanceFunctions(c))
		if !merged {
			// (an SDK pipeline answered this turns to the plan, which
			// serves it where one range answers it whole: @azure/cosmos
			// 4.10.1 queryIterator needsQueryPlan takes this message as it
			// takes a 1004)
			return BadRequest("%s", MsgCrossPartitionAggregate)
		}
		return &Error{Kind: KindBadRequest, SubStatus: SubStatusCrossPartitionQuery, Message: MsgCrossPartitionNotServable,
			AdditionalErrorInfo: string(plan)}
	}
	return nil
}

// multiRangeRefusal refuses (400) the plan of a query the SDK pipelines
// cannot merge across ranges (merged false: it computes over aggregates,
// e.g. SELECT VALUE {n: COUNT(1)} or ROUND(AVG(c.x)), which the pipelines
// do not evaluate) when c has several ranges, with the gateway's refusal
// of aggregates it cannot serve across partitions (reference §3.3 and
// §7.5: "Cross partition query only supports 'VALUE <AggregateFunc>' for
// aggregates"); an SDK surfaces it (@azure/cosmos 4.10.1 queryIterator
// createExecutionContext throws the plan request's error). With one range
// the pass-through plan is exact (the range answers the whole query), so
// its plan is given: the service's plan for these shapes is not recorded,
// and serving them is never stricter than the service.
func multiRangeRefusal(c Container, merged bool) error {
	if merged || len(c.liveRanges()) < 2 {
		return nil
	}
	return BadRequest("%s", MsgCrossPartitionAggregate)
}

// derivedNeedsPipeline reports a FROM (subquery) whose subquery, at any
// depth, needs state across partitions: the gateway cannot serve it
// directly either. (Its plan describes the outer query only; SDK pipelines
// then send the query whole to each range, which is exact only when the
// container has one range.)
func derivedNeedsPipeline(q *cosmosql.Query) bool {
	if q.From == nil || q.From.Source.Subquery == nil {
		return false
	}
	in := q.From.Source.Subquery
	return in.HasAggregates() || in.Top != nil || in.OrderBy != nil || in.Offset != nil || in.Distinct || in.GroupBy != nil ||
		derivedNeedsPipeline(in)
}

// QueryPlan answers a query plan request (x-ms-cosmos-is-query-plan-request)
// with the gateway's plan (see queryplan.go, and hybridplan.go for ORDER BY
// RANK); features is the request's x-ms-cosmos-supported-query-features
// (a comma-separated list), which picks the hybrid plan's format.
func (s *Service) QueryPlan(ctx context.Context, dbRef, collRef string, q Query, features string) ([]byte, error) {
	c, err := s.store.GetContainer(ctx, dbRef, collRef)
	if err != nil {
		return nil, err
	}
	defer reqphase.Start(ctx, reqphase.Translate)()
	parsed, err := ParseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	// the plan carries the expressions the ranges evaluate (its rewritten
	// query holds no computed property name to expand again: definitions
	// cannot reference computed properties)
	if err := expandComputedProperties(c, parsed); err != nil {
		return nil, err
	}
	params := make(map[string]json.RawMessage, len(q.Parameters))
	for _, p := range q.Parameters {
		params[p.Name] = p.Value
	}
	if err := checkCounts(parsed, params); err != nil {
		return nil, err
	}
	if parsed.Rank != nil {
		if err := checkRankLimits(parsed, params); err != nil {
			return nil, err
		}
		optimized := false
		for _, f := range strings.Split(features, ",") {
			optimized = optimized || strings.EqualFold(strings.TrimSpace(f), "HybridSearchSkipOrderByRewrite")
		}
		plan, ok, err := hybridSearchPlan(parsed, params, vectorDistanceFunctions(c), optimized)
		if err != nil || ok {
			return plan, err
		}
		return rankPlan(c)
	}
	plan, merged := buildQueryPlan(parsed, params, vectorDistanceFunctions(c))
	if err := multiRangeRefusal(c, merged); err != nil {
		return nil, err
	}
	return plan, nil
}

// MsgRankPlanSeveralRanges refuses the query plan of an ORDER BY RANK
// query that has no hybrid search plan here (SELECT VALUE) on a container
// with several partition key ranges (see rankPlan).
const MsgRankPlanSeveralRanges = "A query plan for this ORDER BY RANK query is not supported by this emulator on a container with several partition key ranges: a SELECT VALUE projection has no hybrid search plan here. Select an object instead, or send the query without a plan (without forceQueryPlan): it is served whole."

// rankPlan is the plan of an ORDER BY RANK query that hybridSearchPlan does
// not plan (SELECT VALUE, whose payload the SDKs' hybrid pipelines cannot
// carry; the service's plan for it is not recorded). The emulator serves
// such a query whole (statistics over the container, scores, RRF, TOP and
// OFFSET LIMIT), on several ranges too (crossPartitionServable). The plan
// is pass-through (no hybridSearchQueryInfo, an empty queryInfo), so the
// SDK sends the query unchanged to each range and keeps the pages as they
// come: exact with one range, where the range answers the whole query.
// With several ranges each range would rank its own documents and the
// SDK would concatenate the rankings, a wrong order: the plan is refused
// (400) instead, which the SDK only surfaces when it needs the plan.
func rankPlan(c Container) ([]byte, error) {
	if len(c.liveRanges()) > 1 {
		return nil, BadRequest("%s", MsgRankPlanSeveralRanges)
	}
	p := queryPlan{Version: 2, QueryInfo: emptyQueryInfo(), Ranges: []queryRange{{Min: "", Max: "FF", IsMinInclusive: true}}}
	b, err := json.Marshal(p)
	return b, err
}

// pinnedPartitionKey recognises a WHERE clause whose top-level AND chain
// fixes every partition key path to a literal or parameter (c.pk = 'a'),
// which makes the query single-partition, as the gateway does.
func pinnedPartitionKey(q *cosmosql.Query, def PartitionKeyDefinition, params map[string]json.RawMessage) (string, bool) {
	if q.From != nil && q.From.Source.Subquery != nil {
		// FROM (SELECT ... FROM c WHERE c.pk = 'a') s reads one partition
		return pinnedPartitionKey(q.From.Source.Subquery, def, params)
	}
	if q.From == nil || q.Where == nil || q.From.Source.In {
		return "", false
	}
	root, ok := q.From.Source.Expr.(*cosmosql.Ident)
	if !ok {
		return "", false
	}
	alias := q.From.Source.Alias
	if alias == "" {
		alias = root.Name
	}
	values := map[string]any{}
	var conj func(e cosmosql.Expr)
	conj = func(e cosmosql.Expr) {
		b, ok := e.(*cosmosql.Binary)
		if !ok {
			return
		}
		if strings.EqualFold(b.Op, "AND") {
			conj(b.L)
			conj(b.R)
			return
		}
		if b.Op != "=" {
			return
		}
		for _, side := range [][2]cosmosql.Expr{{b.L, b.R}, {b.R, b.L}} {
			path, ok := memberPath(side[0], alias)
			if !ok {
				continue
			}
			if v, ok := constValue(side[1], params); ok {
				values[path] = v
			}
		}
	}
	conj(q.Where)
	pk := make(PartitionKey, len(def.Paths))
	for i, p := range def.Paths {
		v, ok := values["/"+strings.Join(SplitPath(p), "/")]
		if !ok {
			return "", false
		}
		c, ok := pkComponent(v, false)
		if !ok {
			return "", false
		}
		pk[i] = c
	}
	return pk.Canonical(), true
}

// memberPath renders alias.a.b / alias["a"]["b"] as "/a/b".
func memberPath(e cosmosql.Expr, alias string) (string, bool) {
	var parts []string
	for {
		switch x := e.(type) {
		case *cosmosql.Member:
			parts = append([]string{x.Name}, parts...)
			e = x.X
		case *cosmosql.Index:
			lit, ok := x.Index.(*cosmosql.Literal)
			if !ok {
				return "", false
			}
			s, ok := lit.Value.(string)
			if !ok {
				return "", false
			}
			parts = append([]string{s}, parts...)
			e = x.X
		case *cosmosql.Ident:
			if x.Name != alias || len(parts) == 0 {
				return "", false
			}
			return "/" + strings.Join(parts, "/"), true
		default:
			return "", false
		}
	}
}

// constValue returns the JSON value of a primitive literal or parameter.
// NaN and Infinity are no JSON value (and no partition key holds them).
func constValue(e cosmosql.Expr, params map[string]json.RawMessage) (any, bool) {
	switch x := e.(type) {
	case *cosmosql.Literal:
		switch v := x.Value.(type) {
		case nil, bool, string:
			return v, true
		case float64:
			return v, !math.IsNaN(v) && !math.IsInf(v, 0)
		}
	case *cosmosql.Param:
		raw, ok := params[x.Name]
		if !ok || len(raw) == 0 {
			return nil, false
		}
		v, err := DecodeJSON(raw)
		if err != nil {
			return nil, false
		}
		switch v.(type) {
		case nil, bool, string, json.Number:
			return v, true
		}
	}
	return nil, false
}
