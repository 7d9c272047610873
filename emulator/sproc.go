package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/jsengine"
)

// scriptEngine holds the service's JavaScript engine, created on first
// use with the configured bounds.
type scriptEngine struct {
	once sync.Once
	cfg  jsengine.Config
	e    *jsengine.Engine
}

// ConfigureScripts sets the bounds of server-side JavaScript (time limit,
// memory guard, cache size). Call it before the service serves requests;
// without it the engine's defaults apply.
func (s *Service) ConfigureScripts(cfg jsengine.Config) { s.js.cfg = cfg }

// ScriptStats returns the counters of the service's JavaScript engine
// (executions abandoned past their bound, and how many still run).
func (s *Service) ScriptStats() jsengine.Stats { return s.ScriptEngine().Stats() }

// StopScripts stops every running script (its request fails with 503 and
// its writes are rolled back) and refuses new ones, without waiting for
// any: the server calls it first when it shuts down, so that in-flight
// requests running scripts end at once.
func (s *Service) StopScripts() { s.ScriptEngine().Shutdown() }

// ScriptEngine returns the service's JavaScript engine.
func (s *Service) ScriptEngine() *jsengine.Engine {
	s.js.once.Do(func() { s.js.e = jsengine.New(s.js.cfg) })
	return s.js.e
}

// ScriptTx is what a script's document operations run on: the item point
// operations and queries, all inside one transaction.
type ScriptTx interface {
	ItemStore
	QueryItems(ctx context.Context, p QueryItemsParams) (QueryPage, error)
}

// SprocRequest is a stored procedure execution.
type SprocRequest struct {
	Database, Container, ID string
	// PartitionKey is the decoded partition key header (nil: absent).
	PartitionKey PartitionKey
	// Body is the parameters' JSON text; nil when the request has none.
	Body []byte
	// Logging enables console.log (x-ms-documentdb-script-enable-logging).
	Logging bool
}

// SprocResult is the outcome of a stored procedure execution.
type SprocResult struct {
	Container Container
	// Body is the JSON text of the script's response body; nil when the
	// script left it undefined.
	Body []byte
	Log  string
	// LSN is the transaction's LSN (0 when the script wrote nothing).
	LSN int64
}

// MsgScriptCrossPartition is the error a script's operation on another
// logical partition gets.
const MsgScriptCrossPartition = "Requests originating from scripts cannot reference partition keys other than the one for which client request was submitted."

// checkSprocParams validates an execution's parameter body: absent, null,
// a JSON array or a JSON object (applied like an array-like); anything
// else is 400.
func checkSprocParams(ctx context.Context, body []byte) (string, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		return "", nil
	}
	v, err := decodeBody(ctx, body)
	if err != nil {
		return "", err
	}
	switch v.(type) {
	case nil, *Object, []any:
		return string(body), nil
	}
	return "", BadRequest("The stored procedure parameters are invalid: the request body must be a JSON array of parameters (or null, or an array-like object), not %s.", jsonTypeName(v))
}

// jsonTypeName names the JSON type of a decoded value.
func jsonTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	default:
		return "a number"
	}
}

// ExecuteSproc runs a stored procedure in the request's logical partition,
// in one transaction committed only when the script completes: 404 when
// the procedure does not exist, 400 for a script that throws (x-ms-substatus
// from err.number), 408 when it runs out of time.
func (s *Service) ExecuteSproc(ctx context.Context, r SprocRequest) (SprocResult, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return SprocResult{}, err
	}
	res := SprocResult{Container: c}
	pk, err := checkPKHeader(c, r.PartitionKey)
	if err != nil {
		return res, err
	}
	args, err := checkSprocParams(ctx, r.Body)
	if err != nil {
		return res, err
	}
	sc, err := s.scriptStore().GetScript(ctx, c, ScriptSproc, r.ID)
	if err != nil {
		return res, err
	}
	f, err := sc.Fields()
	if err != nil {
		return res, err
	}
	eng := s.ScriptEngine()
	err = s.store.InScriptTx(ctx, func(tx ScriptTx) error {
		h := &scriptHost{s: s, c: c, pk: pk, tx: tx}
		out, err := eng.RunSproc(ctx, jsengine.Script{
			Key:    jsengine.CacheKey{Container: c.Num, Kind: string(ScriptSproc), ID: sc.ID, ETag: sc.ETag},
			Source: f.Body, Args: args, Host: h, Logging: r.Logging,
		})
		if err != nil {
			return err
		}
		res.Body, res.Log, res.LSN = out.Body, out.Log, h.lsn
		return nil
	})
	return res, scriptError(err)
}

