package sqlgen

import (
	"encoding/json"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// Indexing. Every items table can carry btree indexes on
// (cosmos.type_rank(p), p) for document paths p: the Cosmos sort order of a
// path (type first, then value), which serves equality, range and ORDER BY
// on that path. The translator reports the paths a query filters or sorts
// on (Statement.IndexPaths) so that pgstore can create the index the
// default indexing policy implies, and it adds "sargable" conjuncts that
// such an index can serve: for a top-level WHERE term `path op constant`
// it adds `type_rank(path) = R AND path op constant::jsonb`. These extra
// conjuncts are implied by the exact Cosmos predicate (which stays), so they
// never change a result; they only let PostgreSQL use the index.

// PathExpr is the SQL of a document path over the jsonb column col ("doc"
// in index definitions, "r.doc" in queries); both spellings have the same
// structure, which is what PostgreSQL matches index expressions by.
func PathExpr(col string, path []string) string {
	s := col
	for _, p := range path {
		s = "(" + s + " -> " + QuoteLiteral(p) + ")"
	}
	return s
}

// IndexKey is the two-column index key of a path: type rank, then value.
func IndexKey(col string, path []string) (rank, value string) {
	p := PathExpr(col, path)
	return "cosmos.type_rank(" + p + ")", p
}

// rootPath returns the property names of a path on the container's root
// alias (c.a.b, c["a"]["b"]); system properties and array indexes are not
// paths of doc.
func (t *translator) rootPath(e cosmosql.Expr) ([]string, bool) {
	var path []string
	for {
		switch x := e.(type) {
		case *cosmosql.Member:
			path = append(path, x.Name)
			e = x.X
		case *cosmosql.Index:
			lit, ok := x.Index.(*cosmosql.Literal)
			if !ok {
				return nil, false
			}
			s, ok := lit.Value.(string)
			if !ok {
				return nil, false
			}
			path = append(path, s)
			e = x.X
		case *cosmosql.Ident:
			if b, ok := t.binds[x.Name]; !ok || !b.root || len(path) == 0 {
				return nil, false
			}
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			if strings.HasPrefix(path[0], "_") && !t.in.RawDocuments {
				switch path[0] {
				case "_ts", "_etag", "_rid", "_self", "_attachments":
					return nil, false
				}
			}
			return path, true
		default:
			return nil, false
		}
	}
}

// constJSON returns the JSON text and type rank of a primitive constant (a
// literal or a parameter).
func (t *translator) constJSON(e cosmosql.Expr) ([]byte, int, bool) {
	var v any
	switch x := e.(type) {
	case *cosmosql.Literal:
		v = x.Value
	case *cosmosql.Param:
		raw, ok := t.in.Params[x.Name]
		if !ok || len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
			return nil, 0, false
		}
	default:
		return nil, 0, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, 0, false
	}
	switch v.(type) {
	case nil:
		return b, 1, true
	case bool:
		return b, 2, true
	case float64:
		return b, 3, true
	case string:
		return b, 4, true
	}
	return nil, 0, false
}

var flipOp = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// maxSargable bounds the index-servable conjuncts a WHERE clause adds: an
// index needs one or two per path, and thousands of them (a generated
// filter of 20,000 AND terms) made PostgreSQL's planner grow without
// bound.
const maxSargable = 16

