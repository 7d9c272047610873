package sqlgen

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// ORDER BY RANK (reference search §A2, §A3): the documents that pass the
// WHERE clause, ordered by a scoring function, highest relevance first.
//
//   - FullTextScore(path, term, ...) is BM25 (cosmos.fts_score, migration
//     0028) over the statistics of the whole container: its live
//     documents, the tokens of path over all of them and, per term, how
//     many hold it. Like the gateway's global statistics they ignore the
//     WHERE clause and the partition key, so a score does not depend on
//     which partition a query reads.
//   - VectorDistance(...) sorts most similar first (descending, or
//     ascending for euclidean, as ORDER BY VectorDistance does).
//   - RRF(f1, f2, ...[, weights]) ranks the documents by each component
//     with dense ranks (equal scores share a rank) and sorts by
//     sum(w_i / (60 + rank_i)), as the SDKs fuse component results
//     (k = 60; weight 1 by default; a negative weight reverses the
//     component's direction and counts by its absolute value). With TOP
//     or LIMIT the fused documents are those among the first
//     cosmosql.HybridComponentTop of some component, as in the SDKs.
//
// A document whose component score is undefined (no such field) ranks
// after every scored one. Ties keep insertion order. TOP and OFFSET LIMIT
// apply to the ranked list; pages continue by position. The statement
// reads the container twice (statistics, once, then the ranked rows), each
// linear in its documents, and its text grows linearly with the query.

// rrfK is the rank constant of reciprocal rank fusion (reference §A3.3).
const rrfK = 60

// rankComponent is one scoring function of ORDER BY RANK.
type rankComponent struct {
	call   *cosmosql.Call
	text   bool     // FullTextScore (else VectorDistance)
	terms  []string // FullTextScore's terms
	desc   bool     // higher scores rank first
	weight float64
}

// rankQuery translates a query with ORDER BY RANK.
func (t *translator) rankQuery(q *cosmosql.Query, sc *scope) (*Statement, error) {
	switch {
	case t.udfIndex != nil:
		return nil, unsupported("ORDER BY RANK with user-defined functions")
	case sc.nonRoot || len(q.From.Joins) > 0:
		// (the service does not support FullTextScore with JOIN either)
		return nil, unsupported("ORDER BY RANK over JOIN or a FROM path")
	case q.GroupBy != nil || hasAggregates(q):
		return nil, unsupported("ORDER BY RANK with GROUP BY or aggregates")
	case q.Distinct:
		return nil, unsupported("ORDER BY RANK with DISTINCT")
	}
	comps, err := t.rankComponents(q.Rank)
	if err != nil {
		return nil, err
	}
	st := &Statement{Peek: true, OffsetPaging: true}
	var out []string
	where := append([]string(nil), sc.where...)
	switch {
	case q.Select.Star, isRootValue(q, t, true):
		st.Mode = ModeDocument
		out = documentColumns
	default:
		if out, where, err = t.projectRows(q, st, where); err != nil {
			return nil, err
		}
	}
	inner := []string{"r.seq AS seq"}
	outer := []string{"x.seq"}
	for i, o := range out {
		n := "o" + strconv.Itoa(i)
		inner = append(inner, o+" AS "+n)
		outer = append(outer, "x."+n)
	}
	from := append([]string(nil), sc.from...)
	stats, err := t.fullTextStatistics(comps)
	if err != nil {
		return nil, err
	}
	with := ""
	if stats != "" {
		// A CTE, materialized: computed once. As a subquery in FROM the
		// planner may make it the inner side of a nested loop under a
		// selective WHERE (a FullTextContains the GIN index answers, whose
		// estimate is one row) and read the whole container again for
		// every matching document.
		with = "WITH fts AS MATERIALIZED " + stats + " "
		from = append(from, "CROSS JOIN fts")
	}
	for i, c := range comps {
		s, err := t.componentScore(i, c)
		if err != nil {
			return nil, err
		}
		inner = append(inner, s+" AS s"+strconv.Itoa(i))
	}
	rows := with + "SELECT " + strings.Join(inner, ", ") + " FROM " + strings.Join(from, " ") + " WHERE " + strings.Join(where, " AND ")

	var order string
	if len(comps) == 1 && q.Rank == comps[0].call {
		order = "x.s0 " + direction(comps[0].desc) + " NULLS LAST, x.seq"
	} else {
		total, skip, err := t.limits(q)
		if err != nil {
			return nil, err
		}
		if total >= 0 {
			// the candidates: the documents among the first
			// HybridComponentTop of some component, the ones the SDKs'
			// hybrid pipelines fuse (each component query returns that
			// many), so that the whole answer equals their fusion
			window := t.bind(cosmosql.HybridComponentTop(skip, total))
			numbered := []string{"x.*"}
			var within []string
			for i, c := range comps {
				n := strconv.Itoa(i)
				numbered = append(numbered, "row_number() OVER (ORDER BY x.s"+n+" "+direction(c.desc)+" NULLS LAST, x.seq) AS n"+n)
				within = append(within, "x.n"+n+" <= "+window)
			}
			rows = "SELECT x.* FROM (SELECT " + strings.Join(numbered, ", ") + " FROM (" + rows + ") AS x) AS x WHERE " + strings.Join(within, " OR ")
		}
		ranks := []string{"x.*"}
		var fused []string
		for i, c := range comps {
			n := strconv.Itoa(i)
			ranks = append(ranks, "dense_rank() OVER (ORDER BY x.s"+n+" "+direction(c.desc)+" NULLS LAST) AS k"+n)
			fused = append(fused, t.bind(c.weight)+"::double precision / ("+strconv.Itoa(rrfK)+" + x.k"+n+")")
		}
		rows = "SELECT " + strings.Join(ranks, ", ") + " FROM (" + rows + ") AS x"
		order = "(" + strings.Join(fused, " + ") + ") DESC, x.seq"
	}

	fetch, offset, err := t.offsetPage(q, st)
	if err != nil {
		return nil, err
	}
	st.SQL = "SELECT " + strings.Join(outer, ", ") + " FROM (" + rows + ") AS x ORDER BY " + order +
		" LIMIT " + t.bind(fetch) + " OFFSET " + t.bind(offset)
	st.Args = t.args
	return st, nil
}

