package sqlgen

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// UnsupportedError is a query this translator cannot run (yet). It is a
// client error (400) naming what is unsupported.
type UnsupportedError struct{ What string }

// Error implements error.
func (e *UnsupportedError) Error() string {
	return e.What + " is not supported by this emulator yet."
}

func unsupported(format string, args ...any) error {
	return &UnsupportedError{What: fmt.Sprintf(format, args...)}
}

// Mode says how the rows of a Statement become result documents.
type Mode int

// Result modes.
const (
	// ModeDocument: each row carries pk, id, body, ts, etag of a stored
	// document, rendered with its system properties (SELECT *, SELECT VALUE c).
	ModeDocument Mode = iota
	// ModeValue: one jsonb column per row is the result (SELECT VALUE e).
	ModeValue
	// ModeObject: one jsonb column per projected item; the result is an
	// object of the non-undefined ones, in statement order.
	ModeObject
	// ModeUDFArgs: the scan statement of a query calling user-defined
	// functions: Statement.UDFCols text columns, the JSON of each call's
	// arguments in order (NULL when undefined); see udf.go.
	ModeUDFArgs
)

// Input is what Translate needs besides the query.
type Input struct {
	// Table is the items table (trusted, built by pgstore from an integer).
	Table string
	// CollRID is the container's RID bytes (for _rid and _self).
	CollRID []byte
	// SelfPrefix is "dbs/<dbRid>/colls/<collRid>/docs/".
	SelfPrefix string
	// Args holds the bind arguments already used by Live; Translate
	// appends to a copy.
	Args []any
	// Live is the expiry predicate over the row alias r (see pgstore).
	Live string
	// PK restricts the query to one logical partition (canonical key).
	PK *string
	// PKPrefix says that PK is the canonical prefix of a hierarchical key
	// (emulator.PartitionKey.CanonicalPrefix): the query reads the
	// partitions whose keys start with it.
	PKPrefix bool
	// PKPath and PKJSON, set with PK (not a prefix) when the container's
	// partition key has one path, are that path and the key's value as
	// JSON (encoding/json's encoding of the decoded component, as
	// constants are encoded here): a top-level WHERE term `path = constant`
	// whose constant encodes the same holds for every row of the
	// partition, so the pk column term stands for it (see sargable).
	PKPath []string
	PKJSON []byte
	// EPKMin and EPKMax, when set, keep only the documents whose
	// effective partition key (the items table's epk column, upper-case
	// hex, ordinal order) is at least EPKMin and below EPKMax: a query
	// confined to a partition key range or a sub-range of one. Like PK,
	// they filter the container's rows, whatever the query's shape.
	EPKMin, EPKMax *string
	// Params are the query parameters by name (with '@'); an absent name
	// or a nil value is undefined.
	Params map[string]json.RawMessage
	// PageSize is the most results the page may hold.
	PageSize int
	// Cursor resumes after the last row of the previous page (nil: start).
	Cursor *Cursor
	// CodePointCollation is true when the database's default collation
	// orders text by code point ("C"), so jsonb string ranges agree with
	// Cosmos string order and may be pushed to indexes.
	CodePointCollation bool
	// CompositeIndexes are the container's composite indexes; an ORDER BY
	// on several paths needs one of them, as on the service.
	CompositeIndexes []CompositeIndex
	// NowTicks is the emulator's current time in 100-ns ticks since the
	// Unix epoch, for GETCURRENT*; 0 means PostgreSQL's clock.
	NowTicks int64
	// RawDocuments says that Table's doc column holds complete resources,
	// system properties included (database, container and offer queries),
	// rather than stored items whose system properties are columns.
	RawDocuments bool
	// Ctx, when set, is the request's context: translation stops with its
	// error once it is done (work that grows with the query checks it).
	Ctx context.Context
	// FullTextConfigs maps the paths of the container's fullTextPolicy
	// ("/a/b") to the text search configuration of their language
	// (FullTextConfig); FullTextDefault is the configuration of the
	// policy's defaultLanguage ("" : DefaultFullTextConfig).
	FullTextConfigs map[string]string
	FullTextDefault string
	// FullTextIndexed holds the paths ("/a/b") of the container's
	// indexingPolicy.fullTextIndexes, each of which has a GIN index over
	// FullTextIndexExpr: full-text filters on them get a conjunct that
	// index answers.
	FullTextIndexed map[string]bool
	// UDF, when set, translates a query calling user-defined functions
	// into its scan or evaluation statement (see udf.go); nil refuses
	// such calls as unsupported.
	UDF *UDFStage
}

