package wire

import (
	"net/http"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// allVersionsFeedAIM is the A-IM value of the all-versions-and-deletes
// change feed (the SDKs' ChangeFeedMode.AllVersionsAndDeletes); the SDKs
// send x-ms-cosmos-changefeed-wire-format-version: 2021-09-15 with it,
// whose shape ({"current","metadata"}) is the only one served.
const allVersionsFeedAIM = "Full-Fidelity Feed"

// readAllVersionsFeed serves GET .../docs with A-IM: Full-Fidelity Feed:
// one page of every create, replace and delete after If-None-Match ("*":
// from now; an earlier etag: after it; absent: a 400 unless
// If-Modified-Since is set, then from the oldest retained change), in
// commit order, for the whole container, one partition key range
// (x-ms-documentdb-partitionkeyrangeid), one logical partition or an effective partition key range
// (x-ms-start-epk, x-ms-end-epk, as the latest-version feed takes them). The etag header is the continuation; no
// changes is a 304 with an empty body.
func (h *handler) readAllVersionsFeed(w http.ResponseWriter, r *http.Request) {
	pk, err := ParsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	req := emulator.AllVersionsFeedRequest{Database: pathVar(r, "db"), Container: pathVar(r, "coll"),
		PartitionKey: pk, RangeID: strings.TrimSpace(r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid")), IfNoneMatch: r.Header.Get("If-None-Match"),
		PointInTime: strings.TrimSpace(r.Header.Get("If-Modified-Since")) != ""}
	if req.EPKRange, req.StartEPK, req.EndEPK, err = epkRangeHeaders(r); err != nil {
		h.writeError(w, r, err)
		return
	}
	if req.Page, err = pageRequest(r); err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.ReadAllVersionsFeed(r.Context(), req)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if len(res.Docs) == 0 {
		// this feed's 304 also counts its (no) items
		w.Header().Set("X-Ms-Item-Count", "0")
	}
	writeChangeFeedPage(w, res.Container, servedRange(res.Container, res.Range, pk), res.ETag, res.LSN, res.Docs)
}