func direction(desc bool) string {
	if desc {
		return "DESC"
	}
	return "ASC"
}

// rankComponents splits the scoring expression of ORDER BY RANK into its
// components (one, or RRF's) with their directions, terms and weights.
// The parser has checked the shape (cosmosql checker.rank).
func (t *translator) rankComponents(e cosmosql.Expr) ([]rankComponent, error) {
	call, ok := e.(*cosmosql.Call)
	if !ok {
		return nil, unsupported("this ORDER BY RANK expression")
	}
	args := []cosmosql.Expr{call}
	var weights []float64
	if strings.EqualFold(call.Name, "RRF") {
		args = call.Args
		if n := len(args); n > 0 {
			if _, isCall := args[n-1].(*cosmosql.Call); !isCall {
				w, err := t.rrfWeights(args[n-1])
				if err != nil {
					return nil, err
				}
				weights, args = w, args[:n-1]
			}
		}
		if weights != nil && len(weights) != len(args) {
			// (the service's answer is not recorded; no fusion is right)
			return nil, &QueryError{Message: "The number of RRF weights must equal the number of scoring functions."}
		}
	}
	comps := make([]rankComponent, len(args))
	for i, a := range args {
		c, ok := a.(*cosmosql.Call)
		if !ok {
			return nil, unsupported("this ORDER BY RANK expression")
		}
		comp := rankComponent{call: c, desc: true, weight: 1}
		if strings.EqualFold(c.Name, "FULLTEXTSCORE") {
			if len(c.Args) < 2 {
				return nil, &UnsupportedError{What: "calling FULLTEXTSCORE with this number of arguments"}
			}
			if _, ok := t.rootPath(c.Args[0]); !ok {
				return nil, unsupported("FullTextScore of an expression that is not a property path")
			}
			terms, err := t.fullTextTerms(c.Args[1:])
			if err != nil {
				return nil, err
			}
			comp.text, comp.terms = true, terms
		} else if desc, known := t.similarityOrder(c); known {
			comp.desc = desc
		}
		if weights != nil {
			comp.weight = weights[i]
			if comp.weight < 0 {
				// a negative weight reverses the component (reference §A3.3)
				comp.desc, comp.weight = !comp.desc, -comp.weight
			}
		}
		comps[i] = comp
	}
	return comps, nil
}