// Statement is a translated query page.
type Statement struct {
	SQL  string
	Args []any
	Mode Mode
	// Names are the output names of ModeObject columns.
	Names []string
	// Joins is the number of join ordinal columns after seq.
	Joins int
	// SortKeys is the number of ORDER BY terms; each has a rank and a value
	// column after the ordinals.
	SortKeys int
	// Peek is true when the statement fetches one row beyond the page, to
	// know whether another page exists; it is false only when TOP/LIMIT
	// ends the results with this page (Capped).
	Peek bool
	// Limit is the most rows that belong to this page.
	Limit int
	// Single is true when the query yields at most one row and never pages
	// (aggregates without GROUP BY, SELECT without FROM).
	Single bool
	// Taken is the number of results returned by earlier pages (TOP/LIMIT).
	Taken int64
	// Capped is true when TOP/LIMIT bounds the total number of results and
	// this page reaches the bound.
	Capped bool
	// OffsetPaging is true when pages continue by position (GROUP BY): the
	// cursor only carries Taken.
	OffsetPaging bool
	// IndexPaths are the document paths the query filters or sorts on in a
	// way an index on IndexKey(path) can serve.
	IndexPaths [][]string
	// IDColumn is true when the statement filters the items table's id
	// column as well (a top-level c.id = 'x' term, see idkey.go): with the
	// partition key known, the primary key serves it.
	IDColumn bool
	// KeyedIndexes is true when the statement reads one logical partition
	// whose key is short enough for the partition-first path indexes
	// (KeyedPKMax) and carries their predicate (KeyedIndexPredicate), so
	// that they, rather than the global ones, are the indexes to make for
	// IndexPaths.
	KeyedIndexes bool
	// UDFArgs is the number of arguments of each UDF call (UDFCalls
	// order), UDFGuards says which of them are followed by a guard column
	// (non-NULL when the query uses the call's value: a NULL guard skips
	// the call), and UDFCols is the number of output columns after the
	// keyset (ModeUDFArgs).
	UDFArgs   []int
	UDFGuards []bool
	UDFCols   int
	// NULFlag is true when a boolean column precedes the output columns
	// (ModeValue, ModeObject), after the sort keys: true for a row whose U+FFFD characters in
	// the output are its document's U+0000 (see nulFlagColumn).
	NULFlag bool
	// Total is the TOP/LIMIT bound of the whole query (-1: none) and
	// Offset its OFFSET, for callers that page UDF queries themselves.
	Total, Offset int64
	// UsesNow is true when the statement binds Input.NowTicks (the query
	// reads the current time): it holds for that time only.
	UsesNow bool
}

// Cursor is the position after the last row of a page: the keyset of that
// row and how many results were returned so far.
type Cursor struct {
	Seq   int64             `json:"s"`
	Ords  []int64           `json:"o,omitempty"`
	Ranks []int             `json:"r,omitempty"`
	Vals  []json.RawMessage `json:"v,omitempty"`
	Taken int64             `json:"n"`
	// Skip is how many matching rows of OFFSET are still to be skipped
	// (UDF queries, which apply OFFSET while paging).
	Skip int64 `json:"k,omitempty"`
}

// binding is what a FROM alias stands for.
type binding struct {
	expr string // jsonb SQL expression
	root bool   // the container's document (system properties available)
}

type translator struct {
	in         Input
	args       []any
	binds      map[string]binding
	indexPaths [][]string
	idColumn   bool   // see Statement.IDColumn
	keyed      bool   // see Statement.KeyedIndexes
	idValue    string // the id the id column term fixes (idColumn)
	// idWhere is a WHERE clause that is exactly c.id = 'x', which the id
	// column term alone evaluates (see idkey.go); nil otherwise.
	idWhere   cosmosql.Expr
	usedNow   bool              // Input.NowTicks was bound (Statement.UsesNow)
	depth     int               // subquery nesting
	raw8      map[string]string // see f8
	exprDepth int               // nesting of val (see MaxExprDepth)
	// collRID and selfPrefix are the bound container RID and _self prefix
	// ("" until first used).
	collRID, selfPrefix string
	// udfIndex numbers the UDF calls of a query translated with
	// Input.UDF (nil otherwise); udfScan is true for its scan statement,
	// udfBatch is the batch of its evaluation statement.
	udfIndex map[*cosmosql.Call]int
	udfCalls []*cosmosql.Call
	udfQuery *cosmosql.Query
	udfScan  bool
	udfWhole bool
	udfBatch *UDFBatch
}

