package emulator

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// The gateway's plan of an ORDER BY RANK query (full-text and hybrid
// search; reference search §A4): instead of a queryInfo it carries a
// hybridSearchQueryInfo, and the SDK runs the search itself:
//
//  1. the global statistics query on every range (requiresGlobalStatistics,
//     when a component is a FullTextScore): COUNT(1) AS documentCount and,
//     per FullTextScore component, SUM(_FullTextWordCount(path)) and one
//     COUNTIF(FullTextContains(path, term)) per term; the SDK adds up the
//     ranges' rows;
//  2. one component query per scoring function, on every range, with the
//     statistics put in place of the placeholders
//     {documentdb-formattablehybridsearchquery-totaldocumentcount},
//     {...-totalwordcount-<i>} and {...-hitcountsarray-<i>} (i: the
//     component's position); each row carries _rid, the projection and
//     every component's score;
//  3. the fusion on the client: one component's rows in score order, or
//     reciprocal rank fusion of several (dense ranks, k = 60, the plan's
//     componentWeights), then skip and take.
//
// Two component formats exist. The non-optimized one (what clients that
// do not list HybridSearchSkipOrderByRewrite get, and every single-component
// plan) is a non-streaming ORDER BY per component: orderByItems, the
// payload and the scores inside "payload", the filter placeholder. The
// optimized one (several components, HybridSearchSkipOrderByRewrite
// listed) returns payload and componentScores side by side and lets the
// client do all the sorting; a component that ranks ascending (Euclidean
// distance, a negative weight) has its score negated so that the client's
// descending sort ranks it right. Undefined scores become -1 (FullTextScore)
// or -1.79769e+308 (VectorDistance), +1.79769e+308 for an ascending
// component, so that they rank last, as the emulator's own ORDER BY RANK
// ranks them.

// hybridSearchQueryInfo is the plan's hybridSearchQueryInfo.
type hybridSearchQueryInfo struct {
	GlobalStatisticsQuery             string      `json:"globalStatisticsQuery"`
	ComponentQueryInfos               []queryInfo `json:"componentQueryInfos"`
	ComponentWithoutPayloadQueryInfos []queryInfo `json:"componentWithoutPayloadQueryInfos"`
	ProjectionQueryInfo               any         `json:"projectionQueryInfo"`
	ComponentWeights                  []float64   `json:"componentWeights"`
	Skip                              *int64      `json:"skip"`
	Take                              *int64      `json:"take"`
	RequiresGlobalStatistics          bool        `json:"requiresGlobalStatistics"`
}

// hybridPlan is the top level of a hybrid search plan (the gateway omits
// queryInfo there).
type hybridPlan struct {
	Version int                   `json:"partitionedQueryExecutionInfoVersion"`
	Hybrid  hybridSearchQueryInfo `json:"hybridSearchQueryInfo"`
	Ranges  []queryRange          `json:"queryRanges"`
}

// Placeholders of the hybrid plan's queries, which the SDKs replace
// (@azure/cosmos 4.10.1 hybridQueryExecutionContext, azure-cosmos for
// Python 4.17.1 hybrid_search_aggregator).
const (
	placeholderDocumentCount = "{documentdb-formattablehybridsearchquery-totaldocumentcount}"
	placeholderWordCount     = "{documentdb-formattablehybridsearchquery-totalwordcount-"
	placeholderHitCounts     = "{documentdb-formattablehybridsearchquery-hitcountsarray-"
	placeholderOrderByFilter = "{documentdb-formattableorderbyquery-filter}"
)

// MsgHybridOffsetLimit is the service's refusal of an OFFSET or LIMIT
// that is not a number literal in a hybrid search query (dotnet/efcore
// issue 35867 quotes it).
const MsgHybridOffsetLimit = "Invalid OFFSET/LIMIT spec for Hybrid Search query. Expected a number literal in order to distribute query correctly."

// hybridComponent is one scoring function of ORDER BY RANK, as the plan
// writes it.
type hybridComponent struct {
	score  string // the rewritten score expression (with placeholders)
	text   bool   // FullTextScore (else VectorDistance)
	path   string // FullTextScore's path, formatted
	terms  []string
	desc   bool // higher scores rank first
	weight float64
}

// coalesced is the component's entry in componentScores: undefined ranks
// last; in the optimized format an ascending score is negated (the client
// sorts every component descending).
func (c hybridComponent) coalesced(optimized bool) string {
	switch {
	case !c.desc && optimized:
		return "(-1 * (" + c.score + " ?? 1.79769e+308))"
	case !c.desc:
		return "(" + c.score + " ?? 1.79769e+308)"
	case c.text:
		return "(" + c.score + " ?? -1)"
	}
	return "(" + c.score + " ?? -1.79769e+308)"
}

