package wire

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/internal/reqphase"
	"github.com/cosmos-emulator/cosmos-emulator/wire/rntbd"
)

// Direct mode: the requests of RNTBD connections (package wire/rntbd) are
// served here by the same service calls, the same authentication and the
// same error kinds as the REST handlers: one implementation of each
// operation, two transports.
//
// Served: the point operations on documents (create, upsert, read,
// replace, patch, delete), document query pages of one range or logical
// partition or effective partition key range, read feed and the
// latest-version change feed, transactional batches and bulk requests,
// stored procedure execution, and the read of a database (the Java SDK reads a
// database through the master partition's addresses, e.g. in
// createDatabaseIfNotExists). Every other request is answered 400 naming
// the operation and gateway mode.

// NewDirectHandler returns the handler of direct-mode requests alone,
// configured as NewHandler (Service, Key, Logger, Now, Unavailable,
// Consistency, LogRequests, Faults: give it the REST handler's fault set
// so that the rules apply to both; the REST-only fields are ignored). It
// has no rate limiter and no metrics: NewHandlers returns both transports
// sharing them.
func NewDirectHandler(cfg Config) (rntbd.Handler, error) {
	h, err := newHandler(cfg)
	if err != nil {
		return nil, err
	}
	return rntbd.HandlerFunc(h.serveDirect), nil
}

// directOp is what a direct-mode request asks.
type directOp struct {
	verb     string // the HTTP verb the operation is signed with
	resource uint16
	op       uint16
	db, coll string
	doc      string
	sproc    string
}

// directVerb is the verb an operation is signed with (the SDK signs a
// direct request as the gateway request it stands for).
func directVerb(op uint16) string {
	switch op {
	case rntbd.OpCreate, rntbd.OpUpsert, rntbd.OpQuery, rntbd.OpSQLQuery, rntbd.OpBatch, rntbd.OpExecuteJavaScript:
		return http.MethodPost
	case rntbd.OpReplace:
		return http.MethodPut
	case rntbd.OpPatch:
		return http.MethodPatch
	case rntbd.OpDelete:
		return http.MethodDelete
	case rntbd.OpHead, rntbd.OpHeadFeed:
		return http.MethodHead
	}
	return http.MethodGet
}

// rntbdConsistencyLevels are the levels by the value of the ConsistencyLevel
// token (RntbdConstants.RntbdConsistencyLevel).
var rntbdConsistencyLevels = [...]string{"Strong", "BoundedStaleness", "Session", "Eventual", "ConsistentPrefix"}

// tokenString returns a string token's value ("" when absent).
func tokenString(req *rntbd.Request, id uint16) string {
	t, _ := req.Tokens.Get(id)
	return t.String()
}

// serveDirect answers one direct-mode request and logs it (at info level
// with Config.LogRequests, else debug, as the REST requests are).
func (h *handler) serveDirect(ctx context.Context, req *rntbd.Request) *rntbd.Response {
	start := time.Now()
	var phases *reqphase.Timings
	if h.metrics != nil {
		phases = new(reqphase.Timings)
		ctx = reqphase.NewContext(ctx, phases)
	}
	d := directOp{verb: directVerb(req.OperationType), resource: req.ResourceType, op: req.OperationType,
		db: tokenString(req, rntbd.ReqDatabaseName), coll: tokenString(req, rntbd.ReqCollectionName), doc: tokenString(req, rntbd.ReqDocumentName),
		sproc: tokenString(req, rntbd.ReqStoredProcedureName)}
	res, c, pk, err := h.direct(ctx, req, d)
	if err != nil {
		res = h.directError(ctx, req, d, c, pk, err)
	}
	elapsed := time.Since(start)
	status := int(res.Status)
	if res == rntbd.CloseConnection {
		status = StatusConnectionDropped
	}
	charge, _ := res.Tokens.Get(rntbd.RespRequestCharge)
	if h.metrics != nil {
		op, rt := directLabels(req, d)
		var items string
		if t, ok := res.Tokens.Get(rntbd.RespItemCount); ok {
			items = strconv.FormatUint(t.Num, 10)
		}
		h.metrics.record(op, rt, tokenString(req, rntbd.ReqAIM), status, elapsed, strconv.FormatFloat(charge.Float(), 'f', -1, 64), items)
		h.metrics.recordPhases(op, rt, phases)
		h.metrics.recordScripts(scriptKinds(op, tokenString(req, rntbd.ReqPreTriggerInclude), tokenString(req, rntbd.ReqPostTriggerInclude)), status)
	}
	level := slog.LevelDebug
	if h.logRequests {
		level = slog.LevelInfo
	}
	if h.log.Enabled(ctx, level) {
		h.log.Log(ctx, level, "direct request", "resourceType", req.ResourceType, "operationType", req.OperationType,
			"database", d.db, "container", d.coll, "status", status, "duration", elapsed, "request_charge", charge.Float())
	}
	return res
}

