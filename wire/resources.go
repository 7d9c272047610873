package wire

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// ---- account

// AccountID is the id (and _rid) of the database account document. It is
// the id Microsoft's Linux emulator answers: the JS SDK ignores the
// advertised locations of an account whose id is "localhost" (the classic
// emulator's) and then re-reads GET / before every request.
const AccountID = "cosmosdev"

// getAccount answers GET / with the database account, advertising the
// endpoint the client used (scheme://Host/) as the only region, so the SDKs
// keep talking to this server (sdk-notes §2.3), and the configured default
// consistency level.
func (h *handler) getAccount(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	endpoint := scheme + "://" + r.Host + "/"
	region := `{"name":"South Central US","databaseAccountEndpoint":` + string(emulator.AppendJSONString(nil, endpoint)) + `}`
	body := `{"_self":"","id":"` + AccountID + `","_rid":"` + AccountID + `.documents.azure.com","media":"//media/","addresses":"//addresses/","_dbs":"//dbs/",` +
		`"writableLocations":[` + region + `],"readableLocations":[` + region + `],` +
		`"enableMultipleWriteLocations":false,"continuousBackupEnabled":false,"enableNRegionSynchronousCommit":false,` +
		`"userReplicationPolicy":{"asyncReplication":false,"minReplicaSetSize":1,"maxReplicasetSize":4},` +
		`"userConsistencyPolicy":{"defaultConsistencyLevel":"` + h.consistency + `"},` +
		`"systemReplicationPolicy":{"minReplicaSetSize":1,"maxReplicasetSize":4},` +
		`"readPolicy":{"primaryReadCoefficient":1,"secondaryReadCoefficient":1},` +
		`"queryEngineConfiguration":"{\"allowNewKeywords\":true,\"maxJoinsPerSqlQuery\":10,\"maxQueryRequestTimeoutFraction\":0.9,\"maxSqlQueryInputLength\":524288,\"maxUdfRefPerSqlQuery\":10,\"queryMaxInMemorySortDocumentCount\":-1000,\"spatialMaxGeometryPointCount\":256,\"sqlAllowNonFiniteNumbers\":false,\"sqlDisableOptimizationFlags\":0,\"enableSpatialIndexing\":true,\"maxInExpressionItemsCount\":2147483647,\"maxLogicalAndPerSqlQuery\":2147483647,\"maxLogicalOrPerSqlQuery\":2147483647,\"maxSpatialQueryCells\":2147483647,\"sqlAllowAggregateFunctions\":true,\"sqlAllowGroupByClause\":true,\"sqlAllowLike\":true,\"sqlAllowSubQuery\":true,\"sqlAllowScalarSubQuery\":true,\"sqlAllowTop\":true}"}`
	hd := w.Header()
	hd.Set("X-Ms-Max-Media-Storage-Usage-Mb", "10240")
	hd.Set("X-Ms-Media-Storage-Usage-Mb", "0")
	hd.Set("X-Ms-Databaseaccount-Consumed-Mb", "0")
	hd.Set("X-Ms-Databaseaccount-Reserved-Mb", "0")
	hd.Set("X-Ms-Databaseaccount-Provisioned-Mb", "0")
	writeBody(w, http.StatusOK, []byte(body))
}

// ---- databases

// readFeedQuery is what a read feed of databases, containers or offers
// runs: every resource, paged exactly like a query of them.
var readFeedQuery = emulator.Query{Text: "SELECT * FROM root"}

// resourceQuery returns the query of a resource feed request (the body of
// a query POST; readFeedQuery for a GET read feed) and its paging.
func resourceQuery(r *http.Request) (emulator.Query, emulator.PageRequest, error) {
	q := readFeedQuery
	if r.Method != http.MethodGet {
		var err error
		if q, err = decodeQuery(r); err != nil {
			return q, emulator.PageRequest{}, err
		}
	}
	p, err := pageRequest(r)
	return q, p, err
}