// hybridSearchPlan builds the hybrid search plan of q (which has ORDER BY
// RANK) as JSON. ok is false for the queries it does not plan: SELECT
// VALUE (the SDKs need an object payload: @azure/cosmos 4.10.1
// HybridSearchQueryResult refuses another) and shapes the emulator does
// not serve with ORDER BY RANK (JOIN, GROUP BY, DISTINCT, a FROM path or
// subquery, user-defined functions); those are served whole by one range.
// An OFFSET or LIMIT that is not a number literal is refused (400) as the
// service refuses it.
func hybridSearchPlan(q *cosmosql.Query, params map[string]json.RawMessage, vectorFns map[string]string, optimized bool) (plan []byte, ok bool, err error) {
	if q.Select.Value != nil || q.From == nil || len(q.From.Joins) > 0 || q.From.Source.In || q.From.Source.Subquery != nil ||
		q.GroupBy != nil || q.Distinct || q.HasAggregates() || hasUDF(q) {
		return nil, false, nil
	}
	if _, isIdent := q.From.Source.Expr.(*cosmosql.Ident); !isIdent {
		return nil, false, nil
	}
	alias := rootAlias(q)
	comps, weighted, ok := hybridComponents(q.Rank, alias, params, vectorFns)
	if !ok {
		return nil, false, nil
	}
	var skip, take *int64
	literal := func(e cosmosql.Expr) (*int64, error) {
		lit, isLit := e.(*cosmosql.Literal)
		if !isLit {
			return nil, BadRequest("%s", MsgHybridOffsetLimit)
		}
		f, _ := lit.Value.(float64)
		n := int64(f)
		return &n, nil
	}
	if q.Offset != nil {
		if skip, err = literal(q.Offset); err != nil {
			return nil, false, err
		}
		if take, err = literal(q.Limit); err != nil {
			return nil, false, err
		}
	}
	if q.Top != nil {
		f, _ := countValue(q.Top, params)
		n := int64(f)
		take = &n
	}
	var top *int64
	if take != nil {
		var s int64
		if skip != nil {
			s = *skip
		}
		// (without TOP or LIMIT the components are unbounded: the SDKs
		// then need allowUnboundedNonStreamingQueries, as the JS SDK's own
		// full-text spec sets for every query)
		n := cosmosql.HybridComponentTop(s, *take)
		top = &n
	}
	payload := alias
	if !q.Select.Star {
		names := q.Select.OutputNames()
		fields := make([]string, len(q.Select.Items))
		for i, it := range q.Select.Items {
			n, _ := json.Marshal(names[i])
			fields[i] = string(n) + ": " + cosmosql.ExprSQL(it.Expr)
		}
		payload = "{" + strings.Join(fields, ", ") + "}"
	}
	info := hybridSearchQueryInfo{
		ComponentQueryInfos: []queryInfo{}, ComponentWithoutPayloadQueryInfos: []queryInfo{},
		ComponentWeights: []float64{}, Skip: skip, Take: take,
	}
	if weighted {
		for _, c := range comps {
			info.ComponentWeights = append(info.ComponentWeights, c.weight)
		}
	}
	// the statistics query, a FullTextScore component's entry each
	var stats []string
	for _, c := range comps {
		if !c.text {
			continue
		}
		hits := make([]string, len(c.terms))
		for j, term := range c.terms {
			hits[j] = "COUNTIF(FULLTEXTCONTAINS(" + c.path + ", " + cosmosql.ExprSQL(&cosmosql.Literal{Value: term}) + "))"
		}
		stats = append(stats, `{"totalWordCount": SUM(_FULLTEXTWORDCOUNT(`+c.path+`)), "hitCounts": [`+strings.Join(hits, ", ")+`]}`)
		info.RequiresGlobalStatistics = true
	}
	// (over every document: the statistics ignore the WHERE clause)
	whole := *q
	whole.Where = nil
	info.GlobalStatisticsQuery = "SELECT COUNT(1) AS documentCount, [" + strings.Join(stats, ", ") + "] AS fullTextStatistics" + fromWhere(&whole, "")
	topText := ""
	if top != nil {
		topText = "TOP " + strconv.FormatInt(*top, 10) + " "
	}
	single := len(comps) == 1
	for _, c := range comps {
		ci := emptyQueryInfo()
		dir := " DESC"
		if !c.desc {
			dir = " ASC"
		}
		if single || !optimized {
			scores := make([]string, 0, len(comps))
			if !(single && optimized) {
				for _, o := range comps {
					scores = append(scores, o.coalesced(false))
				}
			}
			ci.Top = top
			ci.OrderBy = []string{"Descending"}
			if !c.desc {
				ci.OrderBy = []string{"Ascending"}
			}
			ci.OrderByExpressions = []string{c.score}
			ci.HasNonStreamingOrderBy = true
			ci.RewrittenQuery = "SELECT " + topText + alias + `._rid, [{"item": ` + c.score + `}] AS orderByItems, {"payload": ` + payload +
				`, "componentScores": [` + strings.Join(scores, ", ") + `]} AS payload` + fromWhere(q, placeholderOrderByFilter) + " ORDER BY " + c.score + dir
		} else {
			scores := make([]string, len(comps))
			for j, o := range comps {
				scores[j] = o.coalesced(true)
			}
			ci.RewrittenQuery = "SELECT " + topText + alias + "._rid, " + payload + " AS payload, [" + strings.Join(scores, ", ") + "] AS componentScores" +
				fromWhere(q, "") + " ORDER BY " + c.score + dir
		}
		info.ComponentQueryInfos = append(info.ComponentQueryInfos, ci)
	}
	b, err := json.Marshal(hybridPlan{Version: 2, Hybrid: info, Ranges: []queryRange{{Min: "", Max: "FF", IsMinInclusive: true}}})
	return b, err == nil, err
}

