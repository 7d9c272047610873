package wire

import (
	"net/http"
	"strings"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// changeFeed dispatches GET .../docs with an A-IM header by change feed
// mode (case-insensitive): "Incremental Feed" is the latest-version feed,
// "Full-Fidelity Feed" the all-versions-and-deletes feed; every other
// value is 400.
func (h *handler) changeFeed(w http.ResponseWriter, r *http.Request) {
	aim := strings.TrimSpace(r.Header.Get("A-Im"))
	switch {
	case strings.EqualFold(aim, "Incremental Feed"):
		h.incrementalFeed(w, r)
	case strings.EqualFold(aim, allVersionsFeedAIM):
		h.readAllVersionsFeed(w, r) // wire/changefeed_full.go
	default:
		h.writeError(w, r, emulator.BadRequest("The A-IM header value '%s' is invalid: use 'Incremental Feed' or '%s'.", aim, allVersionsFeedAIM))
	}
}

// maxEPKHeader bounds x-ms-start-epk and x-ms-end-epk (a hierarchical key
// of three components has 96 hex digits).
const maxEPKHeader = 256

// epkHeader validates an EPK range bound: hex digits only.
func epkHeader(name, v string) (string, error) {
	if len(v) > maxEPKHeader {
		return "", emulator.BadRequest("The %s header is longer than %d characters.", name, maxEPKHeader)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return "", emulator.BadRequest("The %s header value '%s' is not an effective partition key (hexadecimal digits).", name, v)
		}
	}
	return v, nil
}

// parseHTTPDate parses If-Modified-Since: RFC 1123 with GMT (RFC 9110) or
// with another zone name such as the Go SDK's "UTC".
func parseHTTPDate(v string) (time.Time, error) {
	if t, err := http.ParseTime(v); err == nil {
		return t, nil
	}
	for _, layout := range []string{time.RFC1123, time.RFC1123Z, time.RFC3339} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, emulator.BadRequest("The If-Modified-Since header value '%s' is not a valid date (RFC 1123).", v)
}

// changeFeedRequest decodes the headers of a latest-version change feed
// read.
func changeFeedRequest(r *http.Request) (emulator.ChangeFeedRequest, error) {
	req := emulator.ChangeFeedRequest{
		Database: pathVar(r, "db"), Container: pathVar(r, "coll"),
		RangeID:     strings.TrimSpace(r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid")),
		IfNoneMatch: strings.TrimSpace(r.Header.Get("If-None-Match")),
	}
	var err error
	if req.PartitionKey, err = ParsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey")); err != nil {
		return req, err
	}
	if req.MaxItems, err = emulator.ParsePageSize(r.Header.Get("X-Ms-Max-Item-Count")); err != nil {
		return req, err
	}
	if v := r.Header.Get("If-Modified-Since"); v != "" && req.IfNoneMatch == "" {
		t, err := parseHTTPDate(v)
		if err != nil {
			return req, err
		}
		if req.SinceTS = t.Unix(); req.SinceTS < 1 {
			req.SinceTS = 1
		}
	}
	req.EPKRange, req.StartEPK, req.EndEPK, err = epkRangeHeaders(r)
	return req, err
}

// epkRangeHeaders decodes the effective partition key range of a query,
// read feed or change feed read (x-ms-read-key-type, x-ms-start-epk,
// x-ms-end-epk): ok is false when the request has none.
func epkRangeHeaders(r *http.Request) (ok bool, start, end string, err error) {
	start, end = r.Header.Get("X-Ms-Start-Epk"), r.Header.Get("X-Ms-End-Epk")
	switch kt := r.Header.Get("X-Ms-Read-Key-Type"); {
	case kt == "" && start == "" && end == "":
		return false, "", "", nil
	case strings.EqualFold(kt, "EffectivePartitionKeyRange") && start == "" && end == "":
		// the key type without bounds names no sub-range: the range id
		// (or the container) is read whole. azure-cosmos (Python) 4.17.1
		// sends it so for a feed range that is a whole partition key
		// range, adding x-ms-start-epk and x-ms-end-epk only for a strict
		// sub-range (_routing/feed_range_continuation.py)
		return false, "", "", nil
	case kt == "" || strings.EqualFold(kt, "EffectivePartitionKeyRange"):
		if start, err = epkHeader("x-ms-start-epk", start); err != nil {
			return false, "", "", err
		}
		if end, err = epkHeader("x-ms-end-epk", end); err != nil {
			return false, "", "", err
		}
		return true, start, end, nil
	default:
		return false, "", "", emulator.BadRequest("The x-ms-read-key-type header value '%s' is not supported: use 'EffectivePartitionKeyRange'.", kt)
	}
}

// changeFeedWireFormatEntries is the x-ms-cosmos-changefeed-wire-format-version
// under which the latest-version feed answers entries ({"current",
// "metadata"}) instead of bare documents (the SDKs' SeparateMetadataWithCrts).
const changeFeedWireFormatEntries = "2021-09-15"

// incrementalFeed serves the latest-version change feed: 200 with the
// changed documents (each with _lsn; under wire format 2021-09-15 each as
// {"current","metadata"}) and the continuation in the etag header, or 304
// with the etag when there is nothing new.
func (h *handler) incrementalFeed(w http.ResponseWriter, r *http.Request) {
	req, err := changeFeedRequest(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.ReadChangeFeed(r.Context(), req)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	lsn := res.LatestLSN
	entries := strings.TrimSpace(r.Header.Get("X-Ms-Cosmos-Changefeed-Wire-Format-Version")) == changeFeedWireFormatEntries
	docs := make([][]byte, len(res.Items))
	for i, it := range res.Items {
		if entries {
			docs[i] = it.AppendChangeFeedEntryJSON(nil, res.Container)
		} else {
			docs[i] = it.AppendChangeFeedJSON(nil, res.Container)
		}
		lsn = max(lsn, it.LSN)
	}
	writeChangeFeedPage(w, res.Container, servedRange(res.Container, res.Range, req.PartitionKey), res.ETag, lsn, docs)
}

// writeChangeFeedPage answers a change feed read of either mode of
// container c: the etag (the continuation), the range it was served from
// (rangeID, "" for the whole container) and the session at lsn (the
// container's latest LSN in the incremental feed), then the page, or 304 with an empty body when docs is
// empty.
func writeChangeFeedPage(w http.ResponseWriter, c emulator.Container, rangeID, etag string, lsn int64, docs [][]byte) {
	ownerRID := c.RID
	hd := w.Header()
	hd.Set("Etag", etag)
	setRangeSession(w, c, rangeID, lsn)
	if len(docs) == 0 {
		hd.Set("X-Ms-Request-Charge", charge(false, 0))
		writeBody(w, http.StatusNotModified, nil)
		return
	}
	writeFeed(w, ownerRID, "Documents", docs, "")
}
