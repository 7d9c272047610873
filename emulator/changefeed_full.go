package emulator

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// DefaultChangeFeedRetention is how long a container keeps the history the
// all-versions-and-deletes change feed serves when its changeFeedPolicy
// has no positive retentionDuration. The service keeps history for the
// account's continuous-backup window; the emulator bounds it so the log
// does not grow without end (the TTL sweeper trims it).
const DefaultChangeFeedRetention = time.Hour

// Change is one entry of a container's change log: a create, replace or
// delete, as committed.
type Change struct {
	// Seq is the entry's position in the container's log (commit order);
	// the feed's continuation is the Seq of the last entry served.
	Seq int64
	// Op is 'c' (create), 'r' (replace, including upserts of an existing
	// item and patches) or 'd' (delete).
	Op byte
	// PK is the canonical partition key (PartitionKey.Canonical), ID the id.
	PK, ID string
	// DocSeq is the item's Seq (its _rid); 0 for deletes.
	DocSeq int64
	// LSN is the write's LSN; PrevLSN the LSN of the version it replaced or
	// deleted (0: none).
	LSN, PrevLSN int64
	// CRTS is the write's time in unix seconds.
	CRTS int64
	// TTLExpired marks a delete made by the TTL sweeper (or an expired item
	// overwritten by a create).
	TTLExpired bool
	// ETag and Body are the item's version after the write (nil Body for
	// deletes).
	ETag string
	Body []byte
	// Txn identifies the writing transaction: the entries of one
	// transaction (a batch) are consecutive and served in one page.
	Txn string
}

// ReadChangeLogParams are the inputs of ChangeLog.ReadChangeLog.
type ReadChangeLogParams struct {
	Container Container
	PK        *string // nil: all partitions
	// EPK, when set, keeps only the entries whose effective partition key
	// lies in it (a partition key range, or a sub-range of one).
	EPK      *EPKRange
	AfterSeq int64
	Limit    int
}

// ChangeLogPage is what ChangeLog.ReadChangeLog read.
type ChangeLogPage struct {
	Changes []Change
	// ScannedTo is the Seq up to which the read is complete: every entry
	// after p.AfterSeq up to it is in Changes or lies outside p.EPK (0
	// when nothing was read).
	ScannedTo int64
}

// ChangeLog is the part of Store that keeps the record of every committed
// write, which the all-versions-and-deletes change feed serves.
type ChangeLog interface {
	// ReadChangeLog returns the container's entries after p.AfterSeq in
	// order (those in p.PK and p.EPK, when set): p.Limit of them (fewer at
	// the end), and then the remaining entries of the last one's
	// transaction.
	ReadChangeLog(ctx context.Context, p ReadChangeLogParams) (ChangeLogPage, error)
	// LastChange returns the position "now": every entry of the
	// container after it is committed later (0 or more when there is
	// none).
	LastChange(ctx context.Context, c Container) (int64, error)
}

// AllVersionsFeedRequest is one request of the all-versions-and-deletes
// change feed (A-IM: Full-Fidelity Feed).
type AllVersionsFeedRequest struct {
	Database, Container string
	PartitionKey        PartitionKey // nil: every partition
	// RangeID is x-ms-documentdb-partitionkeyrangeid ("" when absent): the
	// feed of that live range's EPKs (410/1002 when it is not live).
	RangeID string
	// StartEPK and EndEPK bound the effective partition keys when
	// EPKRange is set (x-ms-start-epk, x-ms-end-epk), as in
	// ChangeFeedRequest.
	EPKRange         bool
	StartEPK, EndEPK string
	// IfNoneMatch is the request's If-None-Match: "*" starts from now, an
	// earlier response's etag (of the same container) continues after it.
	// "" is the start from the beginning, which the service refuses for
	// this feed (ErrAllVersionsFromBeginning) unless PointInTime is set.
	IfNoneMatch string
	// PointInTime reports an If-Modified-Since header (a start from a point
	// in time): without IfNoneMatch the read starts from the oldest
	// retained change.
	PointInTime bool
	Page        PageRequest
}