// direct authenticates and runs the request; on failure it returns the
// container and partition key it had resolved (zero values otherwise) for
// the error's tokens.
func (h *handler) direct(ctx context.Context, req *rntbd.Request, d directOp) (*rntbd.Response, emulator.Container, emulator.PartitionKey, error) {
	var none emulator.Container
	switch {
	case d.resource == rntbd.ResourceDocument && d.db != "" && d.coll != "":
		switch d.op {
		case rntbd.OpCreate, rntbd.OpUpsert, rntbd.OpQuery, rntbd.OpSQLQuery, rntbd.OpBatch, rntbd.OpReadFeed:
		case rntbd.OpRead, rntbd.OpReplace, rntbd.OpPatch, rntbd.OpDelete:
			if d.doc == "" {
				return nil, none, nil, emulator.BadRequest("The document name is missing from the direct-mode request.")
			}
		default:
			return nil, none, nil, unsupportedDirect(req)
		}
	case d.resource == rntbd.ResourceDatabase && d.op == rntbd.OpRead && d.db != "":
	case d.resource == rntbd.ResourceStoredProcedure && d.op == rntbd.OpExecuteJavaScript && d.db != "" && d.coll != "" && d.sproc != "":
	default:
		return nil, none, nil, unsupportedDirect(req)
	}
	ar := directAuthRequest(ctx, req, d)
	if err := h.authenticate(ar); err != nil {
		return nil, none, nil, err
	}
	// Documents only: the SDK itself asks Strong for the master
	// partition's resources (a database read of createDatabaseIfNotExists
	// from a Session client arrives so), which the service serves.
	if t, ok := req.Tokens.Get(rntbd.ReqConsistencyLevel); ok && d.resource == rntbd.ResourceDocument && t.Num < uint64(len(rntbdConsistencyLevels)) {
		ar.Header.Set("X-Ms-Consistency-Level", rntbdConsistencyLevels[t.Num])
		if err := h.checkConsistencyLevel(ar); err != nil {
			return nil, none, nil, err
		}
	}
	if res, faulted := h.directFault(ctx, req, d); faulted {
		return res, none, nil, nil
	}
	if h.limiter != nil && d.resource != rntbd.ResourceDatabase {
		if t, keys := h.directBuckets(ctx, req, d); len(keys) > 0 {
			est := directEstimate(req, d)
			if wait, ok := h.limiter.admit(keys, t.perRange, est); !ok {
				ms := max(int((wait+time.Millisecond-1)/time.Millisecond), 1)
				return directThrottle(req, http.StatusTooManyRequests, emulator.SubStatusRUBudgetExceeded, ms), none, nil, nil
			}
			res, c, pk, err := h.directRun(ctx, req, d)
			charge := directErrorCharge
			if err == nil {
				t, _ := res.Tokens.Get(rntbd.RespRequestCharge)
				charge = t.Float()
			}
			h.limiter.settle(keys, est, charge)
			return res, c, pk, err
		}
	}
	return h.directRun(ctx, req, d)
}

// directRun runs an authenticated, admitted request on the service.
func (h *handler) directRun(ctx context.Context, req *rntbd.Request, d directOp) (*rntbd.Response, emulator.Container, emulator.PartitionKey, error) {
	var none emulator.Container
	if d.resource == rntbd.ResourceDatabase {
		db, err := h.svc.GetDatabase(ctx, d.db)
		if err != nil {
			return nil, none, nil, err
		}
		lsn, err := h.svc.CurrentLSN(ctx)
		if err != nil {
			return nil, none, nil, err
		}
		res := &rntbd.Response{Status: http.StatusOK, Payload: db.JSON()}
		if m := tokenString(req, rntbd.ReqMatch); m != "" && m == db.ETag {
			res = &rntbd.Response{Status: http.StatusNotModified}
		}
		res.Tokens = append(lsnTokens(MasterPartitionKeyRangeID, lsn, 0),
			rntbd.StringToken(rntbd.RespETag, db.ETag), rntbd.DoubleToken(rntbd.RespRequestCharge, 1))
		return res, none, nil, nil
	}
	pk, err := ParsePartitionKeyHeader(tokenString(req, rntbd.ReqPartitionKey))
	if err != nil {
		return nil, none, nil, err
	}
	switch d.op {
	case rntbd.OpExecuteJavaScript:
		return h.directSproc(ctx, req, d, pk)
	case rntbd.OpQuery, rntbd.OpSQLQuery:
		return h.directQuery(ctx, req, d, pk)
	case rntbd.OpBatch:
		return h.directBatch(ctx, req, d, pk)
	case rntbd.OpReadFeed:
		return h.directReadFeed(ctx, req, d, pk)
	}
	if len(req.Payload) > emulator.MaxItemSize {
		return nil, none, pk, emulator.ErrTooLarge
	}
	ir := emulator.ItemRequest{Database: d.db, Container: d.coll, ID: d.doc, PartitionKey: pk, Body: req.Payload,
		PreTrigger: tokenString(req, rntbd.ReqPreTriggerInclude), PostTrigger: tokenString(req, rntbd.ReqPostTriggerInclude)}
	// Match is If-None-Match on reads, If-Match on writes
	// (RntbdRequestHeaders.addMatchHeader)
	if d.op == rntbd.OpRead {
		ir.IfNoneMatch = tokenString(req, rntbd.ReqMatch)
	} else {
		ir.IfMatch = tokenString(req, rntbd.ReqMatch)
	}
	var res emulator.ItemResult
	status := http.StatusOK
	switch d.op {
	case rntbd.OpCreate:
		res, err = h.svc.CreateItem(ctx, ir)
		status = http.StatusCreated
	case rntbd.OpUpsert:
		res, err = h.svc.UpsertItem(ctx, ir)
		if res.Created {
			status = http.StatusCreated
		}
	case rntbd.OpRead:
		res, err = h.svc.ReadItem(ctx, ir)
	case rntbd.OpReplace:
		res, err = h.svc.ReplaceItem(ctx, ir)
	case rntbd.OpPatch:
		res, err = h.svc.PatchItem(ctx, ir)
	case rntbd.OpDelete:
		res, err = h.svc.DeleteItem(ctx, ir)
		status = http.StatusNoContent
	}
	if err != nil {
		return nil, res.Container, pk, err
	}
	return directItemResponse(req, d, status, res), res.Container, pk, nil
}