// rrfWeights reads RRF's weights: an array of number literals, or a
// parameter holding an array of numbers.
func (t *translator) rrfWeights(e cosmosql.Expr) ([]float64, error) {
	bad := &QueryError{Message: "The RRF weights must be an array of numbers."}
	switch x := e.(type) {
	case *cosmosql.ArrayLit:
		w := make([]float64, len(x.Elems))
		for i, el := range x.Elems {
			f, ok := numberLiteral(el)
			if !ok {
				return nil, bad
			}
			w[i] = f
		}
		return w, nil
	case *cosmosql.Param:
		var w []float64
		if err := json.Unmarshal(t.in.Params[x.Name], &w); err != nil {
			return nil, bad
		}
		return w, nil
	}
	return nil, bad
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
// parameters, each possibly an array of them (the older form
// FullTextScore(c.t, ['a', 'b'])).
func (t *translator) fullTextTerms(args []cosmosql.Expr) ([]string, error) {
	var terms []string
	bad := &QueryError{Message: "The FullTextScore search terms must be strings."}
	var add func(e cosmosql.Expr, nested bool) error
	add = func(e cosmosql.Expr, nested bool) error {
		switch x := e.(type) {
		case *cosmosql.Literal:
			s, ok := x.Value.(string)
			if !ok {
				return bad
			}
			terms = append(terms, s)
		case *cosmosql.Param:
			var v any
			if err := json.Unmarshal(t.in.Params[x.Name], &v); err != nil {
				return bad
			}
			switch y := v.(type) {
			case string:
				terms = append(terms, y)
			case []any:
				if nested {
					return bad
				}
				for _, el := range y {
					s, ok := el.(string)
					if !ok {
						return bad
					}
					terms = append(terms, s)
				}
			default:
				return bad
			}
		case *cosmosql.ArrayLit:
			if nested {
				return bad
			}
			for _, el := range x.Elems {
				if err := add(el, true); err != nil {
					return err
				}
			}
		default:
			return unsupported("FullTextScore search terms that are not literals or parameters")
		}
		return nil
	}
	for _, a := range args {
		if err := add(a, false); err != nil {
			return nil, err
		}
	}
	return terms, nil
}

// fullTextStatistics is the one-row subquery of the container's
// statistics for the FullTextScore components (n, then per component i
// wi, the tokens of its field over all documents, and hi, how many
// documents hold each term), "" when there is none. It reads every live
// document of the container, whatever the query's WHERE and partition.
func (t *translator) fullTextStatistics(comps []rankComponent) (string, error) {
	var cols, vecs []string
	for i, c := range comps {
		if !c.text {
			continue
		}
		n := strconv.Itoa(i)
		path, err := t.val(c.call.Args[0])
		if err != nil {
			return "", err
		}
		cfg := t.fullTextConfig(c.call.Args[0])
		vecs = append(vecs, "cosmos.fts_vector("+cfg+", "+path+") AS v"+n)
		cols = append(cols, "coalesce(sum(cosmos.fts_length(f.v"+n+")), 0)::double precision AS w"+n)
		hits := make([]string, len(c.terms))
		for j, term := range c.terms {
			hits[j] = "count(*) FILTER (WHERE cosmos.fts_has(f.v" + n + ", cosmos.fts_lexemes(" + cfg + ", " + t.bind(term) + "::text)))"
		}
		cols = append(cols, "ARRAY["+strings.Join(hits, ", ")+"]::double precision[] AS h"+n)
	}
	if len(cols) == 0 {
		return "", nil
	}
	return "(SELECT count(*)::double precision AS n, " + strings.Join(cols, ", ") + " FROM " + t.in.Table +
		" AS r CROSS JOIN LATERAL (SELECT " + strings.Join(vecs, ", ") + ") AS f WHERE " + t.in.Live + ")", nil
}

// componentScore is the SQL score (a double, NULL when undefined) of
// component i for the current document.
func (t *translator) componentScore(i int, c rankComponent) (string, error) {
	if !c.text {
		v, err := t.val(c.call)
		if err != nil {
			return "", err
		}
		return "cosmos.num(" + v + ")", nil
	}
	path, err := t.val(c.call.Args[0])
	if err != nil {
		return "", err
	}
	cfg := t.fullTextConfig(c.call.Args[0])
	n := strconv.Itoa(i)
	return "cosmos.fts_score(" + cfg + ", cosmos.fts_vector(" + cfg + ", " + path + "), " + t.bind(c.terms) + "::text[], fts.n, fts.w" + n + ", fts.h" + n + ")", nil
}
