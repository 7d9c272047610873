package emulator

import (
	"context"
	"strconv"
	"strings"
)

// ChangeFeedStore is the part of Store that serves the latest-version
// change feed.
type ChangeFeedStore interface {
	// ReadChanges reads the live items of p.Container whose lsn is above
	// p.AfterLSN (and, with p.SinceTS, whose _ts is at least that), in
	// LSN order, keeping at most p.Limit of them and no more than
	// MaxResponseBytes of bodies (at least one); with p.EPK only the items
	// whose effective partition key lies in it.
	ReadChanges(ctx context.Context, p ChangesParams) (ChangesPage, error)
	// LatestLSN returns the highest lsn stored in the container's table
	// (expired rows included) below which no change can still appear, 0
	// when there is none.
	LatestLSN(ctx context.Context, c Container) (int64, error)
	// IssuedLSN returns the highest LSN the database has handed out.
	IssuedLSN(ctx context.Context) (int64, error)
}

// ChangesParams are the inputs of ChangeFeedStore.ReadChanges.
type ChangesParams struct {
	Container Container
	Expiry    Expiry
	AfterLSN  int64
	SinceTS   int64 // 0: no time bound
	PK        *string
	// PKPrefix says PK is a hierarchical key's prefix
	// (PartitionKey.CanonicalPrefix): the partitions under it.
	PKPrefix bool
	// EPK, when set, keeps only the items whose effective partition key
	// lies in it (a partition key range, or a sub-range of one).
	EPK   *EPKRange
	Limit int
}

// ChangesPage is what ReadChanges read.
type ChangesPage struct {
	Items []Item
	// LastLSN is the lsn up to which the scan is complete: the last kept
	// item's when the page filled up, else the last row read (0 when none).
	LastLSN int64
	// Exhausted says the scan reached the end of the rows.
	Exhausted bool
}

// ChangeFeedRequest is a latest-version change feed read (A-IM:
// Incremental Feed) of a container.
type ChangeFeedRequest struct {
	Database, Container string
	PartitionKey        PartitionKey // nil: not scoped to a logical partition
	// RangeID is x-ms-documentdb-partitionkeyrangeid ("" when absent).
	RangeID string
	// StartEPK and EndEPK bound the effective partition keys when
	// EPKRange is set (x-ms-start-epk, x-ms-end-epk).
	EPKRange         bool
	StartEPK, EndEPK string
	// IfNoneMatch: "" from the beginning, "*" from now, else a previous
	// response's etag.
	IfNoneMatch string
	// SinceTS is If-Modified-Since in unix seconds (0 when absent); it is
	// ignored when IfNoneMatch is set.
	SinceTS  int64
	MaxItems int // x-ms-max-item-count
}

// ChangeFeedResult is one change feed page.
type ChangeFeedResult struct {
	Container Container
	// Range is the partition key range the request named (zero when none).
	Range PartitionKeyRange
	Items []Item
	// ETag is the continuation: the response's etag header. No Items
	// means nothing new (304).
	ETag string
	// LatestLSN is the container's latest LSN as the read saw it (at
	// least the page's last): the LSN of the response's session token,
	// as the service's names the partition's current LSN, not the page's.
	// The Java change feed processor's estimator takes it for the latest
	// change and the first unread document's _lsn for the oldest.
	LatestLSN int64
}

// lsnETag renders an LSN as a change feed etag.
func lsnETag(lsn int64) string { return `"` + strconv.FormatInt(lsn, 10) + `"` }

// parseLSNETag parses a change feed etag ("<lsn>", quotes optional).
func parseLSNETag(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0 && len(s) <= 19
}

// pkScope returns the logical partitions a partition key header hdr
// addresses in container c: nil for no header, the canonical prefix with
// prefix set for a prefix of a hierarchical key (the partitions under it),
// else the checked canonical key.
func pkScope(c Container, hdr PartitionKey) (pk *string, prefix bool, err error) {
	switch {
	case len(hdr) > 0 && len(hdr) < len(c.PartitionKey.Paths):
		k := hdr.CanonicalPrefix()
		return &k, true, nil
	case hdr != nil:
		k, err := checkPKHeader(c, hdr)
		if err != nil {
			return nil, false, err
		}
		return &k, false, nil
	}
	return nil, false, nil
}

