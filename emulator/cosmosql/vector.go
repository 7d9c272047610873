package cosmosql

import (
	"encoding/json"
	"strings"
)

// DocumentPath is the policy-style path ("/a/b") of an expression that is
// a path of property names from alias (alias.a.b, alias["a"].b); "" for
// any other expression. It is how a VectorDistance argument is matched to
// an entry of a container's vectorEmbeddingPolicy.
func DocumentPath(e Expr, alias string) string {
	var rev []string
	for {
		switch x := e.(type) {
		case *Member:
			rev = append(rev, x.Name)
			e = x.X
		case *Index:
			lit, _ := x.Index.(*Literal)
			if lit == nil {
				return ""
			}
			s, isStr := lit.Value.(string)
			if !isStr {
				return ""
			}
			rev = append(rev, s)
			e = x.X
		case *Ident:
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

// SimilarityOrder reports whether e is a VectorDistance call whose
// distance function is known from the query, and then the direction that
// sorts it most similar first, as the service sorts ORDER BY
// VectorDistance(...) whatever the direction written: descending scores
// for cosine and the dot product, ascending distances for euclidean. The
// distance function is the call's options' distanceFunction (an object
// literal, or a parameter looked up in params), else policyFns' entry for
// the DocumentPath of its first argument from alias (the container's
// vectorEmbeddingPolicy; nil when the caller has already put it into the
// call's options), else cosine. ok is false for any other expression, or
// options whose distance function is not a known string.
func SimilarityOrder(e Expr, alias string, params map[string]json.RawMessage, policyFns map[string]string) (desc, ok bool) {
	c, isCall := e.(*Call)
	if !isCall || c.UDF || !strings.EqualFold(c.Name, "VECTORDISTANCE") || len(c.Args) < 2 {
		return false, false
	}
	name := policyFns[DocumentPath(c.Args[0], alias)]
	if len(c.Args) > 3 {
		switch x := c.Args[3].(type) {
		case *ObjectLit:
			for _, f := range x.Fields {
				if strings.EqualFold(f.Key, "distanceFunction") {
					lit, _ := f.Value.(*Literal)
					if lit == nil {
						return false, false
					}
					s, isStr := lit.Value.(string)
					if !isStr {
						return false, false
					}
					name = s
				}
			}
		case *Param:
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
	case "", "cosine", "dotproduct":
		return true, true
	case "euclidean":
		return false, true
	}
	return false, false
}

// HybridComponentTop is how many results per scoring function a hybrid
// search asks for when the query wants skip+take results (OFFSET, and TOP
// or LIMIT): max(120, 2 * (skip + take)), which gives the gateway's
// observed component TOP of 120 for TOP 10 and 200 for TOP 100. The SDKs
// fuse only those candidates; the emulator's whole answer to an RRF query
// ranks the same candidates, so that both agree.
func HybridComponentTop(skip, take int64) int64 {
	return max(120, 2*(skip+take))
}