// scriptError converts an engine failure into the service's error: the
// message is the classic `Message: {"Errors":["<text>"]}` and the
// sub-status the script error's number.
func scriptError(err error) error {
	var se *jsengine.Error
	if !errors.As(err, &se) {
		return err
	}
	kind := KindBadRequest
	switch se.Status {
	case 408:
		kind = KindRequestTimeout
	case 413:
		kind = KindTooLarge
	case 403:
		kind = KindForbidden
	case 503:
		kind = KindUnavailable
	}
	return &Error{Kind: kind, SubStatus: se.Number, Message: "Message: " + errorsJSON(se.Message)}
}

// errorsJSON renders {"Errors":["msg"]}.
func errorsJSON(msg string) string {
	b := append([]byte(`{"Errors":[`), AppendJSONString(nil, msg)...)
	return string(append(b, "]}"...))
}

// scriptHost implements jsengine.Host for a script running in container c
// and logical partition pk, on the transaction tx.
type scriptHost struct {
	s   *Service
	c   Container
	pk  string
	tx  ScriptTx
	lsn int64
}

// SelfLink implements jsengine.Host.
func (h *scriptHost) SelfLink() string { return h.c.Self() }

// AltLink implements jsengine.Host.
func (h *scriptHost) AltLink() string { return "dbs/" + h.c.DatabaseID + "/colls/" + h.c.ID }

// outsideCollection is the throw of a link that is not the container's.
func outsideCollection(link string) error {
	return &jsengine.Throw{Number: 400, Message: `Function is not allowed to operate on resources outside current collection. Make sure that the link provided, "` + link + `", belongs to current collection.`}
}

// collectionLink checks that link is the container's (self or alt, with
// or without the outer slashes); byRID reports the self form, whose
// document links name documents by RID.
func (h *scriptHost) collectionLink(link string) (byRID bool, err error) {
	l := strings.Trim(link, "/")
	switch l {
	case strings.Trim(h.c.Self(), "/"):
		return true, nil
	case h.AltLink():
		return false, nil
	}
	if !strings.HasPrefix(l, "dbs/") {
		return false, &jsengine.Throw{Number: 400, Message: `Invalid collection link: "` + link + `".`}
	}
	return false, outsideCollection(link)
}

// documentLink resolves <collection link>/docs/<id or RID> to the
// document's id; found is false for a RID no document of the partition
// has.
func (h *scriptHost) documentLink(ctx context.Context, link string) (id string, found bool, err error) {
	l := strings.Trim(link, "/")
	i := strings.LastIndex(l, "/docs/")
	if i < 0 {
		return "", false, &jsengine.Throw{Number: 400, Message: `Invalid document link: "` + link + `".`}
	}
	byRID, err := h.collectionLink(l[:i])
	if err != nil {
		return "", false, err
	}
	ref := l[i+len("/docs/"):]
	if ref == "" || strings.Contains(ref, "/") {
		return "", false, &jsengine.Throw{Number: 400, Message: `Invalid document link: "` + link + `".`}
	}
	if !byRID {
		return ref, true, nil
	}
	q, err := ParseQuery("SELECT VALUE r.id FROM root r WHERE r._rid = @rid")
	if err != nil {
		return "", false, err
	}
	rid, _ := json.Marshal(ref)
	page, err := h.tx.QueryItems(ctx, QueryItemsParams{Container: h.c, Expiry: h.s.expiry(h.c), PK: &h.pk, Query: q,
		Text: "SELECT VALUE r.id FROM root r WHERE r._rid = @rid", Params: map[string]json.RawMessage{"@rid": rid}, Page: PageRequest{MaxItems: 1}})
	if err != nil {
		return "", false, err
	}
	if len(page.Docs) == 0 {
		return "", false, nil
	}
	err = json.Unmarshal(page.Docs[0], &id)
	return id, err == nil, err
}

// opFailure turns an operation's error into the callback's err, or
// returns it as the host's failure when it is the storage's.
func opFailure(err error) (jsengine.Outcome, error) {
	var e *Error
	if !errors.As(err, &e) || IsStorageFailure(err) {
		return jsengine.Outcome{}, err
	}
	number := 400
	msg := e.Message
	switch e.Kind {
	case KindNotFound:
		number, msg = 404, "Resource Not Found"
	case KindConflict:
		number, msg = 409, "Resource with specified id or name already exists."
	case KindPreconditionFailed:
		number = 412
	case KindTooLarge:
		// the bare text: errorsJSON below wraps it as MsgTooLarge is
		// wrapped for a client
		number, msg = 413, "Request size is too large"
	case KindForbidden:
		number = 403
	case KindBadRequest:
		if errors.Is(err, ErrPKMismatch) || e.SubStatus == SubStatusPartitionKeyMismatch {
			msg = MsgScriptCrossPartition
		}
	default:
		return jsengine.Outcome{}, err
	}
	return jsengine.Outcome{Err: &jsengine.OpError{Number: number, Message: errorsJSON(msg)}}, nil
}