// bind adds v to the statement's arguments and returns its placeholder.
// Text arguments get U+FFFD for U+0000 (see textWithoutNUL).
func (t *translator) bind(v any) string {
	switch x := v.(type) {
	case string:
		v = textWithoutNUL(x)
	case []string:
		ys := make([]string, len(x))
		for i, s := range x {
			ys[i] = textWithoutNUL(s)
		}
		v = ys
	}
	t.args = append(t.args, v)
	return "$" + strconv.Itoa(len(t.args))
}

// jsonArg binds a JSON text as a jsonb argument (with \ufffd for each
// \u0000 escape, which jsonb refuses: see jsonWithoutNUL).
func (t *translator) jsonArg(raw []byte) string {
	return t.bind(string(jsonWithoutNUL(raw))) + "::jsonb"
}

// Translate builds the statement of one page of q.
func Translate(q *cosmosql.Query, in Input) (*Statement, error) {
	t := &translator{in: in, args: append([]any(nil), in.Args...), binds: map[string]binding{}}
	if in.UDF != nil {
		t.udfCalls, t.udfQuery = UDFCalls(q), q
		if err := checkUDFPlacement(q, t.udfCalls, in.UDF.Whole); err != nil {
			return nil, err
		}
		t.udfIndex = make(map[*cosmosql.Call]int, len(t.udfCalls))
		for i, c := range t.udfCalls {
			t.udfIndex[c] = i
		}
		t.udfBatch, t.udfWhole = in.UDF.Batch, in.UDF.Whole
		t.udfScan = t.udfBatch == nil
	}
	st, err := t.query(q)
	if st != nil {
		st.UsesNow = t.usedNow
	}
	return st, err
}

// scope is the FROM and WHERE of a query: the row sources, the filters,
// and the ordinal columns of the array iterations (for keyset paging).
type scope struct {
	from, where, ords []string
	// iters are the iteration sources (FROM x IN, JOIN x IN, JOIN
	// (query)), in order, one per ordinal in ords: their from entries
	// without the CROSS JOIN LATERAL before them (see nestedPage).
	iters []iteration
	// nonRoot is true when the first source is a path or an iteration, not
	// the container's documents themselves.
	nonRoot bool
}

