package sqlgen

import (
	"encoding/json"
	"slices"
	"strconv"
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

// KeyedPKMax is the longest canonical partition key (bytes) whose rows a
// partition-first path index holds. Such an index (KeyedIndexKey) leads
// with the pk column, and a btree entry must fit in a third of a page
// (2,704 bytes): bounding the key leaves the path's value the room it has
// in the global path index, so that no write fails on the index a query
// made. The indexes are partial (KeyedIndexPredicate), and a
// single-partition query with a key this short carries the same predicate,
// which is what lets PostgreSQL use them.
const KeyedPKMax = 256

// KeyedIndexPredicate is the predicate of the partition-first path
// indexes over the pk column col ("pk" in the DDL, "r.pk" in queries).
func KeyedIndexPredicate(col string) string {
	return "octet_length(" + col + ") <= " + strconv.Itoa(KeyedPKMax)
}

// KeyedIndexKey is the key of the partition-first index of a path: the pk
// column, then the path's IndexKey. Within one logical partition it serves
// what IndexKey serves across the container, reading only that
// partition's entries (the global index reads every partition's, and the
// primary key the whole partition, documents included).
func KeyedIndexKey(col string, path []string) string {
	rank, value := IndexKey(col, path)
	return "pk, (" + rank + "), (" + value + ")"
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
// paths involved. exact reports that the conjuncts, with the partition
// and id column terms of the statement, are equivalent to where: every
// top-level term is `path op constant` (or BETWEEN two constants) with a
// servable constant, whose conjunct `type_rank(path) = R AND path op
// constant` holds exactly when the Cosmos comparison is true (same type,
// compared as cosmos.cmp compares: numbers as numeric, strings by code
// point under CodePointCollation, booleans and null alike), or a term
// that the pk or id column term already fixes (impliedByColumn). The
// caller then leaves the Cosmos predicate out: evaluating it reads the
// whole document (detoasting it once per reference) on every row the
// index conditions already decided.
func (t *translator) sargable(where cosmosql.Expr) (out []string, exact bool) {
	exact = true
	seen := map[string]bool{}
	// term adds the conjunct of `path op c`, if any; it reports whether
	// the comparison is represented exactly (added now or before, or
	// implied by a column term).
	term := func(path []string, op string, c cosmosql.Expr) bool {
		raw, rank, ok := t.constJSON(c)
		if !ok || !t.servable(rank, op) {
			return false
		}
		if op == "=" && t.impliedByColumn(path, raw, rank) {
			return true
		}
		key := strings.Join(path, "\x00") + "\x00" + op + "\x00" + string(raw)
		if seen[key] {
			return true
		}
		if len(out) >= maxSargable {
			return false
		}
		seen[key] = true
		out = append(out, t.pathTerm(path, op, raw, rank))
		return true
	}
	constServable := func(c cosmosql.Expr, op string) bool {
		_, rank, ok := t.constJSON(c)
		return ok && t.servable(rank, op)
	}
	var visit func(e cosmosql.Expr)
	visit = func(e cosmosql.Expr) {
		switch x := e.(type) {
		case *cosmosql.Binary:
			op := strings.ToUpper(x.Op)
			if op == "AND" {
				visit(x.L)
				visit(x.R)
				return
			}
			if _, ok := flipOp[op]; !ok {
				exact = false
				return
			}
			path, ok := t.rootPath(x.L)
			c := x.R
			if !ok {
				if path, ok = t.rootPath(x.R); !ok {
					exact = false
					return
				}
				c, op = x.L, flipOp[op]
			}
			if !term(path, op, c) {
				exact = false
			}
		case *cosmosql.Call:
			// a full-text filter on a path with a GIN index: the
			// conjunct narrows, the call decides (never exact)
			exact = false
			if len(out) < maxSargable {
				if c, ok := t.fullTextConjunct(x); ok {
					out = append(out, c)
				}
			}
		case *cosmosql.Between:
			// both bounds or neither (a bound translated is bound
			// arguments, which must all appear in the statement)
			path, ok := t.rootPath(x.X)
			if x.Not || !ok || len(out)+2 > maxSargable || !constServable(x.Lo, ">=") || !constServable(x.Hi, "<=") {
				exact = false
				return
			}
			if !term(path, ">=", x.Lo) || !term(path, "<=", x.Hi) {
				exact = false
			}
		default:
			exact = false
		}
	}
	visit(where)
	return out, exact
}

// impliedByColumn reports whether `path = raw` (a constant of type rank)
// holds for every row the statement's column terms keep: the partition
// key path equal to the partition the query reads (Input.PKPath), or, in
// one partition, the id equal to the id column term's (idkey.go; across
// partitions the term stays, for the id path's index).
func (t *translator) impliedByColumn(path []string, raw []byte, rank int) bool {
	if t.in.PK == nil || t.in.PKPrefix {
		return false
	}
	if t.in.PKJSON != nil && slices.Equal(path, t.in.PKPath) && string(raw) == string(t.in.PKJSON) {
		return true
	}
	if t.idColumn && rank == 4 && len(path) == 1 && path[0] == "id" {
		var id string
		return json.Unmarshal(raw, &id) == nil && id == t.idValue
	}
	return false
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