// written records a write's LSN and renders the item.
func (h *scriptHost) written(it Item, status int) jsengine.Outcome {
	if it.LSN > h.lsn {
		h.lsn = it.LSN
	}
	return jsengine.Outcome{Result: it.JSON(h.c), Status: status}
}

// Write implements jsengine.Host.
func (h *scriptHost) Write(ctx context.Context, op, link string, doc []byte, opts jsengine.Options) (jsengine.Outcome, error) {
	var urlID string
	if op == "replaceDocument" {
		id, found, err := h.documentLink(ctx, link)
		if err != nil {
			return jsengine.Outcome{}, err
		}
		if !found {
			return opFailure(ErrItemNotFound)
		}
		urlID = id
	} else if _, err := h.collectionLink(link); err != nil {
		return jsengine.Outcome{}, err
	}
	obj, err := decodeObject(ctx, doc)
	if err != nil {
		return opFailure(err)
	}
	p, err := prepareObject(h.c, obj, h.pk)
	if err != nil {
		return opFailure(err)
	}
	switch op {
	case "createDocument":
		it, err := h.tx.CreateItem(ctx, h.s.writeParams(h.c, p, ""))
		if err != nil {
			return opFailure(err)
		}
		return h.written(it, 201), nil
	case "upsertDocument":
		it, created, err := h.tx.UpsertItem(ctx, h.s.writeParams(h.c, p, opts.ETag))
		if err != nil {
			return opFailure(err)
		}
		status := 200
		if created {
			status = 201
		}
		return h.written(it, status), nil
	default:
		if p.id != urlID {
			return opFailure(idMismatch(p.id, urlID))
		}
		it, err := h.tx.ReplaceItem(ctx, h.s.writeParams(h.c, p, opts.ETag))
		if err != nil {
			return opFailure(err)
		}
		return h.written(it, 200), nil
	}
}

// Point implements jsengine.Host.
func (h *scriptHost) Point(ctx context.Context, op, link string, opts jsengine.Options) (jsengine.Outcome, error) {
	id, found, err := h.documentLink(ctx, link)
	if err != nil {
		return jsengine.Outcome{}, err
	}
	if !found {
		return opFailure(ErrItemNotFound)
	}
	key := ItemKey{Container: h.c, PK: h.pk, ID: id, Expiry: h.s.expiry(h.c)}
	if op == "deleteDocument" {
		lsn, err := h.tx.DeleteItem(ctx, key, opts.ETag)
		if err != nil {
			return opFailure(err)
		}
		if lsn > h.lsn {
			h.lsn = lsn
		}
		return jsengine.Outcome{Status: 204}, nil
	}
	it, err := h.tx.ReadItem(ctx, key)
	if err != nil {
		return opFailure(err)
	}
	if opts.IfNoneMatch != "" && (opts.IfNoneMatch == it.ETag || opts.IfNoneMatch == "*") {
		return jsengine.Outcome{NotModified: true, Status: 304}, nil
	}
	return jsengine.Outcome{Result: it.JSON(h.c), Status: 200}, nil
}

// defaultScriptPageSize is a script feed's page size without pageSize.
const defaultScriptPageSize = 100

// Query implements jsengine.Host: one page of the query over the
// partition, on the transaction.
func (h *scriptHost) Query(ctx context.Context, link string, query []byte, opts jsengine.Options) (jsengine.Outcome, error) {
	if _, err := h.collectionLink(link); err != nil {
		return jsengine.Outcome{}, err
	}
	var q Query
	if err := json.Unmarshal(query, &q); err != nil {
		return opFailure(&Error{Kind: KindBadRequest, Message: MsgInvalidPayload, Err: err})
	}
	parsed, err := ParseQuery(q.Text)
	if err != nil {
		return opFailure(err)
	}
	if err := expandComputedProperties(h.c, parsed); err != nil {
		return jsengine.Outcome{}, err
	}
	params := make(map[string]json.RawMessage, len(q.Parameters))
	for _, p := range q.Parameters {
		params[p.Name] = p.Value
	}
	size := opts.PageSize
	if size == 0 {
		size = defaultScriptPageSize
	}
	page, err := h.tx.QueryItems(ctx, QueryItemsParams{Container: h.c, Expiry: h.s.expiry(h.c), PK: &h.pk, Query: parsed, Text: q.Text,
		Params: params, Page: PageRequest{MaxItems: size, Continuation: opts.Continuation}, Now: h.s.clock.Now()})
	if err != nil {
		return opFailure(err)
	}
	return jsengine.Outcome{Result: AppendJSONArray(nil, page.Docs), Continuation: page.Continuation, Status: 200}, nil
}