// scopeOf translates FROM, JOIN and WHERE, binding the aliases.
func (t *translator) scopeOf(q *cosmosql.Query) (*scope, error) {
	src := q.From.Source
	if src.Subquery != nil {
		// FROM (query) s: the inner query's results, numbered in its order,
		// stand in for the container's rows (see derivedTable); it applies
		// the partition and expiry filters itself.
		inner, err := t.derivedTable(src.Subquery)
		if err != nil {
			return nil, err
		}
		sc := &scope{from: []string{"(" + inner + ") AS r"}, where: []string{"TRUE"}, nonRoot: true}
		if src.Alias != "" {
			t.binds[src.Alias] = binding{expr: "r.v"}
		}
		return t.joinsAndWhere(q, sc)
	}
	sc := &scope{from: []string{t.in.Table + " AS r"}, where: []string{t.in.Live}}
	switch {
	case t.in.PK != nil && t.in.PKPrefix:
		sc.where = append(sc.where, "starts_with(r.pk, "+t.bind(*t.in.PK)+"::text)")
	case t.in.PK != nil:
		sc.where = append(sc.where, "r.pk = "+t.bind(*t.in.PK))
		if len(*t.in.PK) <= KeyedPKMax {
			// lets the partition-first path indexes serve the query
			sc.where = append(sc.where, KeyedIndexPredicate("r.pk"))
			t.keyed = true
		}
	}
	if t.in.EPKMin != nil {
		sc.where = append(sc.where, "r.epk >= "+t.bind(*t.in.EPKMin)+"::text")
	}
	if t.in.EPKMax != nil {
		sc.where = append(sc.where, "r.epk < "+t.bind(*t.in.EPKMax)+"::text")
	}
	rootDoc := "r.doc"
	// The first source: the container itself (c, root r), a path inside it
	// (c.children ch), or the elements of an array (x IN c.arr).
	rootName, path, err := sourcePath(src.Expr)
	computed := false
	if err != nil {
		// an expression over the container's items: a computed property
		// the domain expanded (FROM x IN c.cp), whose identifiers all
		// name the container
		id := firstIdent(src.Expr)
		if id == "" {
			return nil, err
		}
		rootName, computed = id, true
	}
	t.binds[rootName] = binding{expr: rootDoc, root: true}
	if len(path) > 0 || src.In || computed {
		sc.nonRoot = true
		base, err := t.val(src.Expr)
		if err != nil {
			return nil, err
		}
		if src.In {
			sc.iterate("jsonb_array_elements(cosmos.arr("+base+")) WITH ORDINALITY AS j0(v, o)", "j0")
			t.binds[src.Alias] = binding{expr: "j0.v"}
		} else {
			sc.where = append(sc.where, base+" IS NOT NULL")
			if src.Alias != "" {
				t.binds[src.Alias] = binding{expr: base}
			}
		}
	} else if src.Alias != "" && src.Alias != rootName {
		t.binds[src.Alias] = binding{expr: rootDoc, root: true}
	}
	if q.Where != nil && t.udfIndex == nil && !t.in.RawDocuments {
		// c.id = 'x' also filters on the id column (see idkey.go)
		if id, ok := t.idEquality(q.Where); ok {
			sc.where = append(sc.where, "r.id = "+t.bind(id)+"::text")
			t.idColumn, t.idValue = true, id
			if b := q.Where.(*cosmosql.Binary); !strings.EqualFold(b.Op, "AND") {
				// the whole WHERE is c.id = 'x': the id column term is exact
				t.idWhere = q.Where
			}
		}
	}
	return t.joinsAndWhere(q, sc)
}

// joinsAndWhere translates the JOIN sources and the WHERE clause of q into
// sc, after its first source.
func (t *translator) joinsAndWhere(q *cosmosql.Query, sc *scope) (*scope, error) {
	for i, j := range q.From.Joins {
		name := fmt.Sprintf("j%d", i+1)
		if j.Subquery != nil {
			// JOIN (query) a: one tuple per (defined) value of the
			// correlated subquery, in its order.
			sub, err := t.subselect(j.Subquery)
			if err != nil {
				return nil, err
			}
			sc.iterate("(SELECT s.v, row_number() OVER () AS o FROM ("+sub+") AS s WHERE s.v IS NOT NULL) AS "+name, name)
			if j.Alias != "" {
				t.binds[j.Alias] = binding{expr: name + ".v"}
			}
			continue
		}
		base, err := t.val(j.Expr)
		if err != nil {
			return nil, err
		}
		if !j.In {
			// JOIN c.arr a binds the value itself (one tuple per
			// document where it is defined); only "a IN c.arr" iterates.
			sc.where = append(sc.where, base+" IS NOT NULL")
			t.binds[j.Alias] = binding{expr: base}
			continue
		}
		sc.iterate("jsonb_array_elements(cosmos.arr("+base+")) WITH ORDINALITY AS "+name+"(v, o)", name)
		t.binds[j.Alias] = binding{expr: name + ".v"}
	}
	if t.udfIndex != nil {
		if !t.udfScan {
			j, err := t.udfJoin(sc.ords, false)
			if err != nil {
				return nil, err
			}
			sc.from = append(sc.from, j)
		}
		var err error
		sc.where, err = t.udfWhere(q.Where, sc.where)
		return sc, err
	}
	if q.Where != nil && q.Where != t.idWhere {
		terms, exact := t.sargable(q.Where)
		if !exact {
			w, err := t.val(q.Where)
			if err != nil {
				return nil, err
			}
			sc.where = append(sc.where, "("+w+") = 'true'::jsonb")
		}
		sc.where = append(sc.where, terms...)
	}
	return sc, nil
}

