package wire

import (
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Address discovery for direct mode: GET /addresses (the Java SDK's
// GatewayAddressCache) and //addresses (.NET's, Paths.AddressPathSegment
// appended to the endpoint with a slash). The query names what to resolve:
//
//	$resolveFor=dbs/{dbRid}/colls/{collRid}/docs  a container's partitions,
//	    $partitionKeyRangeIds=0,1,...            those ranges (none: all live ranges)
//	$resolveFor=dbs                              the master partition
//	$filter=protocol eq rntbd                    the protocol (rntbd: the only one served)
//
// and the answer is the service's feed {"Addresss":[...]} (three s's,
// InternalConstants.ResourceKeys.ADDRESSES) of one primary replica per
// range, whose misspelled "physcialUri" (Constants.Properties) is
// rntbd://{host}:{port}/apps/.../replicas/1p/: the host the request was
// sent to, the direct-mode listener's port. A requested range that is not
// live has no entry: the SDK then refreshes its partition key ranges
// (PartitionKeyRangeGoneException in getAddressesForRangeId), as after a
// split.

// MasterPartitionKeyRangeID is the partition key range id of the master
// partition's addresses (PartitionKeyRange.MASTER_PARTITION_KEY_RANGE_ID).
const MasterPartitionKeyRangeID = "M"

// resolveFor returns the segments of an address request's $resolveFor.
func resolveFor(r *http.Request) []string {
	return splitPath(r.URL.Query().Get("$resolveFor"))
}

// isAddressPath reports an address discovery path.
func isAddressPath(escapedPath string) bool {
	return escapedPath == "/addresses" || escapedPath == "//addresses"
}

// addressSignedResource returns the resource type and the links an address
// request may be signed for: the master partition as the database feed
// (type dbs, empty link: getMasterAddressesViaGatewayAsyncInternal), a
// container's documents as type docs over the container's RID, as given
// or lower-cased (the Java SDK lower-cases RID links), or, for a client
// without a RID-based token, over the container's name-based link
// (getServerAddressesViaGatewayInternalAsync), looked up when $resolveFor
// names it by RIDs.
func (h *handler) addressSignedResource(r *http.Request) (resType string, links []string) {
	segs := resolveFor(r)
	switch {
	case len(segs) == 1 && segs[0] == "dbs":
		return "dbs", []string{""}
	case len(segs) >= 4 && segs[0] == "dbs" && segs[2] == "colls":
		links = []string{segs[3], strings.ToLower(segs[3]), strings.Join(segs[:4], "/")}
		if c, err := h.svc.GetContainer(r.Context(), segs[1], segs[3]); err == nil {
			links = append(links, "dbs/"+c.DatabaseID+"/colls/"+c.ID)
		}
		return "docs", links
	}
	return "addresses", []string{""}
}

// addresses serves GET /addresses and //addresses.
func (h *handler) addresses(w http.ResponseWriter, r *http.Request) {
	if h.rntbdPort == 0 {
		h.writeError(w, r, emulator.BadRequest("Direct mode is off: the emulator was started without its direct-mode (RNTBD) listener. Start it with --rntbd-port, or connect the client in gateway mode."))
		return
	}
	q := r.URL.Query()
	if f := strings.ToLower(strings.Join(strings.Fields(q.Get("$filter")), " ")); f != "" && f != "protocol eq rntbd" {
		// an https direct-mode client (azure.cosmos.directModeProtocol=Https):
		// this emulator serves rntbd only
		writeAddresses(w, "", nil)
		return
	}
	segs := resolveFor(r)
	host := r.Host
	if hn, _, err := net.SplitHostPort(r.Host); err == nil {
		host = hn
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	base := "rntbd://" + host + ":" + strconv.Itoa(h.rntbdPort) + "/apps/cosmos-emulator/services/"
	switch {
	case len(segs) == 1 && segs[0] == "dbs":
		writeAddresses(w, "", []address{{rangeID: MasterPartitionKeyRangeID, uri: base + "master/partitions/master/replicas/1p/", index: "0@0"}})
		return
	case len(segs) == 5 && segs[0] == "dbs" && segs[2] == "colls" && segs[4] == "docs":
	default:
		h.writeError(w, r, emulator.BadRequest("The $resolveFor query parameter must be dbs or dbs/{database}/colls/{container}/docs, not '%s'.", q.Get("$resolveFor")))
		return
	}
	c, err := h.svc.GetContainer(r.Context(), segs[1], segs[3])
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	live := c.LiveRanges()
	var want []string
	if ids := q.Get("$partitionKeyRangeIds"); ids != "" {
		want = strings.Split(ids, ",")
	} else {
		for _, rg := range live {
			want = append(want, rg.ID)
		}
	}
	var out []address
	for _, id := range want {
		id = strings.TrimSpace(id)
		for i, rg := range live {
			if rg.ID == id {
				out = append(out, address{rangeID: id, index: strconv.Itoa(i) + "@0",
					uri: base + c.RID + "/partitions/" + id + "/replicas/1p/"})
				break
			}
		}
	}
	writeAddresses(w, c.RID, out)
}

// address is one replica address of a partition.
type address struct{ rangeID, uri, index string }

// writeAddresses sends the address feed.
func writeAddresses(w http.ResponseWriter, ownerRID string, as []address) {
	buf := []byte(`{"_rid":`)
	buf = emulator.AppendJSONString(buf, ownerRID)
	buf = append(buf, `,"Addresss":[`...)
	for i, a := range as {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"isPrimary":true,"protocol":"rntbd","physcialUri":`...)
		buf = emulator.AppendJSONString(buf, a.uri)
		buf = append(buf, `,"partitionKeyRangeId":`...)
		buf = emulator.AppendJSONString(buf, a.rangeID)
		buf = append(buf, `,"partitionIndex":`...)
		buf = emulator.AppendJSONString(buf, a.index)
		buf = append(buf, '}')
	}
	buf = append(buf, `],"_count":`...)
	buf = strconv.AppendInt(buf, int64(len(as)), 10)
	buf = append(buf, '}')
	w.Header().Set("X-Ms-Item-Count", strconv.Itoa(len(as)))
	writeBody(w, http.StatusOK, buf)
}

// addressAuthorizationRequest returns a copy of the address request r
// addressed to what it resolves, for the resource token check: a read of
// the container's document feed, or of the account for the master
// partition.
func addressAuthorizationRequest(r *http.Request) *http.Request {
	segs := resolveFor(r)
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath, r2.URL.RawQuery = "/", "", ""
	if len(segs) == 5 && segs[0] == "dbs" && segs[2] == "colls" && segs[4] == "docs" {
		esc := make([]string, len(segs))
		for i, s := range segs {
			esc[i] = url.PathEscape(s)
		}
		r2.URL.RawPath = "/" + strings.Join(esc, "/")
		r2.URL.Path = "/" + strings.Join(segs, "/")
	}
	return r2
}