// hybridComponents splits ORDER BY RANK's expression into the plan's
// components: FullTextScore(path, terms...) becomes _FullTextScore(path,
// [terms], <placeholders of component i>), VectorDistance(...) becomes
// _VectorScore(...); RRF's weights give each component |w| and a negative
// one reverses its direction. weighted reports RRF weights. ok is false
// for what the emulator does not plan (a term that is not a string
// constant, weights that are not numbers).
func hybridComponents(e cosmosql.Expr, alias string, params map[string]json.RawMessage, vectorFns map[string]string) (comps []hybridComponent, weighted, ok bool) {
	call, isCall := e.(*cosmosql.Call)
	if !isCall || call.UDF {
		return nil, false, false
	}
	args := []cosmosql.Expr{call}
	var weights []float64
	if strings.EqualFold(call.Name, "RRF") {
		args = call.Args
		if n := len(args); n > 0 {
			if _, isCall := args[n-1].(*cosmosql.Call); !isCall {
				w, good := rrfWeights(args[n-1], params)
				if !good {
					return nil, false, false
				}
				weights, args, weighted = w, args[:n-1], true
			}
		}
		if weights != nil && len(weights) != len(args) {
			return nil, false, false
		}
	}
	for i, a := range args {
		c, isCall := a.(*cosmosql.Call)
		if !isCall || c.UDF || len(c.Args) < 2 {
			return nil, false, false
		}
		comp := hybridComponent{desc: true, weight: 1}
		n := strconv.Itoa(i)
		switch {
		case strings.EqualFold(c.Name, "FULLTEXTSCORE"):
			terms, good := fullTextTerms(c.Args[1:], params)
			if !good {
				return nil, false, false
			}
			comp.text, comp.terms, comp.path = true, terms, cosmosql.ExprSQL(c.Args[0])
			lits := make([]string, len(terms))
			for j, t := range terms {
				lits[j] = cosmosql.ExprSQL(&cosmosql.Literal{Value: t})
			}
			comp.score = "_FULLTEXTSCORE(" + comp.path + ", [" + strings.Join(lits, ", ") + "], " + placeholderDocumentCount + ", " +
				placeholderWordCount + n + "}, " + placeholderHitCounts + n + "})"
		case strings.EqualFold(c.Name, "VECTORDISTANCE"):
			if desc, known := cosmosql.SimilarityOrder(c, alias, params, vectorFns); known {
				comp.desc = desc
			}
			parts := make([]string, len(c.Args))
			for j, x := range c.Args {
				parts[j] = cosmosql.ExprSQL(x)
			}
			comp.score = "_VECTORSCORE(" + strings.Join(parts, ", ") + ")"
		default:
			return nil, false, false
		}
		if weights != nil {
			comp.weight = weights[i]
			if comp.weight < 0 {
				comp.desc, comp.weight = !comp.desc, -comp.weight
			}
		}
		comps = append(comps, comp)
	}
	return comps, weighted, true
}