// directQuery serves a query page of one partition key range (or one
// logical partition), as the SDK sends it in direct mode after fetching
// the query plan from the gateway: the feed envelope, ItemCount,
// ContinuationToken, the query metrics when PopulateQueryMetrics asks,
// and the LSN tokens at the store's current LSN (a session query's
// answer must be as recent as the client's session token).
func (h *handler) directQuery(ctx context.Context, req *rntbd.Request, d directOp, pk emulator.PartitionKey) (*rntbd.Response, emulator.Container, emulator.PartitionKey, error) {
	began := time.Now()
	var none emulator.Container
	epk, start, end, err := directEPKRange(req)
	if err != nil {
		return nil, none, pk, err
	}
	if len(req.Payload) > emulator.MaxItemSize {
		return nil, none, pk, emulator.ErrTooLarge
	}
	q, err := parseQueryBody(req.Payload, d.op == rntbd.OpSQLQuery)
	if err != nil {
		return nil, none, pk, err
	}
	page, err := directPage(req)
	if err != nil {
		return nil, none, pk, err
	}
	rangeID := strings.TrimSpace(tokenString(req, rntbd.ReqPartitionKeyRange))
	// A direct request goes to one range's replica, which has no
	// cross-partition check: the SDK names the range.
	res, err := h.svc.QueryItems(ctx, emulator.QueryRequest{Database: d.db, Container: d.coll, Query: q, PartitionKey: pk,
		RangeID: rangeID, EnableCrossPartition: rangeID != "" || epk, Page: page, EPKRange: epk, StartEPK: start, EndEPK: end})
	if err != nil {
		return nil, res.Container, pk, err
	}
	lsn, err := h.svc.CurrentLSN(ctx)
	if err != nil {
		return nil, res.Container, pk, err
	}
	body := feedBody(res.Container.RID, "Documents", res.Docs)
	out := &rntbd.Response{Status: http.StatusOK, Payload: body}
	out.Tokens = append(lsnTokens(directServedRange(res.Container, res.Range, pk), lsn, 0),
		rntbd.ULongToken(rntbd.RespItemCount, uint32(len(res.Docs))),
		rntbd.DoubleToken(rntbd.RespRequestCharge, chargeRU(false, len(body))))
	if res.Continuation != "" {
		out.Tokens = append(out.Tokens, rntbd.StringToken(rntbd.RespContinuationToken, res.Continuation))
	}
	if t, ok := req.Tokens.Get(rntbd.ReqPopulateQueryMetrics); ok && t.Num != 0 {
		out.Tokens = append(out.Tokens, rntbd.StringToken(rntbd.RespQueryMetrics, queryMetrics(time.Since(began), res.Docs)))
	}
	return out, res.Container, pk, nil
}

// directResourceTypes are the REST resource type names of RNTBD
// resource types (RntbdConstants.RntbdResourceType), the metrics' and
// fault rules' resource_type.
var directResourceTypes = map[uint16]string{
	rntbd.ResourceDatabase: "dbs", rntbd.ResourceCollection: "colls", rntbd.ResourceDocument: "docs",
	0x0004: "attachments", 0x0005: "users", 0x0006: "permissions", rntbd.ResourceStoredProcedure: "sprocs",
	0x0008: "conflicts", 0x0009: "triggers", 0x000A: "udfs", 0x000F: "offers", 0x0016: "pkranges",
}

// directLabels names a direct request's operation and resource type as
// classify names the REST request it stands for (the metrics' labels and
// the fault rules' FaultOperations): ReadFeed with A_IM is ChangeFeed, an
// ExecuteJavaScript is ExecuteStoredProcedure; an operation or resource
// type without a REST counterpart is "Other" or "other".
func directLabels(req *rntbd.Request, d directOp) (op, resourceType string) {
	resourceType = directResourceTypes[d.resource]
	if resourceType == "" {
		resourceType = "other"
	}
	switch d.op {
	case rntbd.OpCreate:
		op = "Create"
	case rntbd.OpUpsert:
		op = "Upsert"
	case rntbd.OpRead:
		op = "Read"
	case rntbd.OpReplace:
		op = "Replace"
	case rntbd.OpDelete:
		op = "Delete"
	case rntbd.OpPatch:
		op = "Patch"
	case rntbd.OpQuery, rntbd.OpSQLQuery:
		op = "Query"
	case rntbd.OpBatch:
		op = "Batch"
	case rntbd.OpHead, rntbd.OpHeadFeed:
		op = "Head"
	case rntbd.OpExecuteJavaScript:
		op = "ExecuteStoredProcedure"
	case rntbd.OpReadFeed:
		op = "ReadFeed"
		if tokenString(req, rntbd.ReqAIM) != "" {
			op = "ChangeFeed"
		}
	default:
		op = "Other"
	}
	return op, resourceType
}