// ErrAllVersionsFromBeginning is the service's answer to an
// all-versions-and-deletes read with neither a continuation (If-None-Match)
// nor a start time: that feed cannot start from the beginning, only from
// now, a continuation or a point in time (what the SDKs send for
// ChangeFeedStartFrom.Beginning() in AllVersionsAndDeletes mode; the JS
// SDK's tests expect this 400 and message).
var ErrAllVersionsFromBeginning = BadRequest("You must read the change feed from within the retention period.")

// AllVersionsFeedResult is one page of the feed.
type AllVersionsFeedResult struct {
	Container Container
	// Range is the partition key range the request named (zero when none).
	Range PartitionKeyRange
	// Docs are the rendered entries ({"current","metadata"}).
	Docs [][]byte
	// ETag is the continuation: the position after this page.
	ETag string
	// LSN is the largest write LSN of the page (0 when empty).
	LSN int64
}

// changePositionETag renders a position in container c's change log as the
// feed's etag: "<collection rid>:<seq>". The SDKs keep the etag as an
// opaque continuation, so binding it to the container lets a continuation
// from another container be refused.
func changePositionETag(c Container, seq int64) string {
	return `"` + c.RID + ":" + strconv.FormatInt(seq, 10) + `"`
}

// parseChangePosition reads an If-None-Match continuation of container c's
// feed: an etag changePositionETag made for c (quotes optional).
func parseChangePosition(c Container, s string) (int64, error) {
	t := strings.TrimPrefix(strings.TrimSuffix(strings.TrimSpace(s), `"`), `"`)
	rid, pos, ok := strings.Cut(t, ":")
	if !ok || rid != c.RID {
		return 0, BadRequest("Invalid continuation token %q for the change feed of this container.", s)
	}
	n, err := strconv.ParseInt(pos, 10, 64)
	if err != nil || n < 0 {
		return 0, BadRequest("Invalid continuation token %q for the change feed.", s)
	}
	return n, nil
}

// ReadAllVersionsFeed serves one page of the all-versions-and-deletes change
// feed (refusing a start from the beginning: ErrAllVersionsFromBeginning):
// every create, replace and delete after the request's position, in
// commit order, scoped to one logical partition when r.PartitionKey is set
// and to an effective partition key range when r.EPKRange is (filtered by
// the store).
// An empty page means caught up (the service answers 304).
func (s *Service) ReadAllVersionsFeed(ctx context.Context, r AllVersionsFeedRequest) (AllVersionsFeedResult, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return AllVersionsFeedResult{}, err
	}
	res := AllVersionsFeedResult{Container: c}
	log := s.store
	scope, err := c.ResolveRangeScope(r.RangeID, r.EPKRange, r.StartEPK, r.EndEPK)
	if err != nil {
		return res, err
	}
	res.Range = scope.Range
	var pk *string
	if r.PartitionKey != nil {
		k, err := checkPKHeader(c, r.PartitionKey)
		if err != nil {
			return res, err
		}
		pk = &k
	}
	var after int64
	switch strings.TrimSpace(r.IfNoneMatch) {
	case "":
		if !r.PointInTime {
			return res, ErrAllVersionsFromBeginning
		}
	case "*":
		if after, err = log.LastChange(ctx, c); err != nil {
			return res, err
		}
	default:
		if after, err = parseChangePosition(c, r.IfNoneMatch); err != nil {
			return res, err
		}
	}
	lp := ReadChangeLogParams{Container: c, PK: pk, EPK: scope.EPK, AfterSeq: after, Limit: r.Page.Limit()}
	page, err := log.ReadChangeLog(ctx, lp)
	if err != nil {
		return res, err
	}
	size, changes := 0, page.Changes
	for i, ch := range changes {
		// A page ends past MaxResponseBytes, but never inside a transaction.
		if size > MaxResponseBytes && ch.Txn != changes[i-1].Txn {
			break
		}
		size += len(ch.Body) + 300
		res.Docs = append(res.Docs, ch.AppendJSON(nil, c))
		after = ch.Seq
		res.LSN = max(res.LSN, ch.LSN)
	}
	if len(res.Docs) == len(changes) {
		// Everything read was served: the entries an EPK range skipped
		// need not be read again.
		after = max(after, page.ScannedTo)
	}
	res.ETag = changePositionETag(c, after)
	return res, nil
}

