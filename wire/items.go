package wire

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/internal/reqphase"
)

// itemRequest decodes the parts of an item request common to every verb.
func itemRequest(r *http.Request) (emulator.ItemRequest, error) {
	pk, err := ParsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
	if err != nil {
		return emulator.ItemRequest{}, err
	}
	req := emulator.ItemRequest{
		Database:     pathVar(r, "db"),
		Container:    pathVar(r, "coll"),
		PartitionKey: pk,
		IfMatch:      r.Header.Get("If-Match"),
		IfNoneMatch:  r.Header.Get("If-None-Match"),
		PreTrigger:   r.Header.Get("X-Ms-Documentdb-Pre-Trigger-Include"),
		PostTrigger:  r.Header.Get("X-Ms-Documentdb-Post-Trigger-Include"),
	}
	req.ID = pathVar(r, "id") // "" on the feed routes
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		if req.Body, err = readBody(r); err != nil {
			return req, err
		}
	}
	return req, nil
}

// wantsMinimal reports Prefer: return=minimal (the Go SDK's default on
// writes): the body is left out, every header stays.
func wantsMinimal(r *http.Request) bool {
	return strings.Contains(strings.ToLower(r.Header.Get("Prefer")), "return=minimal")
}

// writeItem sends an item response: body (unless minimal), etag, session
// token and charge.
func (h *handler) writeItem(w http.ResponseWriter, r *http.Request, status int, res emulator.ItemResult, write bool) {
	body := res.Body // a post-trigger's response body
	if body == nil {
		encoded := reqphase.Start(r.Context(), reqphase.Encode)
		body = res.Item.JSON(res.Container)
		encoded()
	}
	hd := w.Header()
	setHeaders(hd, "X-Ms-Request-Charge", charge(write, len(body)),
		"X-Ms-Alt-Content-Path", "dbs/"+res.Container.DatabaseID+"/colls/"+res.Container.ID,
		"X-Ms-Content-Path", res.Container.RID)
	lsn := res.Item.LSN
	if res.Item.CurrentLSN > lsn {
		// a read: lsn is the current LSN, as the service's (the Python SDK's
		// test_transactional_batch.py test_batch_lsn expects a batch after
		// a read and three writes to answer lsn one above the read's)
		lsn = res.Item.CurrentLSN
	}
	setRangeSession(w, res.Container, res.Container.RangeIDForPK(res.Item.PK), lsn)
	if lsn != res.Item.LSN && res.Item.LSN > 0 {
		hd.Set("X-Ms-Item-Lsn", strconv.FormatInt(res.Item.LSN, 10))
	}
	if write && wantsMinimal(r) {
		body = nil
	}
	writeResource(w, status, body, res.Item.ETag)
}