// directBuckets returns the rate limiter's target of a direct request on
// a container (documents, stored procedure executions) and the budgets
// it pays into, chosen as for a REST request (bucketKeys: the range it
// names, else its partition key's); none when the container has no offer
// or cannot be read (the request answers that).
func (h *handler) directBuckets(ctx context.Context, req *rntbd.Request, d directOp) (*limitTarget, []string) {
	t := h.limiter.target(ctx, url.PathEscape(d.db), url.PathEscape(d.coll))
	if t == nil || t.owner == "" {
		return nil, nil
	}
	rangeID := tokenString(req, rntbd.ReqPartitionKeyRange)
	if i := strings.LastIndexByte(rangeID, ','); i >= 0 {
		rangeID = rangeID[i+1:] // "collectionRid,rangeId" (RntbdRequestHeaders)
	}
	return t, t.bucketKeys(strings.TrimSpace(rangeID), tokenString(req, rntbd.ReqPartitionKey))
}

// directEstimate is what a direct request reserves before it runs, as
// estimate for the REST request it stands for: a write the emulator's
// charge for its payload, anything else (reads, feeds, queries, stored
// procedure executions) 1 RU.
func directEstimate(req *rntbd.Request, d directOp) float64 {
	if d.resource != rntbd.ResourceDocument {
		return 1
	}
	switch d.op {
	case rntbd.OpCreate, rntbd.OpUpsert, rntbd.OpReplace, rntbd.OpPatch, rntbd.OpBatch:
		return chargeRU(true, len(req.Payload))
	case rntbd.OpDelete:
		return chargeRU(true, 0)
	}
	return 1
}

// directErrorCharge is the request charge of a direct request's error
// answer (directError).
const directErrorCharge float64 = 1

// directFault applies the fault rules (Config.Faults, the set the REST
// endpoints /_emulator/faults change) to an authenticated direct request,
// as faultHook does to REST requests: a delay (ended by the connection
// closing), a dropped connection (rntbd.CloseConnection), or an error in
// the service's shape with SubStatus and, on a 429, RetryAfterMilliseconds.
// faulted is false when no rule fires or the rule only delays.
func (h *handler) directFault(ctx context.Context, req *rntbd.Request, d directOp) (res *rntbd.Response, faulted bool) {
	if h.faults.active.Load() == nil {
		return nil, false
	}
	q := &faultRequest{db: d.db, coll: d.coll, id: d.doc, pkHeader: tokenString(req, rntbd.ReqPartitionKey)}
	q.op, q.rt = directLabels(req, d)
	switch d.resource {
	case rntbd.ResourceDatabase:
		q.id = d.db
	case rntbd.ResourceStoredProcedure:
		q.id = d.sproc
	}
	q.rangeID = tokenString(req, rntbd.ReqPartitionKeyRange)
	if i := strings.LastIndexByte(q.rangeID, ','); i >= 0 {
		q.rangeID = q.rangeID[i+1:]
	}
	f := h.faults.pickFor(q)
	if f == nil {
		return nil, false
	}
	p := f.rule.Response
	if p.DelayMs > 0 {
		t := time.NewTimer(time.Duration(p.DelayMs) * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return rntbd.CloseConnection, true // the connection is gone
		}
	}
	switch {
	case p.CloseConnection:
		return rntbd.CloseConnection, true
	case p.Status == 0:
		return nil, false
	}
	retry := p.RetryAfterMs
	if retry == 0 && p.Status == http.StatusTooManyRequests {
		retry = DefaultFaultRetryAfterMs
	}
	return directThrottle(req, p.Status, p.SubStatus, retry), true
}

// directThrottle is the answer of an injected error or a request over its
// rate limit: the status, the service's error body, SubStatus, no charge,
// and RetryAfterMilliseconds when retryMs is positive (one shape for every
// throttle a client can meet, as writeInjected is for REST requests).
func directThrottle(req *rntbd.Request, status, subStatus, retryMs int) *rntbd.Response {
	code, msg := injectedError(status, subStatus)
	res := &rntbd.Response{Status: int32(status), Payload: errorBody(code, msg+"\r\nActivityId: "+activityID(req.ActivityID), "")}
	res.Tokens = append(lsnTokens("", 0, 0), rntbd.ULongToken(rntbd.RespSubStatus, uint32(subStatus)),
		rntbd.DoubleToken(rntbd.RespRequestCharge, 0))
	if retryMs > 0 {
		res.Tokens = append(res.Tokens, rntbd.ULongToken(rntbd.RespRetryAfterMs, uint32(retryMs)))
	}
	return res
}

// activityID formats the 16 bytes of a request's activity id (.NET GUID
// byte order: the first three groups little-endian) as a GUID string.
func activityID(b [16]byte) string {
	return fmt.Sprintf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%x-%x", b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8:10], b[10:])
}

// directPage decodes PageSize and ContinuationToken.
func directPage(req *rntbd.Request) (emulator.PageRequest, error) {
	page := emulator.PageRequest{Continuation: tokenString(req, rntbd.ReqContinuationToken)}
	if t, ok := req.Tokens.Get(rntbd.ReqPageSize); ok {
		// a ULong: -1 (dynamic page size) arrives as 0xFFFFFFFF
		n, err := emulator.ParsePageSize(strconv.Itoa(int(int32(uint32(t.Num)))))
		if err != nil {
			return page, err
		}
		page.MaxItems = n
	}
	return page, nil
}

