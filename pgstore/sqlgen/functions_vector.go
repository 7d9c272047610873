package sqlgen

import (
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// Vector search. Without vector indexes every search is exhaustive:
// VECTORDISTANCE computes the exact distance (see cosmos.vector_distance,
// migration 0005). The full-text functions are in functions_fulltext.go.

func init() {
	register(map[string]fn{
		// VECTORDISTANCE(v1, v2[, bruteForce[, options]]): v1 and v2 arrays
		// of numbers of the same length (else undefined); bruteForce is
		// ignored (but translated: it may hold a bind argument); options an
		// object whose distanceFunction ("cosine", the default,
		// "dotproduct" or "euclidean", in any case) picks the result: the
		// cosine similarity (1 for the same direction; undefined when a
		// vector has a zero norm), the dot product or the Euclidean
		// distance. Other options (dataType...) are ignored; options of
		// another type or an unknown distance function are undefined. The
		// container's vectorEmbeddingPolicy supplies the default for a
		// path it declares (ApplyVectorEmbeddingPolicy).
		"VECTORDISTANCE": {2, 4, func(t *translator, a []string) string {
			brute, opts := "NULL::jsonb", "NULL::jsonb"
			if len(a) > 2 {
				brute = a[2]
			}
			if len(a) > 3 {
				opts = a[3]
			}
			return "cosmos.vector_distance(" + a[0] + ", " + a[1] + ", " + brute + ", " + opts + ")"
		}},
	})
}

// ApplyVectorEmbeddingPolicy makes the distance functions that a
// container's vectorEmbeddingPolicy declares the defaults of the
// VECTORDISTANCE (and _VECTORSCORE, its hybrid plan form) calls of q whose
// first argument is a declared path:
// distanceFunctions maps paths as the policy writes them ("/embedding",
// "/a/b") to distance function names. Such a call without options gets
// the argument {"distanceFunction": <name>} (and bruteForce false if
// absent); options given as an object literal without distanceFunction
// get the member; options given otherwise (a parameter) are left alone.
// Only the calls at q's own level with a path from the container's alias
// are rewritten (subqueries may bind other names). q is modified in
// place; applying it again changes nothing.
func ApplyVectorEmbeddingPolicy(q *cosmosql.Query, distanceFunctions map[string]string) {
	if q == nil || len(distanceFunctions) == 0 || q.From == nil || q.From.Source.In || q.From.Source.Subquery != nil {
		return
	}
	root, ok := q.From.Source.Expr.(*cosmosql.Ident)
	if !ok {
		return
	}
	alias := q.From.Source.Alias
	if alias == "" {
		alias = root.Name
	}
	exprs := append([]cosmosql.Expr{q.Select.Value, q.Where, q.Rank}, q.GroupBy...)
	for _, it := range q.Select.Items {
		exprs = append(exprs, it.Expr)
	}
	for _, o := range q.OrderBy {
		exprs = append(exprs, o.Expr)
	}
	for _, e := range exprs {
		cosmosql.Walk(e, func(x cosmosql.Expr) bool {
			if _, sub := x.(*cosmosql.Subquery); sub {
				return false
			}
			c, ok := x.(*cosmosql.Call)
			if !ok || c.UDF || !(strings.EqualFold(c.Name, "VECTORDISTANCE") || strings.EqualFold(c.Name, "_VECTORSCORE")) || len(c.Args) < 2 {
				return true
			}
			name, ok := distanceFunctions[cosmosql.DocumentPath(c.Args[0], alias)]
			if !ok {
				return true
			}
			member := cosmosql.Field{Key: "distanceFunction", Value: &cosmosql.Literal{P: c.P, Value: name}}
			opts := &cosmosql.ObjectLit{P: c.P, Fields: []cosmosql.Field{member}}
			args := c.Args[:len(c.Args):len(c.Args)]
			switch len(args) {
			case 2:
				c.Args = append(args, &cosmosql.Literal{P: c.P, Value: false}, opts)
			case 3:
				c.Args = append(args, opts)
			case 4:
				if o, ok := args[3].(*cosmosql.ObjectLit); ok {
					for _, f := range o.Fields {
						if f.Key == member.Key {
							return true
						}
					}
					o.Fields = append(o.Fields[:len(o.Fields):len(o.Fields)], member)
				}
			}
			return true
		})
	}
}

// similarityOrder reports whether e is a VECTORDISTANCE call whose
// distance function is known at translation time, and then the direction
// that sorts it most similar first (cosmosql.SimilarityOrder; the
// container's policy is already in the call's options, put there by the
// rewrite above).
func (t *translator) similarityOrder(e cosmosql.Expr) (desc, ok bool) {
	return cosmosql.SimilarityOrder(e, "", t.in.Params, nil)
}