// rrfWeights reads RRF's weights: an array of number literals, or a
// parameter holding an array of numbers.
func rrfWeights(e cosmosql.Expr, params map[string]json.RawMessage) ([]float64, bool) {
	switch x := e.(type) {
	case *cosmosql.ArrayLit:
		w := make([]float64, len(x.Elems))
		for i, el := range x.Elems {
			f, ok := numberLiteral(el)
			if !ok {
				return nil, false
			}
			w[i] = f
		}
		return w, true
	case *cosmosql.Param:
		var w []float64
		if json.Unmarshal(params[x.Name], &w) != nil {
			return nil, false
		}
		return w, true
	}
	return nil, false
}

// numberLiteral is the finite value of a number literal (or its
// negation).
func numberLiteral(e cosmosql.Expr) (float64, bool) {
	switch x := e.(type) {
	case *cosmosql.Literal:
		f, ok := x.Value.(float64)
		return f, ok && !math.IsNaN(f) && !math.IsInf(f, 0)
	case *cosmosql.Unary:
		if x.Op == "-" {
			f, ok := numberLiteral(x.X)
			return -f, ok
		}
	}
	return 0, false
}

// fullTextTerms resolves FullTextScore's terms: string literals or
// parameters holding a string, each possibly in an array (the older form
// FullTextScore(c.t, ['a', 'b'])), or a parameter holding an array of
// strings.
func fullTextTerms(args []cosmosql.Expr, params map[string]json.RawMessage) ([]string, bool) {
	var terms []string
	var add func(e cosmosql.Expr, nested bool) bool
	add = func(e cosmosql.Expr, nested bool) bool {
		switch x := e.(type) {
		case *cosmosql.Literal:
			s, ok := x.Value.(string)
			terms = append(terms, s)
			return ok
		case *cosmosql.Param:
			var v any
			if json.Unmarshal(params[x.Name], &v) != nil {
				return false
			}
			switch y := v.(type) {
			case string:
				terms = append(terms, y)
				return true
			case []any:
				for _, el := range y {
					s, ok := el.(string)
					if !ok || nested {
						return false
					}
					terms = append(terms, s)
				}
				return !nested
			}
		case *cosmosql.ArrayLit:
			for _, el := range x.Elems {
				if nested || !add(el, true) {
					return false
				}
			}
			return !nested
		}
		return false
	}
	for _, a := range args {
		if !add(a, false) {
			return nil, false
		}
	}
	return terms, true
}

// hasUDF reports whether q calls a user-defined function anywhere.
func hasUDF(q *cosmosql.Query) bool {
	found := false
	cosmosql.WalkQuery(q, func(e cosmosql.Expr) bool {
		if c, ok := e.(*cosmosql.Call); ok && c.UDF {
			found = true
		}
		return !found
	})
	return found
}

// The account's limits on ranked queries (its queryEngineConfiguration:
// queryMaxRrfArgumentCount 100, queryMaxFullTextScoreSearchTerms 30; the
// service's refusal texts are not recorded). They also bound the hybrid
// plan, whose component queries each carry every component's score.
const (
	MaxRRFArguments         = 100
	MaxFullTextScoreTerms   = 30
	MsgTooManyRRFArguments  = "The number of arguments of RRF exceeds the maximum of 100."
	MsgTooManyFullTextTerms = "The number of search terms of FullTextScore exceeds the maximum of 30."
)

// checkRankLimits refuses (400) an ORDER BY RANK whose RRF has more than
// MaxRRFArguments scoring functions or whose FullTextScore has more than
// MaxFullTextScoreTerms terms (parameters holding arrays counted by their
// elements).
func checkRankLimits(q *cosmosql.Query, params map[string]json.RawMessage) error {
	call, ok := q.Rank.(*cosmosql.Call)
	if !ok || call.UDF {
		return nil
	}
	args := []cosmosql.Expr{call}
	if strings.EqualFold(call.Name, "RRF") {
		args = call.Args
		n := 0
		for _, a := range args {
			if _, isCall := a.(*cosmosql.Call); isCall {
				n++
			}
		}
		if n > MaxRRFArguments {
			return BadRequest("%s", MsgTooManyRRFArguments)
		}
	}
	for _, a := range args {
		c, ok := a.(*cosmosql.Call)
		if !ok || c.UDF || !strings.EqualFold(c.Name, "FULLTEXTSCORE") || len(c.Args) < 2 {
			continue
		}
		if terms, ok := fullTextTerms(c.Args[1:], params); ok && len(terms) > MaxFullTextScoreTerms {
			return BadRequest("%s", MsgTooManyFullTextTerms)
		}
	}
	return nil
}