// readFeedKeyEPKRange is the ReadFeedKeyType of an effective partition key
// range (RntbdConstants.RntbdReadFeedKeyType.EffectivePartitionKeyRange).
const readFeedKeyEPKRange = 3

// directEPKRange decodes the effective partition key range of a query,
// read feed or change feed read (ReadFeedKeyType, StartEpk, EndEpk: the
// UTF-8 of the hex EPKs, RntbdRequestHeaders.addStartAndEndKeys) as
// epkRangeHeaders does the headers: ok is false when the request has none.
func directEPKRange(req *rntbd.Request) (ok bool, start, end string, err error) {
	kt, hasKT := req.Tokens.Get(rntbd.ReqReadFeedKeyType)
	st, hasStart := req.Tokens.Get(rntbd.ReqStartEpk)
	en, hasEnd := req.Tokens.Get(rntbd.ReqEndEpk)
	start, end = st.String(), en.String()
	switch {
	case !hasStart && !hasEnd && (!hasKT || kt.Num == readFeedKeyEPKRange):
		return false, "", "", nil
	case !hasKT || kt.Num == readFeedKeyEPKRange:
		if start, err = epkHeader("StartEpk", start); err != nil {
			return false, "", "", err
		}
		if end, err = epkHeader("EndEpk", end); err != nil {
			return false, "", "", err
		}
		return true, start, end, nil
	default:
		return false, "", "", emulator.BadRequest("The ReadFeedKeyType %d is not supported: use EffectivePartitionKeyRange.", kt.Num)
	}
}

// directReadFeed serves a document read feed: the items of a range, a
// logical partition or an EPK sub-range in creation order, paged; with
// A_IM "Incremental Feed", the latest-version change feed (Match is the
// If-None-Match continuation, IfModifiedSince the start time), 304 with
// the etag when nothing is new; with A_IM "Full-Fidelity Feed", the
// all-versions-and-deletes feed (directAllVersionsFeed).
func (h *handler) directReadFeed(ctx context.Context, req *rntbd.Request, d directOp, pk emulator.PartitionKey) (*rntbd.Response, emulator.Container, emulator.PartitionKey, error) {
	var none emulator.Container
	epk, start, end, err := directEPKRange(req)
	if err != nil {
		return nil, none, pk, err
	}
	page, err := directPage(req)
	if err != nil {
		return nil, none, pk, err
	}
	rangeID := strings.TrimSpace(tokenString(req, rntbd.ReqPartitionKeyRange))
	aim := strings.TrimSpace(tokenString(req, rntbd.ReqAIM))
	switch {
	case aim == "":
		res, err := h.svc.ReadFeed(ctx, emulator.FeedRequest{Database: d.db, Container: d.coll, PartitionKey: pk, RangeID: rangeID,
			EPKRange: epk, StartEPK: start, EndEPK: end, Page: page})
		if err != nil {
			return nil, res.Container, pk, err
		}
		docs := make([][]byte, len(res.Items))
		var lsn int64
		for i, it := range res.Items {
			docs[i] = it.JSON(res.Container)
			lsn = max(lsn, it.LSN)
		}
		if cur, err := h.svc.CurrentLSN(ctx); err == nil {
			lsn = max(lsn, cur)
		}
		body := feedBody(res.Container.RID, "Documents", docs)
		out := &rntbd.Response{Status: http.StatusOK, Payload: body}
		out.Tokens = append(lsnTokens(directServedRange(res.Container, res.Range, pk), lsn, 0),
			rntbd.ULongToken(rntbd.RespItemCount, uint32(len(docs))),
			rntbd.DoubleToken(rntbd.RespRequestCharge, chargeRU(false, len(body))))
		if res.Continuation != "" {
			out.Tokens = append(out.Tokens, rntbd.StringToken(rntbd.RespContinuationToken, res.Continuation))
		}
		return out, res.Container, pk, nil
	case strings.EqualFold(aim, "Incremental Feed"):
	case strings.EqualFold(aim, allVersionsFeedAIM):
		return h.directAllVersionsFeed(ctx, req, d, pk, rangeID, epk, start, end, page)
	default:
		return nil, none, pk, emulator.BadRequest("The A-IM header value '%s' is invalid: use 'Incremental Feed' or '%s'.", aim, allVersionsFeedAIM)
	}
	cr := emulator.ChangeFeedRequest{Database: d.db, Container: d.coll, PartitionKey: pk, RangeID: rangeID,
		EPKRange: epk, StartEPK: start, EndEPK: end, MaxItems: page.MaxItems,
		// Match is If-None-Match on a read feed (RntbdRequestHeaders.addMatchHeader)
		IfNoneMatch: strings.TrimSpace(tokenString(req, rntbd.ReqMatch))}
	if v := tokenString(req, rntbd.ReqIfModifiedSince); v != "" && cr.IfNoneMatch == "" {
		t, err := parseHTTPDate(v)
		if err != nil {
			return nil, none, pk, err
		}
		if cr.SinceTS = t.Unix(); cr.SinceTS < 1 {
			cr.SinceTS = 1
		}
	}
	res, err := h.svc.ReadChangeFeed(ctx, cr)
	if err != nil {
		return nil, res.Container, pk, err
	}
	entries := strings.TrimSpace(tokenString(req, rntbd.ReqChangeFeedWireFormatVersion)) == changeFeedWireFormatEntries
	lsn := res.LatestLSN
	docs := make([][]byte, len(res.Items))
	for i, it := range res.Items {
		if entries {
			docs[i] = it.AppendChangeFeedEntryJSON(nil, res.Container)
		} else {
			docs[i] = it.AppendChangeFeedJSON(nil, res.Container)
		}
		lsn = max(lsn, it.LSN)
	}
	if cur, err := h.svc.CurrentLSN(ctx); err == nil {
		lsn = max(lsn, cur)
	}
	tokens := append(lsnTokens(directServedRange(res.Container, res.Range, pk), lsn, 0), rntbd.StringToken(rntbd.RespETag, res.ETag))
	if len(docs) == 0 {
		// 304: a success to the SDK (RntbdRequestManager), the etag the
		// continuation
		return &rntbd.Response{Status: http.StatusNotModified, Tokens: append(tokens, rntbd.DoubleToken(rntbd.RespRequestCharge, chargeRU(false, 0)))}, res.Container, pk, nil
	}
	body := feedBody(res.Container.RID, "Documents", docs)
	out := &rntbd.Response{Status: http.StatusOK, Payload: body}
	out.Tokens = append(tokens, rntbd.ULongToken(rntbd.RespItemCount, uint32(len(docs))),
		rntbd.DoubleToken(rntbd.RespRequestCharge, chargeRU(false, len(body))))
	return out, res.Container, pk, nil
}