func (t *translator) query(q *cosmosql.Query) (*Statement, error) {
	if q.Rank != nil && q.From == nil {
		return nil, errRank
	}
	if q.From == nil {
		return t.noFrom(q)
	}
	sc, err := t.scopeOf(q)
	if err != nil {
		return nil, err
	}
	if q.Rank != nil {
		return t.rankQuery(q, sc)
	}
	// (the scan statement of a query with UDFs reads plain rows)
	if q.GroupBy != nil && !t.udfScan {
		return t.groupBy(q, sc)
	}
	if q.Distinct && !t.udfScan {
		return t.distinct(q, sc)
	}
	st := &Statement{Joins: len(sc.ords)}
	from, where, ords := sc.from, sc.where, sc.ords
	src := q.From.Source

	// Aggregates without GROUP BY: one row, computed over the whole set.
	if hasAggregates(q) && !t.udfScan {
		return t.aggregate(q, sc)
	}

	// Output columns.
	var out []string
	switch {
	case t.udfScan:
		cols, err := t.udfArgColumns(st, t.udfCalls)
		if err != nil {
			return nil, err
		}
		out = cols
	case q.Select.Star && sc.nonRoot:
		// SELECT * over a single non-root source yields that source's values.
		if len(q.From.Joins) > 0 {
			return nil, unsupported("SELECT * over JOIN")
		}
		st.Mode = ModeValue
		v := t.binds[src.Alias].expr
		if src.Alias == "" {
			return nil, unsupported("SELECT * over a FROM path without an alias")
		}
		out = []string{"(" + v + ")::text"}
	case q.Select.Star:
		if len(q.From.Joins) > 0 {
			return nil, unsupported("SELECT * over JOIN")
		}
		st.Mode = ModeDocument
		out = documentColumns
	case isRootValue(q, t, st.Joins == 0 && !sc.nonRoot):
		st.Mode = ModeDocument
		out = documentColumns
	default:
		if out, where, err = t.projectRows(q, st, where); err != nil {
			return nil, err
		}
		if t.depth == 0 && t.udfIndex == nil && src.Subquery == nil {
			// (the rows of a subquery, a FROM subquery or a UDF batch
			// are no stored rows)
			out = append([]string{nulFlagColumn}, out...)
			st.NULFlag = true
		}
	}

	// ORDER BY: each term sorts by (type rank, value); items whose sort
	// value is undefined are left out, as with the default indexing policy
	// (reference §6.7).
	type key struct{ expr, dir string }
	var keys []key
	var sortCols []string
	orderItems := q.OrderBy
	if t.udfScan && t.udfWhole {
		orderItems = nil // the whole set is read, in any order
	}
	for i, o := range orderItems {
		v, err := t.val(o.Expr)
		if err != nil {
			return nil, err
		}
		dir := t.orderDir(o)
		if path, ok := t.rootPath(o.Expr); ok {
			t.indexPaths = append(t.indexPaths, path)
		} else {
			// written once (a lateral subselect), not in each of the five
			// places below; a path keeps its inline form, which matches
			// its index expression
			name := "ob" + strconv.Itoa(i)
			from = append(from, "CROSS JOIN LATERAL (SELECT "+v+" AS v) AS "+name)
			v = name + ".v"
		}
		where = append(where, "("+v+") IS NOT NULL")
		keys = append(keys, key{"cosmos.type_rank(" + v + ")", dir}, key{"(" + v + ")", dir})
		sortCols = append(sortCols, "cosmos.type_rank("+v+")", "("+v+")::text")
	}
	st.SortKeys = len(orderItems)
	if len(orderItems) > 1 {
		if err := t.compositeOrder(q); err != nil {
			return nil, err
		}
	}
	keys = append(keys, key{"r.seq", "ASC"})
	for _, o := range ords {
		keys = append(keys, key{o, "ASC"})
	}

	// TOP / OFFSET LIMIT.
	limit := t.in.PageSize
	var total int64 = -1
	var offset int64
	if q.Top != nil {
		n, err := t.intArg(q.Top, "TOP")
		if err != nil {
			return nil, err
		}
		total = n
	}
	if q.Limit != nil {
		n, err := t.intArg(q.Limit, "LIMIT")
		if err != nil {
			return nil, err
		}
		if total < 0 || n < total {
			total = n
		}
		if offset, err = t.intArg(q.Offset, "OFFSET"); err != nil {
			return nil, err
		}
	}
	st.Total, st.Offset = total, offset
	c := t.in.Cursor
	streamEval := t.udfIndex != nil && !t.udfScan && !t.udfWhole
	if streamEval {
		c = nil // the batch's rows all follow the cursor
	}
	// iterations without ORDER BY: each level stops at the page (see
	// nestedPage)
	nested := len(sc.iters) > 0 && len(sc.iters) == len(ords) && len(orderItems) == 0 && t.udfIndex == nil &&
		len(from) == len(sc.iters)+1
	if c != nil {
		st.Taken = c.Taken
		if len(c.Ords) != st.Joins || len(c.Ranks) != st.SortKeys || len(c.Vals) != st.SortKeys {
			return nil, errBadCursor
		}
	}
	if c != nil && !nested {
		// keyset: rows strictly after the cursor in the sort order
		vals := []string{}
		for i := range c.Ranks {
			vals = append(vals, t.bind(c.Ranks[i]), t.jsonArg(c.Vals[i]))
		}
		vals = append(vals, t.bind(c.Seq))
		for _, o := range c.Ords {
			vals = append(vals, t.bind(o))
		}
		var ors []string
		for i := range keys {
			var ands []string
			for j := 0; j < i; j++ {
				ands = append(ands, keys[j].expr+" = "+vals[j])
			}
			op := " > "
			if keys[i].dir == "DESC" {
				op = " < "
			}
			ands = append(ands, keys[i].expr+op+vals[i])
			ors = append(ors, "("+strings.Join(ands, " AND ")+")")
		}
		where = append(where, "("+strings.Join(ors, " OR ")+")")
	}
	if total >= 0 {
		remaining := total - st.Taken
		if remaining <= 0 {
			remaining = 0
		}
		if int64(limit) >= remaining {
			limit = int(remaining)
			st.Capped = true
		}
	}
	st.Limit = limit
	st.Peek = !st.Capped
	fetch := limit
	if st.Peek {
		fetch++
	}
	if t.udfScan || streamEval {
		// the caller pages: the scan reads PageSize rows, the evaluation
		// its batch; TOP, OFFSET and LIMIT are applied to the results
		st.Limit, st.Peek, st.Capped, st.Taken = t.in.PageSize, false, false, 0
		fetch, offset = t.in.PageSize, 0
	}
	if nested {
		cols := append(append([]string(nil), sortCols...), out...)
		st.SQL = t.nestedPage(sc, cols, where, c, fetch, offset)
		st.Args, st.IndexPaths, st.IDColumn, st.KeyedIndexes = t.args, t.indexPaths, t.idColumn, t.keyed
		return st, nil
	}
	var orderBy []string
	for _, k := range keys {
		orderBy = append(orderBy, k.expr+" "+k.dir)
	}
	cols := append([]string{"r.seq"}, ords...)
	cols = append(cols, sortCols...)
	cols = append(cols, out...)
	sql := "SELECT " + strings.Join(cols, ", ") + " FROM " + strings.Join(from, " ") +
		" WHERE " + strings.Join(where, " AND ") + " ORDER BY " + strings.Join(orderBy, ", ")
	if !streamEval {
		sql += " LIMIT " + t.bind(fetch)
	}
	if c == nil && offset > 0 {
		sql += " OFFSET " + t.bind(offset)
	}
	st.SQL, st.Args, st.IndexPaths, st.IDColumn, st.KeyedIndexes = sql, t.args, t.indexPaths, t.idColumn, t.keyed
	return st, nil
}

