package wire

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// batchResultOverhead is about what one result adds to a batch response
// besides the body it carries (status, charge, etag, system properties).
const batchResultOverhead = 384

// batch serves POST .../docs with x-ms-cosmos-is-batch-request: a
// transactional batch (x-ms-cosmos-batch-atomic: True) or a bulk request.
// The response is 200 when every operation succeeded, else 207; its body
// is one result per operation, in order (reference §8.3).
func (h *handler) batch(w http.ResponseWriter, r *http.Request) {
	req, err := itemRequest(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	atomic := r.Header.Get("X-Ms-Cosmos-Batch-Atomic")
	res, err := h.svc.ExecuteBatch(r.Context(), emulator.BatchRequest{
		Database: req.Database, Container: req.Container, PartitionKey: req.PartitionKey,
		ParsePartitionKey: ParsePartitionKeyHeader, Body: req.Body,
		Atomic:          atomic == "" || isTrue(atomic),
		ContinueOnError: isTrue(r.Header.Get("X-Ms-Cosmos-Batch-Continue-On-Error")),
	})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	buf, lsn, total := renderBatch(res, wantsMinimal(r), len(req.Body))
	hd := w.Header()
	hd.Set("X-Ms-Request-Charge", strconv.FormatFloat(float64(int(total*100+0.5))/100, 'f', -1, 64))
	named, _ := res.Container.RangeByID(r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid"))
	setRangeSession(w, res.Container, servedRange(res.Container, named, req.PartitionKey), lsn)
	status := http.StatusOK
	if res.Failed {
		status = http.StatusMultiStatus
	}
	writeBody(w, status, buf)
}

// renderBatch renders a batch's results (the response body of both
// transports), with the highest LSN written and the total charge; minimal
// leaves the bodies of writes out; reqLen is the request body's size.
func renderBatch(res emulator.BatchResult, minimal bool, reqLen int) (buf []byte, lsn int64, total float64) {
	// The response holds about what the request did (the bodies) plus
	// each result's status and system properties: sized once, and each
	// body rendered into one reused buffer.
	buf = make([]byte, 1, reqLen+len(res.Ops)*batchResultOverhead)
	buf[0] = '['
	var scratch []byte
	for i, op := range res.Ops {
		if i > 0 {
			buf = append(buf, ',')
		}
		status, sub := batchOpStatus(op)
		var body []byte
		if op.Err == nil && !op.Dependent && !op.NotModified && op.Op != emulator.BatchDelete && (op.Op == emulator.BatchRead || !minimal) {
			scratch = op.Item.AppendJSON(scratch[:0], res.Container)
			body = scratch
		}
		write := op.Op != emulator.BatchRead
		ru := chargeRU(write, len(body))
		total += ru
		buf = append(buf, `{"statusCode":`...)
		buf = strconv.AppendInt(buf, int64(status), 10)
		if sub != 0 {
			buf = append(buf, `,"subStatusCode":`...)
			buf = strconv.AppendInt(buf, int64(sub), 10)
		}
		buf = append(buf, `,"requestCharge":`...)
		buf = strconv.AppendFloat(buf, ru, 'f', -1, 64)
		if op.Err == nil && !op.Dependent && op.Item.ETag != "" {
			buf = append(buf, `,"eTag":`...)
			buf = emulator.AppendJSONString(buf, op.Item.ETag)
		}
		if body != nil {
			buf = append(buf, `,"resourceBody":`...)
			buf = append(buf, body...)
		}
		buf = append(buf, '}')
		if op.Err == nil && op.Item.LSN > lsn {
			lsn = op.Item.LSN
		}
	}
	return append(buf, ']'), lsn, total
}

// batchOpStatus is the status and sub-status of one batch operation's
// result.
func batchOpStatus(op emulator.BatchOpResult) (int, int) {
	switch {
	case op.Dependent:
		return http.StatusFailedDependency, 0
	case op.Err != nil:
		var sub int
		var e *emulator.Error
		if errors.As(op.Err, &e) {
			sub = e.SubStatus
		}
		return StatusOf(emulator.KindOf(op.Err)), sub
	case op.NotModified:
		return http.StatusNotModified, 0
	}
	switch op.Op {
	case emulator.BatchCreate:
		return http.StatusCreated, 0
	case emulator.BatchUpsert:
		if op.Created {
			return http.StatusCreated, 0
		}
	case emulator.BatchDelete:
		return http.StatusNoContent, 0
	}
	return http.StatusOK, 0
}

// partitionKeyDelete serves POST .../colls/{c}/operations/partitionkeydelete
// (deleteAllItemsForPartitionKey): 200 at once, the items of the logical
// partition in the partition key header are deleted in the background.
func (h *handler) partitionKeyDelete(w http.ResponseWriter, r *http.Request) {
	pk, err := ParsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	c, err := h.svc.DeletePartition(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), pk)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("X-Ms-Request-Charge", charge(true, 0))
	w.Header().Set("X-Ms-Content-Path", c.RID)
	writeBody(w, http.StatusOK, nil)
}