// queryDatabases serves GET /dbs and database queries.
func (h *handler) queryDatabases(w http.ResponseWriter, r *http.Request) {
	q, p, err := resourceQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.QueryDatabases(r.Context(), q, p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeFeed(w, "", "Databases", res.Docs, res.Continuation)
}

func (h *handler) postDatabases(w http.ResponseWriter, r *http.Request) {
	if isQuery(r) {
		h.queryDatabases(w, r)
		return
	}
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	tp, err := throughput(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	d, err := h.svc.CreateDatabase(r.Context(), body, tp)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("X-Ms-Request-Charge", "5")
	writeResource(w, http.StatusCreated, d.JSON(), d.ETag)
}

func (h *handler) getDatabase(w http.ResponseWriter, r *http.Request) {
	d, err := h.svc.GetDatabase(r.Context(), pathVar(r, "db"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && inm == d.ETag {
		w.Header().Set("Etag", d.ETag)
		writeBody(w, http.StatusNotModified, nil)
		return
	}
	writeResource(w, http.StatusOK, d.JSON(), d.ETag)
}

func (h *handler) deleteDatabase(w http.ResponseWriter, r *http.Request) {
	if err := h.svc.DeleteDatabase(r.Context(), pathVar(r, "db")); err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("X-Ms-Request-Charge", "5")
	writeBody(w, http.StatusNoContent, nil)
}

// ---- containers

// queryContainers serves GET /dbs/{db}/colls and container queries.
func (h *handler) queryContainers(w http.ResponseWriter, r *http.Request) {
	q, p, err := resourceQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	d, res, err := h.svc.QueryContainers(r.Context(), pathVar(r, "db"), q, p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeFeed(w, d.RID, "DocumentCollections", res.Docs, res.Continuation)
}

func (h *handler) postContainers(w http.ResponseWriter, r *http.Request) {
	if isQuery(r) {
		h.queryContainers(w, r)
		return
	}
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	tp, err := throughput(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body = withLegacyPartitionKey(r, body, emulator.SystemPartitionKey)
	c, err := h.svc.CreateContainer(r.Context(), pathVar(r, "db"), body, tp)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.containerHeaders(w, c)
	writeResource(w, http.StatusCreated, c.JSON(), c.ETag)
}

// legacyAPIVersion reports an x-ms-version before 2018-12-31: the API
// versions under which a container may be created without a partition
// key (the hosted service refuses that at 2018-12-31; reference §1.5.3).
func legacyAPIVersion(r *http.Request) bool {
	v := strings.TrimSpace(r.Header.Get("X-Ms-Version"))
	return v != "" && v < "2018-12-31"
}

// withLegacyPartitionKey returns a container body of a legacy API version
// request (legacyAPIVersion) that has no partitionKey with def filled in:
// the system key at create (the service's answer to such requests), the
// container's own definition on replace. Other bodies, and bodies that do
// not decode (the service reports why), are returned unchanged.
func withLegacyPartitionKey(r *http.Request, body []byte, def emulator.PartitionKeyDefinition) []byte {
	if !legacyAPIVersion(r) {
		return body
	}
	v, err := emulator.DecodeJSONContext(r.Context(), body)
	if err != nil {
		return body
	}
	obj, ok := v.(*emulator.Object)
	if !ok {
		return body
	}
	if pk, ok := obj.Get("partitionKey"); ok && pk != nil {
		return body
	}
	b, err := json.Marshal(def)
	if err != nil {
		return body
	}
	pk, err := emulator.DecodeJSON(b)
	if err != nil {
		return body
	}
	obj.Set("partitionKey", pk)
	return emulator.EncodeJSON(obj)
}

func (h *handler) containerHeaders(w http.ResponseWriter, c emulator.Container) {
	hd := w.Header()
	hd.Set("X-Ms-Alt-Content-Path", "dbs/"+c.DatabaseID)
	hd.Set("X-Ms-Content-Path", c.DatabaseRID)
	hd.Set("X-Ms-Documentdb-Partitionkeyrangeid", "0")
	hd.Set("X-Ms-Resource-Quota", "documentSize=10240;documentsSize=10485760;documentsCount=-1;collectionSize=10485760;")
}

// resourceUsage renders a container's usage as the service's
// x-ms-resource-usage, in the units of its x-ms-resource-quota:
// documentSize in MB, documentsSize and collectionSize in KB (rounded up,
// so that any storage shows).
func resourceUsage(u emulator.ContainerUsage) string {
	kb := func(b int64) int64 { return (b + 1023) / 1024 }
	return "documentSize=" + strconv.FormatInt(kb(u.DocumentsBytes)/1024, 10) +
		";documentsSize=" + strconv.FormatInt(kb(u.DocumentsBytes), 10) +
		";documentsCount=" + strconv.FormatInt(u.Documents, 10) +
		";collectionSize=" + strconv.FormatInt(kb(u.CollectionBytes), 10) + ";"
}

// indexTransformationProgress is the percentage a container read with
// quota info reports in x-ms-documentdb-collection-index-transformation-progress
// (the JS SDK reads it; the service answers 100 once no reindex is
// pending). Here none ever is when a read can see the container: a replace
// that changes the indexing policy builds the new composite indexes before
// it answers, and the path indexes a query needs are made by that query.
const indexTransformationProgress = "100"

func (h *handler) getContainer(w http.ResponseWriter, r *http.Request) {
	c, err := h.svc.GetContainer(r.Context(), pathVar(r, "db"), pathVar(r, "coll"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.containerHeaders(w, c)
	if isTrue(r.Header.Get("X-Ms-Documentdb-Populatequotainfo")) {
		u, err := h.svc.ContainerUsage(r.Context(), c)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		w.Header().Set("X-Ms-Resource-Usage", resourceUsage(u))
		w.Header().Set("X-Ms-Documentdb-Collection-Index-Transformation-Progress", indexTransformationProgress)
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && inm == c.ETag {
		w.Header().Set("Etag", c.ETag)
		writeBody(w, http.StatusNotModified, nil)
		return
	}
	writeResource(w, http.StatusOK, c.JSON(), c.ETag)
}

func (h *handler) replaceContainer(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if legacyAPIVersion(r) {
		cur, err := h.svc.GetContainer(r.Context(), pathVar(r, "db"), pathVar(r, "coll"))
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		body = withLegacyPartitionKey(r, body, cur.PartitionKey)
	}
	c, err := h.svc.ReplaceContainer(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), body, r.Header.Get("If-Match"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.containerHeaders(w, c)
	writeResource(w, http.StatusOK, c.JSON(), c.ETag)
}

func (h *handler) deleteContainer(w http.ResponseWriter, r *http.Request) {
	if err := h.svc.DeleteContainer(r.Context(), pathVar(r, "db"), pathVar(r, "coll")); err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("X-Ms-Request-Charge", "5")
	writeBody(w, http.StatusNoContent, nil)
}

// partitionKeyRanges serves GET .../pkranges: the container's live
// partition key ranges in EPK order (never split ones: the JS SDK builds
// its routing map from a plain GET and refuses overlapping ranges). The
// etag is the ranges version, which changes with every split, so the
// incremental form the Go and .NET SDKs drain (A-IM: Incremental Feed,
// If-None-Match: <previous etag>) gets every live range while its etag is
// older, then 304 at the current one. The list is not paged: a container
// has at most emulator.MaxPartitionRanges ranges.
func (h *handler) partitionKeyRanges(w http.ResponseWriter, r *http.Request) {
	c, err := h.svc.GetContainer(r.Context(), pathVar(r, "db"), pathVar(r, "coll"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	etag := rangesETag(c)
	w.Header().Set("Etag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && (inm == etag || inm == "*") {
		writeBody(w, http.StatusNotModified, nil)
		return
	}
	rs := c.LiveRanges()
	docs := make([][]byte, len(rs))
	for i, pr := range rs {
		docs[i] = c.PartitionKeyRangeJSON(pr)
	}
	writeFeed(w, c.RID, "PartitionKeyRanges", docs, "")
}

// rangesETag is the etag of a container's ranges: its ranges version,
// bound to the container.
func rangesETag(c emulator.Container) string {
	return `"` + c.RID + ":" + strconv.FormatInt(max(c.RangesVersion, 1), 10) + `"`
}

// ---- offers

// queryOffers serves GET /offers and offer queries.
func (h *handler) queryOffers(w http.ResponseWriter, r *http.Request) {
	q, p, err := resourceQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	res, err := h.svc.QueryOffers(r.Context(), q, p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeFeed(w, "", "Offers", res.Docs, res.Continuation)
}

func (h *handler) postOffers(w http.ResponseWriter, r *http.Request) {
	if !isQuery(r) {
		h.writeError(w, r, emulator.Errorf(emulator.KindMethodNotAllowed, "Offers cannot be created directly; provision throughput when creating a database or container."))
		return
	}
	h.queryOffers(w, r)
}

func (h *handler) getOffer(w http.ResponseWriter, r *http.Request) {
	o, err := h.svc.GetOffer(r.Context(), pathVar(r, "rid"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeResource(w, http.StatusOK, o.JSON(), o.ETag)
}

func (h *handler) replaceOffer(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	o, err := h.svc.ReplaceOffer(r.Context(), pathVar(r, "rid"), body)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("X-Ms-Offer-Replace-Pending", "false")
	writeResource(w, http.StatusOK, o.JSON(), o.ETag)
}
