package wire

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// setRangeSession sets the partition key range id header and the session
// token of a response served from range rangeID of container c, as of lsn:
// x-ms-documentdb-partitionkeyrangeid: <id> and x-ms-session-token
// <id>:-1#<lsn>, the form the SDKs keep per range. A response not
// confined to one range (rangeID "") of a container with several ranges
// carries no range id and a session token for every live range,
// comma-separated, as the service's cross-range responses do; with one
// range it is that range's. Session tokens a client sends back are not
// checked (the emulator is one replica: every read sees every write), so
// tokens naming other, several or split ranges are accepted.
func setRangeSession(w http.ResponseWriter, c emulator.Container, rangeID string, lsn int64) {
	setRangeHeaders(w, c, rangeID, lsn, true)
}

// setRangeHeaders is setRangeSession; withLSN false leaves out the lsn
// headers (lsn, x-ms-item-lsn, x-ms-global-committed-lsn) for responses
// whose LSN is not known (queries), whose session token names LSN 1.
func setRangeHeaders(w http.ResponseWriter, c emulator.Container, rangeID string, lsn int64, withLSN bool) {
	if lsn <= 0 {
		lsn = 1
	}
	s := strconv.FormatInt(lsn, 10)
	hd := w.Header()
	rs := c.LiveRanges()
	switch {
	case rangeID != "":
		setHeaders(hd, "X-Ms-Documentdb-Partitionkeyrangeid", rangeID, "X-Ms-Session-Token", rangeID+":-1#"+s)
	case len(rs) == 1:
		setHeaders(hd, "X-Ms-Documentdb-Partitionkeyrangeid", rs[0].ID, "X-Ms-Session-Token", rs[0].ID+":-1#"+s)
	default:
		hd.Del("X-Ms-Documentdb-Partitionkeyrangeid")
		var b strings.Builder
		for i, r := range rs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(r.ID)
			b.WriteString(":-1#")
			b.WriteString(s)
		}
		hd.Set("X-Ms-Session-Token", b.String())
	}
	if !withLSN {
		return
	}
	setHeaders(hd, "Lsn", s, "X-Ms-Item-Lsn", s, "X-Ms-Global-Committed-Lsn", s)
}

// servedRange returns the id of the range a response comes from: the
// range the request named, else the one holding the logical partition pk
// (nil: none, "" is returned).
func servedRange(c emulator.Container, named emulator.PartitionKeyRange, pk emulator.PartitionKey) string {
	switch {
	case named.ID != "":
		return named.ID
	case pk != nil && (len(pk) >= len(c.PartitionKey.Paths) || c.PartitionKey.SystemKey):
		return c.RangeIDForKey(pk) // a prefix of a hierarchical key may span ranges
	}
	return ""
}

// queriesSplitRanges reports whether r comes from @azure/cosmos (its
// User-Agent, or x-ms-useragent in a browser, names "azure-cosmos-js/"),
// whose pipelined queries cannot recover from the service's 410/1002 for
// a split range: the emulator answers its queries naming one over the
// range's former interval (emulator.Container.ResolveRangeScopeAcrossSplits).
// Every other client gets the service's 410/1002.
func queriesSplitRanges(r *http.Request) bool {
	return strings.Contains(r.Header.Get("User-Agent"), jsSDKAgent) || strings.Contains(r.Header.Get("X-Ms-Useragent"), jsSDKAgent)
}

// jsSDKAgent is @azure/cosmos's token in its User-Agent
// (dist/esm/common/platform.js getUserAgent: Constants.SDKName "/" SDKVersion).
const jsSDKAgent = "azure-cosmos-js/"