// orderDir is the SQL direction of an ORDER BY term: as written, except
// for a VectorDistance whose distance function is known, sorted most
// similar first whatever the direction written.
func (t *translator) orderDir(o cosmosql.OrderItem) string {
	desc := o.Desc
	if d, ok := t.similarityOrder(o.Expr); ok {
		desc = d
	}
	if desc {
		return "DESC"
	}
	return "ASC"
}

// compositeOrder refuses (MsgNoCompositeIndex) an ORDER BY on several
// terms that no composite index of the container serves, as the service
// does.
func (t *translator) compositeOrder(q *cosmosql.Query) error {
	var order []CompositePath
	for _, o := range q.OrderBy {
		path, ok := t.rootPath(o.Expr)
		if !ok && o.Computed != "" {
			// a computed property's path, as a composite index names it
			path, ok = []string{o.Computed}, true
		}
		if !ok {
			return &QueryError{Message: MsgNoCompositeIndex}
		}
		order = append(order, CompositePath{Path: path, Desc: o.Desc})
	}
	if !servedByComposite(order, t.in.CompositeIndexes) {
		return &QueryError{Message: MsgNoCompositeIndex}
	}
	return nil
}

// errRank refuses ORDER BY RANK where rank.go does not serve it (without
// FROM, in subqueries).
var errRank = &UnsupportedError{What: "ORDER BY RANK in this position"}