// directAllVersionsFeed serves one page of the all-versions-and-deletes
// change feed as readAllVersionsFeed does through the gateway: Match is
// the If-None-Match continuation ("*": from now), an IfModifiedSince token
// a start from a point in time; the entries ({"current","metadata"}) in
// commit order, the etag the continuation, 304 with ItemCount 0 when
// nothing is new. (The Java SDK sends this feed through the gateway even
// in direct mode: ChangeFeedStateV1 sets useGatewayMode for FULL_FIDELITY.)
func (h *handler) directAllVersionsFeed(ctx context.Context, req *rntbd.Request, d directOp, pk emulator.PartitionKey, rangeID string,
	epk bool, start, end string, page emulator.PageRequest) (*rntbd.Response, emulator.Container, emulator.PartitionKey, error) {
	res, err := h.svc.ReadAllVersionsFeed(ctx, emulator.AllVersionsFeedRequest{Database: d.db, Container: d.coll, PartitionKey: pk,
		RangeID: rangeID, EPKRange: epk, StartEPK: start, EndEPK: end, Page: page,
		// Match is If-None-Match on a read feed (RntbdRequestHeaders.addMatchHeader)
		IfNoneMatch: strings.TrimSpace(tokenString(req, rntbd.ReqMatch)),
		PointInTime: strings.TrimSpace(tokenString(req, rntbd.ReqIfModifiedSince)) != ""})
	if err != nil {
		return nil, res.Container, pk, err
	}
	lsn := res.LSN
	if cur, err := h.svc.CurrentLSN(ctx); err == nil {
		lsn = max(lsn, cur)
	}
	tokens := append(lsnTokens(directServedRange(res.Container, res.Range, pk), lsn, 0), rntbd.StringToken(rntbd.RespETag, res.ETag),
		rntbd.ULongToken(rntbd.RespItemCount, uint32(len(res.Docs))))
	if len(res.Docs) == 0 {
		return &rntbd.Response{Status: http.StatusNotModified, Tokens: append(tokens, rntbd.DoubleToken(rntbd.RespRequestCharge, chargeRU(false, 0)))}, res.Container, pk, nil
	}
	body := feedBody(res.Container.RID, "Documents", res.Docs)
	out := &rntbd.Response{Status: http.StatusOK, Payload: body}
	out.Tokens = append(tokens, rntbd.DoubleToken(rntbd.RespRequestCharge, chargeRU(false, len(body))))
	return out, res.Container, pk, nil
}

// directServedRange is servedRange, or the only range of a container
// that has one.
func directServedRange(c emulator.Container, named emulator.PartitionKeyRange, pk emulator.PartitionKey) string {
	if id := servedRange(c, named, pk); id != "" {
		return id
	}
	if rs := c.LiveRanges(); len(rs) == 1 {
		return rs[0].ID
	}
	return ""
}

// directBatch serves a transactional batch (IsBatchAtomic absent or 1) or
// a bulk request (IsBatchAtomic 0, ShouldBatchContinueOnError): the same
// execution and results as through the gateway, 200 when every operation
// succeeded, else 207.
func (h *handler) directBatch(ctx context.Context, req *rntbd.Request, d directOp, pk emulator.PartitionKey) (*rntbd.Response, emulator.Container, emulator.PartitionKey, error) {
	var none emulator.Container
	if len(req.Payload) > emulator.MaxItemSize {
		return nil, none, pk, emulator.ErrTooLarge
	}
	atomic := true
	if t, ok := req.Tokens.Get(rntbd.ReqIsBatchAtomic); ok {
		atomic = t.Num != 0
	}
	cont, _ := req.Tokens.Get(rntbd.ReqShouldBatchContinueOnError)
	res, err := h.svc.ExecuteBatch(ctx, emulator.BatchRequest{Database: d.db, Container: d.coll, PartitionKey: pk,
		ParsePartitionKey: ParsePartitionKeyHeader, Body: req.Payload, Atomic: atomic, ContinueOnError: cont.Num != 0})
	if err != nil {
		return nil, res.Container, pk, err
	}
	body, lsn, total := renderBatch(res, minimalReturn(req), len(req.Payload))
	named, _ := res.Container.RangeByID(tokenString(req, rntbd.ReqPartitionKeyRange))
	served := directServedRange(res.Container, named, pk)
	if cur, err := h.svc.CurrentLSN(ctx); err == nil && cur > lsn {
		lsn = cur
	}
	out := &rntbd.Response{Status: http.StatusOK, Payload: body}
	if res.Failed {
		out.Status = http.StatusMultiStatus
	}
	out.Tokens = append(lsnTokens(served, lsn, 0), rntbd.DoubleToken(rntbd.RespRequestCharge, float64(int(total*100+0.5))/100))
	return out, res.Container, pk, nil
}