// sargable returns the index-servable conjuncts implied by the top-level
// AND terms of where (at most maxSargable, each once), and records the
// paths involved.
func (t *translator) sargable(where cosmosql.Expr) []string {
	var out []string
	seen := map[string]bool{}
	term := func(path []string, op string, c cosmosql.Expr) (string, bool) {
		raw, rank, ok := t.constJSON(c)
		key := strings.Join(path, "\x00") + "\x00" + op + "\x00" + string(raw)
		if !ok || !t.servable(rank, op) || seen[key] || len(out) >= maxSargable {
			return "", false
		}
		seen[key] = true
		return t.pathTerm(path, op, raw, rank), true
	}
	constServable := func(c cosmosql.Expr, op string) bool {
		_, rank, ok := t.constJSON(c)
		return ok && t.servable(rank, op)
	}
	var visit func(e cosmosql.Expr)
	visit = func(e cosmosql.Expr) {
		if len(out) >= maxSargable {
			return
		}
		switch x := e.(type) {
		case *cosmosql.Binary:
			op := strings.ToUpper(x.Op)
			if op == "AND" {
				visit(x.L)
				visit(x.R)
				return
			}
			if _, ok := flipOp[op]; !ok {
				return
			}
			path, ok := t.rootPath(x.L)
			c := x.R
			if !ok {
				if path, ok = t.rootPath(x.R); !ok {
					return
				}
				c, op = x.L, flipOp[op]
			}
			if s, ok := term(path, op, c); ok {
				out = append(out, s)
			}
		case *cosmosql.Between:
			if x.Not {
				return
			}
			// both bounds or neither (a bound translated is bound
			// arguments, which must all appear in the statement)
			if path, ok := t.rootPath(x.X); ok && len(out)+2 <= maxSargable && constServable(x.Lo, ">=") && constServable(x.Hi, "<=") {
				lo, okLo := term(path, ">=", x.Lo)
				hi, okHi := term(path, "<=", x.Hi)
				if okLo && okHi {
					out = append(out, lo, hi)
				} else if okLo || okHi {
					out = append(out, lo+hi)
				}
			}
		}
	}
	visit(where)
	return out
}

// servable reports whether a constant of type rank (constJSON) can be
// compared with op in a pathTerm: string ranges only when the database
// orders strings by code point (else jsonb's order could differ from the
// Cosmos order and the conjunct would not be implied).
func (t *translator) servable(rank int, op string) bool {
	return rank != 4 || op == "=" || t.in.CodePointCollation
}

// pathTerm is `type_rank(path) = rank AND path op raw`, for a constant raw
// of type rank (constJSON) that is servable with op.
func (t *translator) pathTerm(path []string, op string, raw []byte, rank int) string {
	t.indexPaths = append(t.indexPaths, path)
	r, v := IndexKey("r.doc", path)
	return r + " = " + t.bind(rank) + "::integer AND " + v + " " + op + " " + t.jsonArg(raw)
}

// CompositeIndex is one entry of an indexing policy's compositeIndexes.
type CompositeIndex []CompositePath

// CompositePath is one path of a composite index.
type CompositePath struct {
	Path []string
	Desc bool
}

// QueryError is a query the service refuses (a 400 with the service's
// message), as opposed to one this emulator cannot run yet.
type QueryError struct{ Message string }

// Error implements error.
func (e *QueryError) Error() string { return e.Message }

// MsgNoCompositeIndex is the service's refusal of an ORDER BY on several
// paths that no composite index serves.
const MsgNoCompositeIndex = "The order by query does not have a corresponding composite index that it can be served from."

// servedByComposite reports whether a composite index serves the ORDER BY
// terms: same paths in the same order, with the same directions or all of
// them reversed.
func servedByComposite(order []CompositePath, indexes []CompositeIndex) bool {
	for _, ci := range indexes {
		if len(ci) != len(order) {
			continue
		}
		same, reversed := true, true
		for i := range ci {
			if strings.Join(ci[i].Path, "\x00") != strings.Join(order[i].Path, "\x00") {
				same, reversed = false, false
				break
			}
			if ci[i].Desc != order[i].Desc {
				same = false
			} else {
				reversed = false
			}
		}
		if same || reversed {
			return true
		}
	}
	return false
}

// CompositeIndexKey is the column list of the index serving a composite
// index: rank and value of each path, in its direction.
func CompositeIndexKey(col string, ci CompositeIndex) string {
	var parts []string
	for _, p := range ci {
		dir := ""
		if p.Desc {
			dir = " DESC"
		}
		rank, value := IndexKey(col, p.Path)
		parts = append(parts, "("+rank+")"+dir, "("+value+")"+dir)
	}
	return strings.Join(parts, ", ")
}