var errBadCursor = &UnsupportedError{What: "this continuation token"}

// ErrBadCursor reports a continuation token that does not fit the query.
var ErrBadCursor = errBadCursor

// intArg evaluates a TOP/OFFSET/LIMIT argument (a number literal or a
// parameter holding a non-negative integer).
func (t *translator) intArg(e cosmosql.Expr, what string) (int64, error) {
	var v any
	switch x := e.(type) {
	case *cosmosql.Literal:
		v = x.Value
	case *cosmosql.Param:
		raw, ok := t.in.Params[x.Name]
		if !ok || len(raw) == 0 {
			return 0, &UnsupportedError{What: fmt.Sprintf("%s with an undefined parameter %s", what, x.Name)}
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return 0, &UnsupportedError{What: fmt.Sprintf("%s with a non-numeric parameter %s", what, x.Name)}
		}
		v = f
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, &UnsupportedError{What: fmt.Sprintf("%s with a value that is not a non-negative integer", what)}
	}
	return int64(f), nil
}

// sourcePath splits a FROM container expression into the root name and
// the member path after it.
func sourcePath(e cosmosql.Expr) (string, []cosmosql.Expr, error) {
	var path []cosmosql.Expr
	for {
		switch x := e.(type) {
		case *cosmosql.Ident:
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return x.Name, path, nil
		case *cosmosql.Member:
			path = append(path, x)
			e = x.X
		case *cosmosql.Index:
			path = append(path, x)
			e = x.X
		default:
			return "", nil, unsupported("this FROM source")
		}
	}
}

// firstIdent returns the name of the first identifier of e ("" if none).
func firstIdent(e cosmosql.Expr) string {
	name := ""
	cosmosql.Walk(e, func(x cosmosql.Expr) bool {
		if id, ok := x.(*cosmosql.Ident); ok && name == "" {
			name = id.Name
		}
		return name == ""
	})
	return name
}

// noFrom translates SELECT without FROM: evaluated once.
func (t *translator) noFrom(q *cosmosql.Query) (*Statement, error) {
	if hasAggregates(q) {
		// over the single row of a query without FROM (COUNT(1) is 1)
		where := []string{"TRUE"}
		if q.Where != nil {
			w, err := t.val(q.Where)
			if err != nil {
				return nil, err
			}
			where = append(where, "("+w+") = 'true'::jsonb")
		}
		return t.aggregate(q, &scope{from: []string{"(SELECT 0::bigint AS seq) AS r"}, where: where})
	}
	if q.Select.Star {
		return nil, unsupported("SELECT * without FROM")
	}
	st := &Statement{Single: true, Limit: 1}
	if t.udfIndex != nil {
		return t.noFromUDF(q, st)
	}
	cols, v, err := t.project(q, st, t.val, true)
	if err != nil {
		return nil, err
	}
	where := []string{"TRUE"}
	if v != "" {
		where = append(where, "("+v+") IS NOT NULL")
	}
	if q.Where != nil {
		w, err := t.val(q.Where)
		if err != nil {
			return nil, err
		}
		where = append(where, "("+w+") = 'true'::jsonb")
	}
	st.SQL = "SELECT 0::bigint, " + strings.Join(cols, ", ") + " WHERE " + strings.Join(where, " AND ")
	st.Args = t.args
	return st, nil
}

// isRootValue reports SELECT VALUE c for the container's own alias, which
// renders stored documents (ModeDocument) when plain is true.
func isRootValue(q *cosmosql.Query, t *translator, plain bool) bool {
	id, ok := q.Select.Value.(*cosmosql.Ident)
	return ok && plain && t.binds[id.Name].root
}