// directSproc executes a stored procedure in the logical partition pk:
// the parameters are the payload, the answer the script's response body,
// with the script's log (LogResults) when EnableLogging asks, as through
// the gateway.
func (h *handler) directSproc(ctx context.Context, req *rntbd.Request, d directOp, pk emulator.PartitionKey) (*rntbd.Response, emulator.Container, emulator.PartitionKey, error) {
	var none emulator.Container
	if tokenString(req, rntbd.ReqPreTriggerInclude) != "" || tokenString(req, rntbd.ReqPostTriggerInclude) != "" {
		return nil, none, pk, emulator.BadRequest("One of the specified inputs is invalid: triggers cannot be included in a stored procedure execution.")
	}
	if len(req.Payload) > emulator.MaxItemSize {
		return nil, none, pk, emulator.ErrTooLarge
	}
	body := req.Payload
	if len(body) == 0 {
		body = nil
	}
	lt, _ := req.Tokens.Get(rntbd.ReqEnableLogging)
	res, err := h.svc.ExecuteSproc(ctx, emulator.SprocRequest{Database: d.db, Container: d.coll, ID: d.sproc,
		PartitionKey: pk, Body: body, Logging: lt.Num != 0})
	if err != nil {
		return nil, res.Container, pk, err
	}
	lsn := res.LSN
	if cur, err := h.svc.CurrentLSN(ctx); err == nil && cur > lsn {
		lsn = cur
	}
	out := &rntbd.Response{Status: http.StatusOK, Payload: res.Body}
	out.Tokens = append(lsnTokens(servedRange(res.Container, emulator.PartitionKeyRange{}, pk), lsn, 0),
		rntbd.DoubleToken(rntbd.RespRequestCharge, chargeRU(res.LSN != 0, len(res.Body))))
	if lt.Num != 0 {
		out.Tokens = append(out.Tokens, rntbd.StringToken(rntbd.RespLogResults, encodeURIComponent(res.Log)))
	}
	return out, res.Container, pk, nil
}

// directItemResponse is the answer of a successful document operation:
// the document (unless the operation deletes it, the read is not modified
// or a write asked for a minimal answer), its etag, the LSNs and session
// token of its range, and the charge.
func directItemResponse(req *rntbd.Request, d directOp, status int, res emulator.ItemResult) *rntbd.Response {
	write := d.op != rntbd.OpRead
	body := res.Body // a post-trigger's response body
	if body == nil && d.op != rntbd.OpDelete {
		body = res.Item.JSON(res.Container)
	}
	lsn := max(res.Item.LSN, res.Item.CurrentLSN)
	out := &rntbd.Response{Status: int32(status)}
	charge := chargeRU(write, len(body))
	switch {
	case d.op == rntbd.OpDelete:
		charge = chargeRU(true, 0)
	case d.op == rntbd.OpRead && res.NotModified:
		status, out.Status = http.StatusNotModified, http.StatusNotModified
	case write && minimalReturn(req):
		out.Payload = []byte{}
	default:
		out.Payload = body
	}
	out.Tokens = append(lsnTokens(res.Container.RangeIDForPK(res.Item.PK), lsn, res.Item.LSN),
		rntbd.DoubleToken(rntbd.RespRequestCharge, charge),
		rntbd.StringToken(rntbd.RespOwnerFullName, "dbs/"+res.Container.DatabaseID+"/colls/"+res.Container.ID),
		rntbd.StringToken(rntbd.RespOwnerID, res.Container.RID))
	if res.Item.ETag != "" && d.op != rntbd.OpDelete {
		out.Tokens = append(out.Tokens, rntbd.StringToken(rntbd.RespETag, res.Item.ETag))
	}
	if len(out.Payload) == 0 {
		out.Payload = nil
	}
	return out
}

// minimalReturn reports Prefer: return=minimal (the ReturnPreference token).
func minimalReturn(req *rntbd.Request) bool {
	t, ok := req.Tokens.Get(rntbd.ReqReturnPreference)
	return ok && t.Num != 0
}