// ReadChangeFeed returns one page of the latest-version change feed: live
// items changed after the start point, each once in its latest version, in
// LSN order. Deleted and expired items never appear.
func (s *Service) ReadChangeFeed(ctx context.Context, r ChangeFeedRequest) (ChangeFeedResult, error) {
	c, err := s.store.GetContainer(ctx, r.Database, r.Container)
	if err != nil {
		return ChangeFeedResult{}, err
	}
	res := ChangeFeedResult{Container: c}
	cf := s.store
	scope, err := c.ResolveRangeScope(r.RangeID, r.EPKRange, r.StartEPK, r.EndEPK)
	if err != nil {
		return res, err
	}
	res.Range = scope.Range
	p := ChangesParams{Container: c, Expiry: s.expiry(c), EPK: scope.EPK, Limit: PageRequest{MaxItems: r.MaxItems}.Limit()}
	if p.PK, p.PKPrefix, err = pkScope(c, r.PartitionKey); err != nil {
		return res, err
	}
	// The container's latest lsn, read before the scan: a scan that finds
	// nothing may continue from there.
	latest, err := cf.LatestLSN(ctx, c)
	if err != nil {
		return res, err
	}
	switch {
	case r.IfNoneMatch == "*":
		p.AfterLSN = latest
	case r.IfNoneMatch != "":
		lsn, ok := parseLSNETag(r.IfNoneMatch)
		if !ok {
			return res, BadRequest("Invalid Continuation Token: the change feed continuation %q is not an etag this emulator issued.", r.IfNoneMatch)
		}
		issued, err := cf.IssuedLSN(ctx)
		if err != nil {
			return res, err
		}
		if lsn > issued {
			return res, BadRequest("Invalid Continuation Token: the change feed continuation %q is not an etag this emulator issued.", r.IfNoneMatch)
		}
		p.AfterLSN = lsn
	default:
		p.SinceTS = r.SinceTS
	}
	page, err := cf.ReadChanges(ctx, p)
	if err != nil {
		return res, err
	}
	next := max(p.AfterLSN, page.LastLSN)
	if page.Exhausted {
		next = max(next, latest)
	}
	res.Items, res.ETag = page.Items, lsnETag(next)
	res.LatestLSN = max(latest, page.LastLSN)
	return res, nil
}

// AppendChangeFeedJSON appends the rendered document with its _lsn, as the
// change feed returns it.
func (it Item) AppendChangeFeedJSON(buf []byte, c Container) []byte {
	return it.appendChangeFeedDoc(buf, c)
}

// AppendChangeFeedEntryJSON appends the item as the latest-version change
// feed shows it in wire format 2021-09-15 (x-ms-cosmos-changefeed-wire-format-version,
// the form of the all-versions feed): {"current": document with _lsn,
// "metadata": {"lsn", "crts"}}. The Java SDK's change feed processor for
// latest versions (handleLatestVersionChanges) asks for this form and reads
// each entry's "current".
func (it Item) AppendChangeFeedEntryJSON(buf []byte, c Container) []byte {
	buf = append(buf, `{"current":`...)
	buf = it.appendChangeFeedDoc(buf, c)
	buf = append(buf, `,"metadata":{"lsn":`...)
	buf = strconv.AppendInt(buf, it.LSN, 10)
	buf = append(buf, `,"crts":`...)
	buf = strconv.AppendInt(buf, it.TS, 10)
	return append(buf, "}}"...)
}

// appendChangeFeedDoc appends the rendered document with its _lsn.
func (it Item) appendChangeFeedDoc(buf []byte, c Container) []byte {
	buf = it.AppendJSON(buf, c)
	buf = append(buf[:len(buf)-1], `,"_lsn":`...)
	buf = strconv.AppendInt(buf, it.LSN, 10)
	return append(buf, '}')
}