// project translates a SELECT VALUE or SELECT list with val into output
// columns and sets st's mode and names: SELECT VALUE is one column
// (ModeValue; value is its SQL, for callers that drop undefined results,
// "" when it cannot be undefined), a list one column per item
// (ModeObject). SELECT * is the caller's.
//
// With stored true, val translates over the container's rows (not over
// groups or aggregates), and objects read from stored documents keep
// their stored member order.
func (t *translator) project(q *cosmosql.Query, st *Statement, val func(cosmosql.Expr) (string, error), stored bool) (cols []string, value string, err error) {
	if q.Select.Value != nil {
		st.Mode = ModeValue
		if isConstructor(q.Select.Value) {
			s, err := t.render(q.Select.Value, val, stored)
			return []string{s}, "", err
		}
		v, err := val(q.Select.Value)
		if err != nil {
			return nil, "", err
		}
		return []string{t.text(q.Select.Value, v, stored)}, v, nil
	}
	st.Mode = ModeObject
	st.Names = q.Select.OutputNames()
	for _, it := range q.Select.Items {
		s, err := t.render(it.Expr, val, stored)
		if err != nil {
			return nil, "", err
		}
		cols = append(cols, s)
	}
	return cols, "", nil
}

func isConstructor(e cosmosql.Expr) bool {
	switch e.(type) {
	case *cosmosql.ObjectLit, *cosmosql.ArrayLit:
		return true
	}
	return false
}

// render translates a projected expression into the JSON text of its value
// (NULL when undefined). Object and array constructors are rendered member
// by member, so that their members keep the statement's order, as the
// service returns them (jsonb would reorder keys); anything else is its
// jsonb value as text (see text).
func (t *translator) render(e cosmosql.Expr, val func(cosmosql.Expr) (string, error), stored bool) (string, error) {
	switch x := e.(type) {
	case *cosmosql.ObjectLit:
		parts := make([]string, 0, len(x.Fields))
		for _, f := range x.Fields {
			v, err := t.render(f.Value, val, stored)
			if err != nil {
				return "", err
			}
			key, _ := json.Marshal(f.Key)
			// concat_ws skips the NULL of an undefined member
			parts = append(parts, t.bind(string(key)+":")+"::text || "+v)
		}
		if len(parts) == 0 {
			return "'{}'::text", nil
		}
		return "('{' || concat_ws(',', " + strings.Join(parts, ", ") + ") || '}')", nil
	case *cosmosql.ArrayLit:
		if len(x.Elems) == 0 {
			return "'[]'::text", nil
		}
		parts := make([]string, len(x.Elems))
		for i, el := range x.Elems {
			v, err := t.render(el, val, stored)
			if err != nil {
				return "", err
			}
			// undefined elements become null (see constructor)
			parts[i] = "coalesce(" + v + ", 'null')"
		}
		return "('[' || " + strings.Join(parts, " || ',' || ") + " || ']')", nil
	}
	v, err := val(e)
	if err != nil {
		return "", err
	}
	return t.text(e, v, stored), nil
}

// text is the JSON text of e, translated as v: an object or array read
// from the stored document (stored, e a path into it) is serialised with
// the members in their stored order; anything else is v as text.
func (t *translator) text(e cosmosql.Expr, v string, stored bool) string {
	if stored {
		if ord := t.orderedJSON(e); ord != "NULL::json" {
			return "(CASE WHEN jsonb_typeof(" + v + ") IN ('object', 'array') THEN cosmos.json_text(" + v + ", " + ord + ") ELSE (" + v + ")::text END)"
		}
	}
	return "(" + v + ")::text"
}

// documentColumns are the columns of a statement in ModeDocument: the
// stored item as it is returned.
var documentColumns = []string{"r.pk", "r.id", "r.body", "r.ts", "r.etag"}

// projectRows translates q's projection over the items' rows: its
// columns, and where extended so that a row whose projected value is
// undefined is left out.
func (t *translator) projectRows(q *cosmosql.Query, st *Statement, where []string) ([]string, []string, error) {
	cols, v, err := t.project(q, st, t.val, true)
	if err != nil {
		return nil, nil, err
	}
	if v != "" {
		where = append(where, "("+v+") IS NOT NULL")
	}
	return cols, where, nil
}
