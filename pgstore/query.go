package pgstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/internal/reqphase"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// queryToken is the opaque continuation token of a query page: the keyset
// cursor after the last row returned, bound to the query it belongs to.
type queryToken struct {
	Hash   uint64         `json:"h"`
	Cursor *sqlgen.Cursor `json:"c"`
	// Window is the number of documents the next page scans (0: no
	// bound; see scanwindow.go).
	Window int64 `json:"w,omitempty"`
}

var errInvalidContinuation = emulator.BadRequest("%s", emulator.MsgInvalidContinuation)

// queryHash identifies a query (text and parameters) so that a token is
// only accepted by the query that issued it. The EPK range is left out:
// after a split the SDKs continue a range's query on each of its children
// (narrower ranges) with the parent's token.
func queryHash(p emulator.QueryItemsParams) uint64 {
	h := fnv.New64a()
	h.Write([]byte(p.Text))
	names := make([]string, 0, len(p.Params))
	for n := range p.Params {
		names = append(names, n)
	}
	for _, n := range sortStrings(names) {
		h.Write([]byte{0})
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write(p.Params[n])
	}
	if p.PK != nil {
		h.Write([]byte{1})
		if p.PKPrefix {
			h.Write([]byte{2})
		}
		h.Write([]byte(*p.PK))
	}
	return h.Sum64()
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

func decodeToken(tok string, hash uint64) (*sqlgen.Cursor, int64, error) {
	if tok == "" {
		return nil, 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return nil, 0, errInvalidContinuation
	}
	var t queryToken
	if err := json.Unmarshal(b, &t); err != nil || t.Hash != hash || t.Cursor == nil || t.Window < 0 || t.Window > maxWindow {
		return nil, 0, errInvalidContinuation
	}
	return t.Cursor, t.Window, nil
}

func encodeToken(c *sqlgen.Cursor, hash uint64) string {
	return encodeWindowToken(c, hash, 0)
}

// encodeWindowToken is encodeToken for a next page that scans window
// documents (0: no bound).
func encodeWindowToken(c *sqlgen.Cursor, hash uint64, window int64) string {
	b, _ := json.Marshal(queryToken{Hash: hash, Cursor: c, Window: window})
	return base64.RawURLEncoding.EncodeToString(b)
}

// queryRun is one page to run: the parameters and, for resource queries
// (databases, containers, offers), the documents to query instead of an
// items table.
type queryRun struct {
	emulator.QueryItemsParams
	raw  bool
	docs [][]byte
	// on runs the statement instead of the pool (a script's transaction).
	on querier
	// udf is set for the statements of a query calling user-defined
	// functions (udfquery.go), which page on their own.
	udf bool
}

// QueryItems implements emulator.Store.
func (s *Store) QueryItems(ctx context.Context, p emulator.QueryItemsParams) (emulator.QueryPage, error) {
	return s.runQuery(ctx, queryRun{QueryItemsParams: p})
}

// QueryDocuments implements emulator.Store: the same engine over a list of
// rendered resources (database, container and offer queries).
func (s *Store) QueryDocuments(ctx context.Context, docs [][]byte, p emulator.QueryItemsParams) (emulator.QueryPage, error) {
	return s.runQuery(ctx, queryRun{QueryItemsParams: p, raw: true, docs: docs})
}

func (s *Store) runQuery(ctx context.Context, p queryRun) (emulator.QueryPage, error) {
	hash := queryHash(p.QueryItemsParams)
	cur, window, err := decodeToken(p.Page.Continuation, hash)
	if err != nil {
		return emulator.QueryPage{}, err
	}
	if !p.raw && p.on == nil && epkFilters(p.EPK) {
		// (a script's queries, on its transaction, are confined to its
		// partition and carry no EPK range)
		if err := s.ensureEPK(ctx, p.Container); err != nil {
			return emulator.QueryPage{}, err
		}
	}
	if !p.raw && p.UDFs != nil && len(sqlgen.UDFCalls(p.Query)) > 0 {
		return s.runUDFQuery(ctx, p, hash, cur)
	}
	var st *sqlgen.Statement
	if p.raw {
		st, err = s.translateResources(p, cur)
	} else {
		st, err = s.translateQuery(ctx, p.QueryItemsParams, cur)
		if err == nil && p.on == nil {
			err = s.ensureQueryIndexes(ctx, p.QueryItemsParams, st)
		}
	}
	if err != nil {
		return emulator.QueryPage{}, err
	}
	var w scanWindow
	if window > 0 && windowable(p, st) {
		if w, err = s.windowEnd(ctx, p.Container, cur, window); err != nil {
			return emulator.QueryPage{}, err
		}
		if w.bounded {
			if st, err = s.translateWindow(ctx, p.QueryItemsParams, cur, nil, w); err != nil {
				return emulator.QueryPage{}, err
			}
		}
	}
	var q querier = s.pool
	if p.on != nil {
		q = p.on
	}
	return s.execPage(ctx, q, st, p, hash, cur, w)
}

// execPage runs the translated statement st of one page of p on q; cur
// is the page's cursor and w its scan window (scanwindow.go).
func (s *Store) execPage(ctx context.Context, q querier, st *sqlgen.Statement, p queryRun, hash uint64, cur *sqlgen.Cursor, w scanWindow) (emulator.QueryPage, error) {
	if st.Limit == 0 && !st.Single {
		return emulator.QueryPage{Docs: [][]byte{}}, nil
	}
	// The page ends when it holds st.Limit results (one more row tells
	// that more follow) or when the next result would take it past
	// emulator.MaxResponseBytes; rows are read one at a time, so a page
	// never holds more than itself. A statement stopped by the byte budget
	// is cancelled rather than drained, so PostgreSQL stops producing the
	// rest (the next page resumes from the cursor). The statement also
	// runs under the page's time budget (budget.go): when it runs out,
	// the page ends with the results read so far and a continuation after
	// the last of them, as the service ends a page at its 5 s limit; with
	// none read (or for a query that never pages), it is a 408.
	pctx, cancelPage := s.pageContext(ctx)
	defer cancelPage()
	qctx, cancel := context.WithCancel(pctx)
	defer cancel()
	rows, err := s.boundedQuery(qctx, q, s.pageTimeout, st.SQL, planEach(epkFilters(p.EPK), st.Args)...)
	if err != nil {
		if budgetSpent(ctx, pctx, nil, err) {
			return emulator.QueryPage{}, errPageTimeout(s.pageTimeout, err)
		}
		return emulator.QueryPage{}, classifyQuery(err)
	}
	defer rows.Close()
	var out []queryRow
	size, more, overBudget := 0, false, false
	for rows.Next() {
		if !st.Single && len(out) == st.Limit {
			more = true // the look-ahead row
			break
		}
		r, err := scanQueryRow(rows, st, p)
		if err != nil {
			return emulator.QueryPage{}, err
		}
		if r.doc == nil {
			continue // undefined: no result
		}
		if !st.Single && len(out) > 0 && size+len(r.doc) > emulator.MaxResponseBytes {
			more, overBudget = true, true
			break
		}
		if len(r.doc) > emulator.MaxResponseBytes {
			// one result alone passes the page's byte budget: no page
			// can hold it
			return emulator.QueryPage{}, errResultTooLarge(fmt.Sprintf("a result of %d bytes is larger", len(r.doc)), nil)
		}
		size += len(r.doc)
		out = append(out, r)
	}
	if overBudget {
		cancel() // the rest of the statement's rows are not needed
	} else if err := rows.Err(); err != nil {
		if !budgetSpent(ctx, pctx, rows, err) {
			return emulator.QueryPage{}, classifyQuery(err)
		}
		if st.Single {
			return emulator.QueryPage{}, errPageTimeout(s.pageTimeout, err)
		}
		if len(out) == 0 {
			return s.emptyPageAfterTimeout(ctx, p, st, hash, cur, w, err)
		}
		more = true // partial: the next page resumes after the last result
	}
	page := emulator.QueryPage{Docs: make([][]byte, 0, len(out))}
	for _, r := range out {
		page.Docs = append(page.Docs, r.doc)
	}
	if st.Single {
		return page, nil
	}
	if !more && p.GatewayFanOut && !st.Capped && len(out) == st.Limit {
		// the gateway's fan-out ends a full page with a continuation
		more = true
	}
	switch {
	case more && len(out) > 0:
		c := out[len(out)-1].cursor
		c.Taken = st.Taken + int64(len(out))
		page.Continuation = encodeWindowToken(&c, hash, w.size)
	case w.bounded && !st.Capped:
		// the whole window examined: on after its last document, with
		// a window twice as large
		c := pastDocument(w.end, st.Joins, st.Taken+int64(len(out)))
		page.Continuation = encodeWindowToken(c, hash, min(2*w.size, maxWindow))
	}
	return page, nil
}

// emptyPageAfterTimeout answers a page whose budget ran out (err) before
// it found a result: an empty page whose continuation resumes at the same
// cursor with a smaller scan window, or 408 when no smaller piece of work
// exists (scanwindow.go).
func (s *Store) emptyPageAfterTimeout(ctx context.Context, p queryRun, st *sqlgen.Statement, hash uint64, cur *sqlgen.Cursor, w scanWindow, err error) (emulator.QueryPage, error) {
	if !windowable(p, st) {
		return emulator.QueryPage{}, errPageTimeout(s.pageTimeout, err)
	}
	next, nerr := s.nextWindowAfterTimeout(ctx, p.Container, cur, w)
	if nerr != nil || next < 1 {
		return emulator.QueryPage{}, errPageTimeout(s.pageTimeout, err)
	}
	c := cur
	if c == nil {
		// the start: after the document before the first (seqs start
		// at 1)
		c = pastDocument(0, st.Joins, st.Taken)
	}
	return emulator.QueryPage{Docs: [][]byte{}, Continuation: encodeWindowToken(c, hash, next)}, nil
}

// queryRow is one row of a translated statement: the result document (nil
// when undefined), the keyset cursor after it, and for a UDF scan
// statement (sqlgen.ModeUDFArgs) its argument columns.
type queryRow struct {
	doc    []byte
	cursor sqlgen.Cursor
	args   []*string
}

// scanQueryRow reads the current row of a statement st of p.
func scanQueryRow(rows pgx.Rows, st *sqlgen.Statement, p queryRun) (queryRow, error) {
	var r queryRow
	dest := []any{&r.cursor.Seq}
	ords := make([]int64, st.Joins)
	for i := range ords {
		dest = append(dest, &ords[i])
	}
	ranks := make([]int, st.SortKeys)
	vals := make([]*string, st.SortKeys)
	for i := range ranks {
		dest = append(dest, &ranks[i], &vals[i])
	}
	var it emulator.Item
	var body string
	var outs []*string
	switch st.Mode {
	case sqlgen.ModeDocument:
		dest = append(dest, &it.PK, &it.ID, &body, &it.TS, &it.ETag)
	case sqlgen.ModeValue:
		outs = make([]*string, 1)
	case sqlgen.ModeUDFArgs:
		outs = make([]*string, st.UDFCols)
	default:
		outs = make([]*string, len(st.Names))
	}
	var nul bool
	if st.NULFlag {
		dest = append(dest, &nul)
	}
	for i := range outs {
		dest = append(dest, &outs[i])
	}
	if err := rows.Scan(dest...); err != nil {
		return r, classifyQuery(err)
	}
	r.cursor.Ords, r.cursor.Ranks = ords, ranks
	for _, v := range vals {
		if v == nil {
			r.cursor.Vals = append(r.cursor.Vals, json.RawMessage("null"))
		} else {
			r.cursor.Vals = append(r.cursor.Vals, json.RawMessage(*v))
		}
	}
	switch st.Mode {
	case sqlgen.ModeDocument:
		it.Seq, it.Body = r.cursor.Seq, []byte(body)
		if p.raw {
			r.doc = it.Body
		} else {
			r.doc = it.JSON(p.Container)
		}
	case sqlgen.ModeValue:
		if outs[0] != nil {
			r.doc = []byte(*outs[0])
			if nul {
				r.doc = sqlgen.RestoreNUL(r.doc)
			}
		}
	case sqlgen.ModeUDFArgs:
		r.args = outs
	default:
		doc := []byte{'{'}
		n := 0
		for i, v := range outs {
			if v == nil {
				continue // undefined members are left out
			}
			if n > 0 {
				doc = append(doc, ',')
			}
			doc = emulator.AppendJSONString(doc, st.Names[i])
			doc = append(doc, ':')
			doc = append(doc, *v...)
			n++
		}
		r.doc = append(doc, '}')
		if nul {
			r.doc = sqlgen.RestoreNUL(r.doc)
		}
	}
	return r, nil
}

// resourcesTable is the row source of resource queries: the documents,
// bound as one JSON array, in their order.
const resourcesTable = `(SELECT e.ordinality AS seq, e.value AS doc, ''::text AS pk, ''::text AS id, e.value::text AS body, 0::bigint AS ts, ''::text AS etag FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e)`

// translateResources translates a page of a resource query.
func (s *Store) translateResources(p queryRun, cur *sqlgen.Cursor) (*sqlgen.Statement, error) {
	arr := emulator.AppendJSONArray(nil, p.docs)
	st, err := sqlgen.Translate(p.Query, sqlgen.Input{
		Table: resourcesTable, Args: []any{string(arr)}, Live: "TRUE", Params: p.Params,
		PageSize: p.Page.Limit(), Cursor: cur, RawDocuments: true, CodePointCollation: s.codePointCollation,
		NowTicks: nowTicks(p.Now),
	})
	return st, translationError(err)
}

// nowTicks converts the emulator time of a query into 100-ns ticks since
// the Unix epoch (0 when unset).
func nowTicks(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano() / 100
}

// translationError maps translator errors to the service's 400s.
func translationError(err error) error {
	var qe *sqlgen.QueryError
	if errors.As(err, &qe) {
		return emulator.BadRequest("%s", qe.Message)
	}
	var ue *sqlgen.UnsupportedError
	if errors.As(err, &ue) {
		if errors.Is(err, sqlgen.ErrBadCursor) {
			return errInvalidContinuation
		}
		return emulator.BadRequest("%s", ue.Error())
	}
	return err
}

// translateQuery translates one page of a query.
func (s *Store) translateQuery(ctx context.Context, p emulator.QueryItemsParams, cur *sqlgen.Cursor) (*sqlgen.Statement, error) {
	return s.translateStage(ctx, p, cur, nil)
}

// translateStage translates one page of a query, or with udf one of the
// statements of a query calling user-defined functions.
func (s *Store) translateStage(ctx context.Context, p emulator.QueryItemsParams, cur *sqlgen.Cursor, udf *sqlgen.UDFStage) (*sqlgen.Statement, error) {
	return s.translateWindow(ctx, p, cur, udf, scanWindow{})
}

// translateWindow is translateStage confined to the documents up to the
// end of w when w is bounded (scanwindow.go).
func (s *Store) translateWindow(ctx context.Context, p emulator.QueryItemsParams, cur *sqlgen.Cursor, udf *sqlgen.UDFStage, w scanWindow) (*sqlgen.Statement, error) {
	defer reqphase.Start(ctx, reqphase.Translate)()
	a := args{}
	live := livePredicate(p.Expiry, "r.", &a)
	if w.bounded {
		live = "(" + live + " AND r.seq <= " + a.add(w.end) + ")"
	}
	collRID, _ := emulator.DecodeRID(p.Container.RID)
	pol, vectorFns := queryProperties(p.Container) // parsed once per page
	ftConfigs, ftDefault := fullTextConfigs(p.Container)
	sqlgen.ApplyVectorEmbeddingPolicy(p.Query, vectorFns)
	pkPath, pkJSON := partitionKeyValue(p)
	epkMin, epkMax := epkBounds(p.EPK)
	st, err := sqlgen.Translate(p.Query, sqlgen.Input{
		Table: itemsTable(p.Container.Num), CollRID: collRID, SelfPrefix: p.Container.Self() + "docs/",
		Args: a, Live: live, PK: p.PK, PKPrefix: p.PKPrefix, PKPath: pkPath, PKJSON: pkJSON, EPKMin: epkMin, EPKMax: epkMax,
		Params: p.Params, PageSize: p.Page.Limit(), Cursor: cur, Ctx: ctx,
		CodePointCollation: s.codePointCollation, CompositeIndexes: pol.composites(),
		NowTicks: nowTicks(p.Now), UDF: udf,
		FullTextConfigs: ftConfigs, FullTextDefault: ftDefault, FullTextIndexed: fullTextIndexed(p.Container),
	})
	if err != nil {
		return nil, translationError(err)
	}
	return st, nil
}

// fullTextConfigs reads a container's fullTextPolicy: the text search
// configuration of each declared path ("/a/b", as sqlgen.Input wants it)
// and of the default language (sqlgen.FullTextConfig). A path declared
// without a language takes the default language's.
func fullTextConfigs(c emulator.Container) (map[string]string, string) {
	if !bytes.Contains(c.Properties, []byte(`"fullTextPolicy"`)) {
		// most containers: no second parse of the body on every page
		return nil, sqlgen.FullTextConfig("")
	}
	var props struct {
		Policy struct {
			DefaultLanguage string `json:"defaultLanguage"`
			Paths           []struct {
				Path     string `json:"path"`
				Language string `json:"language"`
			} `json:"fullTextPaths"`
		} `json:"fullTextPolicy"`
	}
	_ = json.Unmarshal(c.Properties, &props)
	def := sqlgen.FullTextConfig(props.Policy.DefaultLanguage)
	var m map[string]string
	for _, p := range props.Policy.Paths {
		if m == nil {
			m = map[string]string{}
		}
		cfg := def
		if p.Language != "" {
			cfg = sqlgen.FullTextConfig(p.Language)
		}
		m["/"+strings.Join(emulator.SplitPath(p.Path), "/")] = cfg
	}
	return m, def
}

// partitionKeyValue returns, for a query confined to one logical partition
// of a container whose partition key has one path, that path and the JSON
// of the key's value (sqlgen.Input.PKPath, PKJSON); nil otherwise (several
// paths, a prefix, no key, or the undefined partition, {}).
func partitionKeyValue(p emulator.QueryItemsParams) ([]string, []byte) {
	if p.PK == nil || p.PKPrefix || len(p.Container.PartitionKey.Paths) != 1 {
		return nil, nil
	}
	var comps []any
	if json.Unmarshal([]byte(*p.PK), &comps) != nil || len(comps) != 1 {
		return nil, nil
	}
	switch comps[0].(type) {
	case nil, bool, float64, string:
	default:
		return nil, nil
	}
	raw, err := json.Marshal(comps[0])
	if err != nil {
		return nil, nil
	}
	return emulator.SplitPath(p.Container.PartitionKey.Paths[0]), raw
}

// ensureQueryIndexes makes sure the path indexes a translated query can
// use exist. A script's queries skip it: they run inside a transaction
// that may hold row locks on the items table, which CREATE INDEX (on
// another connection) would wait for while the transaction waits for it;
// they are confined to one partition, which the pk index serves.
func (s *Store) ensureQueryIndexes(ctx context.Context, p emulator.QueryItemsParams, st *sqlgen.Statement) error {
	paths := st.IndexPaths
	if p.PK != nil && !p.PKPrefix {
		// a single-partition query is served by the pk column's index;
		// an index on the partition key path would only cost writes
		paths = withoutPartitionKeyPaths(paths, p.Container.PartitionKey)
		if st.IDColumn {
			// and c.id = 'x' by the primary key (pk, id)
			paths = withoutPath(paths, []string{"id"})
		}
	}
	if len(paths) == 0 {
		return nil // nothing to index: the properties need no parsing
	}
	pol, _ := queryProperties(p.Container)
	// one partition (with a key short enough): the partition-first
	// indexes, which read only its entries; else the global ones
	return classify("index", s.ensureIndexes(ctx, p.Container, pol, paths, st.KeyedIndexes))
}

// classifyQuery maps errors of a translated query: runtime errors of the
// expression evaluation are the query's fault (400), not the server's,
// with a message chosen by SQLSTATE (queryErrorMessage), never
// PostgreSQL's own.
func classifyQuery(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "Z9413" {
		// cosmos.value_too_large (migration 0023): a string builder's
		// result would pass the response size limit
		return errResultTooLarge("a string the query computes (REPLACE, CONCAT or ||) would be larger", err)
	}
	if errors.As(err, &pe) {
		if msg, ok := queryErrorMessage(pe.Code); ok {
			return &emulator.Error{Kind: emulator.KindBadRequest, Message: msg, Err: err}
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return classify("query items", err)
}

func withoutPartitionKeyPaths(paths [][]string, def emulator.PartitionKeyDefinition) [][]string {
	var out [][]string
	for _, p := range paths {
		isPK := false
		for _, k := range def.Paths {
			if strings.Join(emulator.SplitPath(k), "\x00") == strings.Join(p, "\x00") {
				isPK = true
			}
		}
		if !isPK {
			out = append(out, p)
		}
	}
	return out
}

// withoutPath returns paths without path.
func withoutPath(paths [][]string, path []string) [][]string {
	var out [][]string
	for _, p := range paths {
		if !slices.Equal(p, path) {
			out = append(out, p)
		}
	}
	return out
}