// lsnTokens are the tokens every direct-mode answer carries so that the
// SDK's store reader accepts it (StoreReader.createStoreResult): the LSN
// family at lsn (quorum acknowledged and committed: one replica), one
// replica in the set and the write quorum, and the range's session token
// "-1#lsn", which the SDK prefixes with the range id (rangeId:-1#lsn, the
// form the gateway sends). itemLSN, when positive, is the item's own LSN.
func lsnTokens(rangeID string, lsn, itemLSN int64) rntbd.Tokens {
	if lsn <= 0 {
		lsn = 1
	}
	if itemLSN <= 0 {
		itemLSN = lsn
	}
	ts := rntbd.Tokens{
		rntbd.LongLongToken(rntbd.RespLSN, lsn),
		rntbd.LongLongToken(rntbd.RespLocalLSN, lsn),
		rntbd.LongLongToken(rntbd.RespGlobalCommittedLSN, lsn),
		rntbd.LongLongToken(rntbd.RespQuorumAckedLSN, lsn),
		rntbd.LongLongToken(rntbd.RespQuorumAckedLocalLSN, lsn),
		rntbd.LongLongToken(rntbd.RespItemLSN, itemLSN),
		rntbd.LongLongToken(rntbd.RespItemLocalLSN, itemLSN),
		rntbd.ULongToken(rntbd.RespCurrentReplicaSetSize, 1),
		rntbd.ULongToken(rntbd.RespCurrentWriteQuorum, 1),
		rntbd.ULongToken(rntbd.RespNumberOfReadRegions, 0),
	}
	if rangeID != "" {
		ts = append(ts, rntbd.StringToken(rntbd.RespPartitionKeyRangeID, rangeID),
			rntbd.StringToken(rntbd.RespSessionToken, "-1#"+strconv.FormatInt(lsn, 10)))
	}
	return ts
}

// directError answers a failed request as the SDK decodes errors
// (RntbdRequestManager.messageReceived): the status and SubStatus token of
// the error's kind (StatusOf, the one mapping), the error body, and the
// LSN tokens at the store's current LSN, so that a session read's 404 is
// accepted as recent enough rather than retried.
func (h *handler) directError(ctx context.Context, req *rntbd.Request, d directOp, c emulator.Container, pk emulator.PartitionKey, err error) *rntbd.Response {
	e := h.cosmosError(err)
	status := StatusOf(e.Kind)
	if ctx.Err() != nil {
		h.log.Debug("direct request abandoned: the connection closed", "err", err)
	} else if status >= 500 {
		h.log.Error("direct request failed", "resourceType", req.ResourceType, "operationType", req.OperationType, "status", status, "err", err)
	} else {
		h.log.Debug("direct request refused", "resourceType", req.ResourceType, "operationType", req.OperationType, "status", status, "err", err)
	}
	lsn, lerr := h.svc.CurrentLSN(ctx)
	if lerr != nil {
		lsn = 0
	}
	rangeID := ""
	switch {
	case d.resource == rntbd.ResourceDatabase:
		rangeID = MasterPartitionKeyRangeID
	case c.RID != "":
		if rangeID = servedRange(c, emulator.PartitionKeyRange{}, pk); rangeID == "" {
			if rs := c.LiveRanges(); len(rs) == 1 {
				rangeID = rs[0].ID
			}
		}
	}
	res := &rntbd.Response{Status: int32(status), Payload: errorBody(e.Kind.String(), e.Message, e.AdditionalErrorInfo)}
	res.Tokens = append(lsnTokens(rangeID, lsn, 0),
		rntbd.ULongToken(rntbd.RespSubStatus, uint32(e.SubStatus)),
		rntbd.DoubleToken(rntbd.RespRequestCharge, directErrorCharge))
	if status == http.StatusServiceUnavailable {
		res.Tokens = append(res.Tokens, rntbd.ULongToken(rntbd.RespRetryAfterMs, RetryAfterUnavailable))
	}
	return res
}

// unsupportedDirect is the 400 of a request direct mode does not serve.
func unsupportedDirect(req *rntbd.Request) error {
	return emulator.BadRequest("This emulator does not serve resource type %d, operation type %d in direct mode yet; connect in gateway mode for it.", req.ResourceType, req.OperationType)
}

// directAuthRequest is the request whose Authorization the REST
// middleware's authenticate checks for a direct-mode request: the verb,
// the name-based path and the Authorization and x-ms-date values the
// direct request carries. Only authenticate reads it; nothing is served
// over it.
func directAuthRequest(ctx context.Context, req *rntbd.Request, d directOp) *http.Request {
	segs := []string{"dbs", d.db}
	if d.resource == rntbd.ResourceStoredProcedure {
		segs = append(segs, "colls", d.coll, "sprocs", d.sproc)
	}
	if d.resource == rntbd.ResourceDocument {
		segs = append(segs, "colls", d.coll, "docs")
		if d.doc != "" {
			segs = append(segs, d.doc)
		}
	}
	esc := make([]string, len(segs))
	for i, s := range segs {
		esc[i] = url.PathEscape(s)
	}
	r := (&http.Request{Method: d.verb, Header: http.Header{},
		URL: &url.URL{Path: "/" + strings.Join(segs, "/"), RawPath: "/" + strings.Join(esc, "/")}}).WithContext(ctx)
	if v := tokenString(req, rntbd.ReqAuthorizationToken); v != "" {
		r.Header.Set("Authorization", v)
	}
	if v := tokenString(req, rntbd.ReqDate); v != "" {
		r.Header.Set("X-Ms-Date", v)
	}
	if d.op == rntbd.OpQuery || d.op == rntbd.OpSQLQuery {
		// a query reads: a read-only resource token may run it
		r.Header.Set("X-Ms-Documentdb-Isquery", "true")
	}
	return r
}