// postDocs dispatches POST .../docs: query, query plan, batch, upsert or
// create.
func (h *handler) postDocs(w http.ResponseWriter, r *http.Request) {
	switch {
	case isTrue(r.Header.Get("X-Ms-Cosmos-Is-Batch-Request")):
		h.batch(w, r)
		return
	case isTrue(r.Header.Get("X-Ms-Cosmos-Is-Query-Plan-Request")):
		h.queryPlan(w, r)
		return
	case isQuery(r):
		h.queryItems(w, r)
		return
	}
	req, err := itemRequest(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if isTrue(r.Header.Get("X-Ms-Documentdb-Is-Upsert")) {
		res, err := h.svc.UpsertItem(r.Context(), req)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		status := http.StatusOK
		if res.Created {
			status = http.StatusCreated
		}
		h.writeItem(w, r, status, res, true)
		return
	}
	res, err := h.svc.CreateItem(r.Context(), req)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeItem(w, r, http.StatusCreated, res, true)
}

func (h *handler) readItem(w http.ResponseWriter, r *http.Request) {
	req, err := itemRequest(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.ReadItem(r.Context(), req)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if res.NotModified {
		w.Header().Set("Etag", res.Item.ETag)
		setRangeSession(w, res.Container, res.Container.RangeIDForPK(res.Item.PK), res.Item.LSN)
		writeBody(w, http.StatusNotModified, nil)
		return
	}
	// the URL the item was read at, as the gateway answers a read: the
	// Python SDK's test_globaldb.py reads it from every item read
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	w.Header().Set("Content-Location", scheme+"://"+r.Host+r.URL.EscapedPath())
	h.writeItem(w, r, http.StatusOK, res, false)
}

func (h *handler) replaceItem(w http.ResponseWriter, r *http.Request) {
	h.updateItem(w, r, h.svc.ReplaceItem)
}

func (h *handler) patchItem(w http.ResponseWriter, r *http.Request) {
	h.updateItem(w, r, h.svc.PatchItem)
}

// updateItem serves a write of an existing document (replace, patch): 200
// with the document.
func (h *handler) updateItem(w http.ResponseWriter, r *http.Request, op func(context.Context, emulator.ItemRequest) (emulator.ItemResult, error)) {
	req, err := itemRequest(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := op(r.Context(), req)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeItem(w, r, http.StatusOK, res, true)
}

func (h *handler) deleteItem(w http.ResponseWriter, r *http.Request) {
	req, err := itemRequest(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.DeleteItem(r.Context(), req)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("X-Ms-Request-Charge", charge(true, 0))
	setRangeSession(w, res.Container, res.Container.RangeIDForPK(res.Item.PK), res.Item.LSN)
	writeBody(w, http.StatusNoContent, nil)
}

// readFeed serves GET .../docs: the items of a container (or of one logical
// partition with the partition key header, or of an effective partition key
// sub-range with x-ms-start-epk/x-ms-end-epk) in creation order, paged.
func (h *handler) readFeed(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("A-Im") != "" {
		h.changeFeed(w, r) // wire/changefeed.go
		return
	}
	pk, err := ParsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	p, err := pageRequest(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	req := emulator.FeedRequest{Database: pathVar(r, "db"), Container: pathVar(r, "coll"), PartitionKey: pk,
		RangeID: strings.TrimSpace(r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid")), Page: p}
	if req.EPKRange, req.StartEPK, req.EndEPK, err = epkRangeHeaders(r); err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.ReadFeed(r.Context(), req)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	docs := make([][]byte, len(res.Items))
	var lsn int64
	for i, it := range res.Items {
		docs[i] = it.JSON(res.Container)
		if it.LSN > lsn {
			lsn = it.LSN
		}
	}
	setRangeSession(w, res.Container, servedRange(res.Container, res.Range, pk), lsn)
	writeFeed(w, res.Container.RID, "Documents", docs, res.Continuation)
}

// queryItems serves an item query page (confined to an effective partition
// key sub-range by x-ms-start-epk/x-ms-end-epk).
func (h *handler) queryItems(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q, err := decodeQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	pk, err := ParsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	p, err := pageRequest(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	req := emulator.QueryRequest{
		Database: pathVar(r, "db"), Container: pathVar(r, "coll"), Query: q, PartitionKey: pk,
		RangeID: r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid"), EnableCrossPartition: enablesCrossPartition(r), Page: p,
		SplitRangeServed: queriesSplitRanges(r),
	}
	if req.EPKRange, req.StartEPK, req.EndEPK, err = epkRangeHeaders(r); err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.QueryItems(r.Context(), req)
	hd := w.Header()
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if isTrue(r.Header.Get("X-Ms-Documentdb-Populatequerymetrics")) {
		hd.Set("X-Ms-Documentdb-Query-Metrics", queryMetrics(time.Since(start), res.Docs))
	}
	if isTrue(r.Header.Get("X-Ms-Cosmos-Populateindexmetrics")) {
		hd.Set("X-Ms-Cosmos-Index-Utilization", base64.StdEncoding.EncodeToString([]byte(`{"UtilizedSingleIndexes":[],"PotentialSingleIndexes":[],"UtilizedCompositeIndexes":[],"PotentialCompositeIndexes":[]}`)))
	}
	setRangeHeaders(w, res.Container, servedRange(res.Container, res.Range, pk), 0, false)
	writeFeed(w, res.Container.RID, "Documents", res.Docs, res.Continuation)
}

// enablesCrossPartition reports whether a query request enables
// cross-partition queries, by either of the headers the SDKs send.
func enablesCrossPartition(r *http.Request) bool {
	cross := r.Header.Get("X-Ms-Documentdb-Query-Enablecrosspartition")
	if cross == "" {
		cross = r.Header.Get("X-Ms-Query-Enable-Crosspartition")
	}
	return isTrue(cross)
}

// queryMetrics is the x-ms-documentdb-query-metrics value of a query page,
// sent as the service sends it: only when the request asks for it
// (x-ms-documentdb-populatequerymetrics: true), and then with every
// member, since the Java SDK reads each one without a null check
// (QueryMetrics.createFromDelimitedStringAndClientSideMetrics) and fails
// on a header that lacks one. What is measured is the time of the whole
// request, the results and their size; the documents scanned are given as
// the results (at least those were read), the engine's phases as 0.
func queryMetrics(elapsed time.Duration, docs [][]byte) string {
	size := 0
	for _, d := range docs {
		size += len(d)
	}
	return fmt.Sprintf("totalExecutionTimeInMs=%.2f;queryCompileTimeInMs=0.00;queryLogicalPlanBuildTimeInMs=0.00;"+
		"queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs=0.00;"+
		"indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;"+
		"userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount=%d;retrievedDocumentSize=%d;"+
		"outputDocumentCount=%d;outputDocumentSize=%d;writeOutputTimeInMs=0.00;indexUtilizationRatio=1.00",
		float64(elapsed.Microseconds())/1000, len(docs), size, len(docs), size)
}

// queryPlan answers a query plan request.
func (h *handler) queryPlan(w http.ResponseWriter, r *http.Request) {
	q, err := decodeQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	plan, err := h.svc.QueryPlan(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), q, r.Header.Get("X-Ms-Cosmos-Supported-Query-Features"))
	if err == nil {
		err = emulator.CheckQueryFeatures(plan, r.Header.Get("X-Ms-Cosmos-Supported-Query-Features"))
	}
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeBody(w, http.StatusOK, plan)
}