// operationTypes names Change.Op as the feed's metadata does.
var operationTypes = map[byte]string{'c': "create", 'r': "replace", 'd': "delete"}

// AppendJSON appends the entry as the service's all-versions-and-deletes
// feed shows it: {"current": document, "metadata": {...}} for creates and
// replaces, {"current": {}, "metadata": {..., "id", "partitionKey"}} for
// deletes (the service does not populate "previous"). The empty "current"
// of a delete follows the service over its documentation, which says a
// delete has none: the Python SDK's own test_change_feed_all_versions.py
// (test_query_change_feed_all_versions_and_deletes, sync and async, run by
// Microsoft against its emulator and live accounts) requires a "current"
// key on every delete and expects it empty.
func (ch Change) AppendJSON(buf []byte, c Container) []byte {
	buf = append(buf, `{"current":`...)
	if ch.Op == 'd' {
		buf = append(buf, "{}"...)
	} else {
		buf = Item{ID: ch.ID, PK: ch.PK, Seq: ch.DocSeq, Body: ch.Body, TS: ch.CRTS, ETag: ch.ETag, LSN: ch.LSN}.AppendJSON(buf, c)
	}
	buf = append(buf, `,"metadata":{"operationType":`...)
	buf = AppendJSONString(buf, operationTypes[ch.Op])
	buf = append(buf, `,"lsn":`...)
	buf = strconv.AppendInt(buf, ch.LSN, 10)
	buf = append(buf, `,"crts":`...)
	buf = strconv.AppendInt(buf, ch.CRTS, 10)
	if ch.PrevLSN != 0 {
		buf = append(buf, `,"previousImageLSN":`...)
		buf = strconv.AppendInt(buf, ch.PrevLSN, 10)
	}
	buf = append(buf, `,"timeToLiveExpired":`...)
	buf = strconv.AppendBool(buf, ch.TTLExpired)
	if ch.Op == 'd' {
		buf = append(buf, `,"id":`...)
		buf = AppendJSONString(buf, ch.ID)
		buf = append(buf, `,"partitionKey":`...)
		buf = appendPartitionKeyObject(buf, c.PartitionKey, ch.PK)
	}
	return append(buf, "}}"...)
}

// appendPartitionKeyObject appends the partition key whose canonical form
// is canonical as an object from property name (the path without its
// leading slash) to value; undefined components are left out.
func appendPartitionKeyObject(buf []byte, def PartitionKeyDefinition, canonical string) []byte {
	var values []any
	if err := json.Unmarshal([]byte(canonical), &values); err != nil {
		return append(buf, "{}"...)
	}
	obj := make(map[string]any, len(values))
	for i, v := range values {
		if _, undefined := v.(map[string]any); undefined || i >= len(def.Paths) {
			continue
		}
		obj[strings.Join(SplitPath(def.Paths[i]), "/")] = v
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return append(buf, "{}"...)
	}
	return append(buf, b...)
}

// checkChangeFeedPolicy validates a container's changeFeedPolicy: an
// object whose retentionDuration, when present and not null, is a whole
// number of minutes from 0 to 2147483647 (what the SDKs send; 0 and absent
// mean the emulator's default window).
func checkChangeFeedPolicy(obj *Object) error {
	p, err := objectMember(obj, "changeFeedPolicy")
	if err != nil || p == nil {
		return err
	}
	v, ok := p.Get("retentionDuration")
	if !ok || v == nil {
		return nil
	}
	n, _ := v.(json.Number)
	if m, err := strconv.ParseInt(string(n), 10, 32); err != nil || m < 0 {
		return BadRequest("The changeFeedPolicy retentionDuration '%s' is invalid: a whole number of minutes from 0 to 2147483647 is required.", ttlText(v))
	}
	return nil
}
