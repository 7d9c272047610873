package server_test

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
	"github.com/cosmos-emulator/cosmos-emulator/wire/rntbd"
)

var testKey, _ = base64.StdEncoding.DecodeString(wire.WellKnownKey)

// gatewayDo sends a master-key signed request to the gateway, signed over
// resType and link, and returns status and body.
func gatewayDo(t *testing.T, e *emulatortest.Emulator, method, pathAndQuery, resType, link string, body []byte, headers ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(e.Endpoint, "/")+pathAndQuery, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	req.Header.Set("authorization", wire.MasterAuthorization(testKey, method, resType, link, date))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := emulatortest.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// directFixture is an emulator in direct mode with database "d" and
// container "c" (partition key /pk, at least two ranges).
type directFixture struct {
	e              *emulatortest.Emulator
	dbRID, collRID string
}

func newDirectFixture(t *testing.T) directFixture {
	e := emulatortest.Start(t, emulatortest.WithDirectMode(), emulatortest.WithMinPartitionRanges(2))
	st, b := gatewayDo(t, e, "POST", "/dbs", "dbs", "", []byte(`{"id":"d"}`))
	if st != http.StatusCreated {
		t.Fatalf("create database: %d %s", st, b)
	}
	var db struct {
		RID string `json:"_rid"`
	}
	_ = json.Unmarshal(b, &db)
	st, b = gatewayDo(t, e, "POST", "/dbs/d/colls", "colls", "dbs/d", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
	if st != http.StatusCreated {
		t.Fatalf("create container: %d %s", st, b)
	}
	var coll struct {
		RID string `json:"_rid"`
	}
	_ = json.Unmarshal(b, &coll)
	return directFixture{e: e, dbRID: db.RID, collRID: coll.RID}
}

type addressFeed struct {
	Addresses []struct {
		IsPrimary   bool   `json:"isPrimary"`
		Protocol    string `json:"protocol"`
		PhysicalURI string `json:"physcialUri"`
		RangeID     string `json:"partitionKeyRangeId"`
		Index       string `json:"partitionIndex"`
	} `json:"Addresss"`
	Count int `json:"_count"`
}

// TestAddressDiscovery: GET /addresses (Java) and //addresses (.NET)
// answer the service's feed {"Addresss":[...]} with one primary rntbd
// replica per requested live range, at the direct-mode listener's port,
// for a container's documents ($resolveFor=dbs/{dbRid}/colls/{collRid}/docs,
// signed as docs over the container RID, as given or lower-cased, or over
// the name-based link) and for the master partition ($resolveFor=dbs,
// signed as dbs over the empty link); a range that is not live has no
// entry; a wrong signature is 401.
func TestAddressDiscovery(t *testing.T) {
	f := newDirectFixture(t)
	_, port, _ := net.SplitHostPort(f.e.RNTBDAddr())
	resolve := url.QueryEscape("dbs/" + f.dbRID + "/colls/" + f.collRID + "/docs")
	filter := "&$filter=protocol%20eq%20rntbd"
	for _, tt := range []struct {
		name, path, query, resType, link string
		status                           int
		ranges                           []string
	}{
		{"java, one range, RID lower-cased", "/addresses", "$resolveFor=" + resolve + filter + "&$partitionKeyRangeIds=0", "docs", strings.ToLower(f.collRID), 200, []string{"0"}},
		{"dotnet path, two ranges, RID as is", "//addresses", "$resolveFor=" + resolve + filter + "&$partitionKeyRangeIds=0,1", "docs", f.collRID, 200, []string{"0", "1"}},
		{"name-based signature", "/addresses", "$resolveFor=" + resolve + filter + "&$partitionKeyRangeIds=1", "docs", "dbs/d/colls/c", 200, []string{"1"}},
		{"no range ids: every live range", "/addresses", "$resolveFor=" + resolve + filter, "docs", f.collRID, 200, []string{"0", "1"}},
		{"a range that is not live", "/addresses", "$resolveFor=" + resolve + filter + "&$partitionKeyRangeIds=7", "docs", f.collRID, 200, nil},
		{"master partition", "/addresses", "$resolveFor=dbs" + filter, "dbs", "", 200, []string{"M"}},
		{"https filter: none", "/addresses", "$resolveFor=" + resolve + "&$filter=protocol%20eq%20https", "docs", f.collRID, 200, nil},
		{"wrong signature", "/addresses", "$resolveFor=" + resolve + filter, "docs", "other", 401, nil},
		{"unknown container", "/addresses", "$resolveFor=" + url.QueryEscape("dbs/d/colls/nope/docs") + filter, "docs", "dbs/d/colls/nope", 404, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, b := gatewayDo(t, f.e, "GET", tt.path+"?"+tt.query, tt.resType, tt.link, nil)
			if st != tt.status {
				t.Fatalf("status %d, want %d: %s", st, tt.status, b)
			}
			if st != 200 {
				if !bytes.Contains(b, []byte(`"code"`)) {
					t.Fatalf("error body %s", b)
				}
				return
			}
			var feed addressFeed
			if err := json.Unmarshal(b, &feed); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			if feed.Count != len(tt.ranges) || len(feed.Addresses) != len(tt.ranges) {
				t.Fatalf("addresses %s, want ranges %v", b, tt.ranges)
			}
			for i, a := range feed.Addresses {
				if a.RangeID != tt.ranges[i] || !a.IsPrimary || a.Protocol != "rntbd" || a.Index == "" {
					t.Errorf("address %d: %+v", i, a)
				}
				u, err := url.Parse(a.PhysicalURI)
				if err != nil || u.Scheme != "rntbd" || u.Port() != port || u.Hostname() != "127.0.0.1" || !strings.HasSuffix(u.Path, "/replicas/1p/") {
					t.Errorf("address %d: physcialUri %q, want rntbd://127.0.0.1:%s/.../replicas/1p/", i, a.PhysicalURI, port)
				}
			}
		})
	}
}

// directConn is a negotiated RNTBD connection.
type directConn struct {
	t  *testing.T
	c  net.Conn
	id uint32
}

func dialDirect(t *testing.T, e *emulatortest.Emulator) *directConn {
	t.Helper()
	c, err := tls.Dial("tcp", e.RNTBDAddr(), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the emulator's self-signed certificate
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute)) // a hang fails, not blocks
	frame, _ := rntbd.EncodeRequest(nil, &rntbd.Request{Tokens: rntbd.Tokens{rntbd.ULongToken(rntbd.CtxProtocolVersion, 1),
		rntbd.SmallStringToken(rntbd.CtxClientVersion, "2020-07-15"), rntbd.SmallStringToken(rntbd.CtxUserAgent, "go-test")}})
	if _, err := c.Write(frame); err != nil {
		t.Fatal(err)
	}
	res, err := rntbd.ReadResponse(c, rntbd.Limits{})
	if err != nil || res.Status != 200 {
		t.Fatalf("context negotiation: %v %+v", err, res)
	}
	return &directConn{t: t, c: c}
}

// doPK is do for a feed operation (no document) with partition key pk
// ("": none).
func (d *directConn) doPK(op uint16, pk string, payload []byte, extra ...rntbd.Token) *rntbd.Response {
	d.t.Helper()
	return d.send(op, "", pk, payload, extra...)
}

// do sends a document operation on d/c signed as the SDK signs it, with
// extra tokens, and returns the answer.
func (d *directConn) do(op uint16, doc, pk string, payload []byte, extra ...rntbd.Token) *rntbd.Response {
	d.t.Helper()
	if pk == "" {
		d.t.Fatal("do needs a partition key")
	}
	return d.send(op, doc, pk, payload, extra...)
}

func (d *directConn) send(op uint16, doc, pk string, payload []byte, extra ...rntbd.Token) *rntbd.Response {
	d.t.Helper()
	d.id++
	verb, link := "GET", "dbs/d/colls/c/docs/"+doc
	if doc == "" {
		link = "dbs/d/colls/c" // a feed
	}
	switch op {
	case rntbd.OpCreate, rntbd.OpUpsert, rntbd.OpQuery, rntbd.OpBatch:
		verb, link = "POST", "dbs/d/colls/c"
	case rntbd.OpReplace:
		verb = "PUT"
	case rntbd.OpPatch:
		verb = "PATCH"
	case rntbd.OpDelete:
		verb = "DELETE"
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	ts := rntbd.Tokens{
		rntbd.ULongToken(rntbd.ReqTransportRequestID, d.id),
		rntbd.StringToken(rntbd.ReqAuthorizationToken, wire.MasterAuthorization(testKey, verb, "docs", link, date)),
		rntbd.SmallStringToken(rntbd.ReqDate, date),
		rntbd.StringToken(rntbd.ReqDatabaseName, "d"), rntbd.StringToken(rntbd.ReqCollectionName, "c"),
	}
	if pk != "" {
		ts = append(ts, rntbd.StringToken(rntbd.ReqPartitionKey, `["`+pk+`"]`))
	}
	if doc != "" {
		ts = append(ts, rntbd.StringToken(rntbd.ReqDocumentName, doc))
	}
	frame, err := rntbd.EncodeRequest(nil, &rntbd.Request{ResourceType: rntbd.ResourceDocument, OperationType: op, Tokens: append(ts, extra...), Payload: payload})
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.c.Write(frame); err != nil {
		d.t.Fatal(err)
	}
	res, err := rntbd.ReadResponse(d.c, rntbd.Limits{})
	if err != nil {
		d.t.Fatal(err)
	}
	if tok, _ := res.Tokens.Get(rntbd.RespTransportRequestID); uint32(tok.Num) != d.id {
		d.t.Fatalf("transport request id %d, want %d", tok.Num, d.id)
	}
	return res
}

func tokenInt(res *rntbd.Response, id uint16) int64 {
	t, _ := res.Tokens.Get(id)
	return t.Int()
}

func tokenStr(res *rntbd.Response, id uint16) string {
	t, _ := res.Tokens.Get(id)
	return t.String()
}

// TestDirectDocumentOperations runs the document point operations over
// RNTBD against the same service as the gateway: status, body, etag,
// LSN/session token/charge tokens; If-Match (412) and If-None-Match (304)
// from the Match token by operation; 404 and 409 with their sub-status
// and an LSN no older than the last write (a session read's 404 is
// accepted); a wrong signature 401; an operation not served 400; and the
// gateway sees what direct mode wrote.
func TestDirectDocumentOperations(t *testing.T) {
	f := newDirectFixture(t)
	d := dialDirect(t, f.e)

	res := d.do(rntbd.OpCreate, "", "a", []byte(`{"id":"1","pk":"a","v":1}`))
	if res.Status != 201 || !bytes.Contains(res.Payload, []byte(`"v":1`)) {
		t.Fatalf("create: %d %s", res.Status, res.Payload)
	}
	etag1 := tokenStr(res, rntbd.RespETag)
	lsn1 := tokenInt(res, rntbd.RespLSN)
	rangeID := tokenStr(res, rntbd.RespPartitionKeyRangeID)
	if etag1 == "" || lsn1 <= 0 || rangeID == "" || tokenStr(res, rntbd.RespSessionToken) != "-1#"+strconv.FormatInt(lsn1, 10) {
		t.Fatalf("create tokens: etag %q lsn %d range %q session %q", etag1, lsn1, rangeID, tokenStr(res, rntbd.RespSessionToken))
	}
	if ch, _ := res.Tokens.Get(rntbd.RespRequestCharge); ch.Float() <= 0 || ch.Type != rntbd.TypeDouble {
		t.Fatalf("request charge %+v", ch)
	}
	var item struct {
		ETag string `json:"_etag"`
		RID  string `json:"_rid"`
	}
	_ = json.Unmarshal(res.Payload, &item)
	if item.ETag != etag1 || item.RID == "" {
		t.Fatalf("item %s, etag token %q", res.Payload, etag1)
	}

	if res = d.do(rntbd.OpCreate, "", "a", []byte(`{"id":"1","pk":"a"}`)); res.Status != 409 || !bytes.Contains(res.Payload, []byte(`"Conflict"`)) {
		t.Fatalf("second create: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpRead, "1", "a", nil); res.Status != 200 || !bytes.Contains(res.Payload, []byte(`"v":1`)) || tokenInt(res, rntbd.RespLSN) < lsn1 {
		t.Fatalf("read: %d %s lsn %d", res.Status, res.Payload, tokenInt(res, rntbd.RespLSN))
	}
	if res = d.do(rntbd.OpRead, "1", "a", nil, rntbd.StringToken(rntbd.ReqMatch, etag1)); res.Status != 304 || res.Payload != nil {
		t.Fatalf("read with the current etag as If-None-Match: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpUpsert, "", "a", []byte(`{"id":"1","pk":"a","v":2}`)); res.Status != 200 || !bytes.Contains(res.Payload, []byte(`"v":2`)) {
		t.Fatalf("upsert of an existing item: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpUpsert, "", "b", []byte(`{"id":"2","pk":"b"}`)); res.Status != 201 {
		t.Fatalf("upsert of a new item: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpReplace, "1", "a", []byte(`{"id":"1","pk":"a","v":3}`), rntbd.StringToken(rntbd.ReqMatch, etag1)); res.Status != 412 ||
		tokenInt(res, rntbd.RespSubStatus) != 0 || !bytes.Contains(res.Payload, []byte(`"PreconditionFailed"`)) {
		t.Fatalf("replace with a stale If-Match: %d %s", res.Status, res.Payload)
	}
	res = d.do(rntbd.OpReplace, "1", "a", []byte(`{"id":"1","pk":"a","v":3}`), rntbd.ByteToken(rntbd.ReqReturnPreference, 1))
	if res.Status != 200 || res.Payload != nil || tokenStr(res, rntbd.RespETag) == "" {
		t.Fatalf("replace, return=minimal: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpPatch, "1", "a", []byte(`{"operations":[{"op":"set","path":"/v","value":4}]}`)); res.Status != 200 || !bytes.Contains(res.Payload, []byte(`"v":4`)) {
		t.Fatalf("patch: %d %s", res.Status, res.Payload)
	}
	res = d.do(rntbd.OpDelete, "1", "a", nil)
	lastWrite := tokenInt(res, rntbd.RespLSN)
	if res.Status != 204 || res.Payload != nil || lastWrite <= lsn1 {
		t.Fatalf("delete: %d %s lsn %d", res.Status, res.Payload, lastWrite)
	}
	res = d.do(rntbd.OpRead, "1", "a", nil)
	if res.Status != 404 || !bytes.Contains(res.Payload, []byte(`"NotFound"`)) || tokenInt(res, rntbd.RespSubStatus) != 0 {
		t.Fatalf("read after delete: %d %s", res.Status, res.Payload)
	}
	if lsn := tokenInt(res, rntbd.RespLSN); lsn < lastWrite || tokenStr(res, rntbd.RespSessionToken) != "-1#"+strconv.FormatInt(lsn, 10) || tokenStr(res, rntbd.RespPartitionKeyRangeID) != rangeID {
		t.Fatalf("404 tokens: lsn %d (last write %d) session %q range %q", lsn, lastWrite, tokenStr(res, rntbd.RespSessionToken), tokenStr(res, rntbd.RespPartitionKeyRangeID))
	}
	if res = d.do(rntbd.OpDelete, "1", "a", nil); res.Status != 404 {
		t.Fatalf("second delete: %d %s", res.Status, res.Payload)
	}
	// a consistency level stronger than the account's (Session) is 400, as
	// through the gateway
	if res = d.do(rntbd.OpRead, "2", "b", nil, rntbd.ByteToken(rntbd.ReqConsistencyLevel, 0)); res.Status != 400 || !bytes.Contains(res.Payload, []byte("ConsistencyLevel Strong")) {
		t.Fatalf("read asking Strong: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpRead, "2", "b", nil, rntbd.ByteToken(rntbd.ReqConsistencyLevel, 3)); res.Status != 200 {
		t.Fatalf("read asking Eventual: %d %s", res.Status, res.Payload)
	}
	// a transactional batch: 200 with one result per operation; one that
	// fails is 207, its failing operation 409, the others 424, and nothing
	// of it stays
	res = d.do(rntbd.OpBatch, "", "b", []byte(`[{"operationType":"Create","resourceBody":{"id":"3","pk":"b"}},{"operationType":"Read","id":"2"}]`),
		rntbd.ByteToken(rntbd.ReqIsBatchAtomic, 1))
	if res.Status != 200 || !bytes.Contains(res.Payload, []byte(`"statusCode":201`)) || tokenInt(res, rntbd.RespLSN) <= lastWrite {
		t.Fatalf("batch: %d %s", res.Status, res.Payload)
	}
	res = d.do(rntbd.OpBatch, "", "b", []byte(`[{"operationType":"Create","resourceBody":{"id":"4","pk":"b"}},{"operationType":"Create","resourceBody":{"id":"3","pk":"b"}}]`),
		rntbd.ByteToken(rntbd.ReqIsBatchAtomic, 1))
	if res.Status != 207 || !bytes.Contains(res.Payload, []byte(`"statusCode":424`)) || !bytes.Contains(res.Payload, []byte(`"statusCode":409`)) {
		t.Fatalf("failing batch: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpRead, "4", "b", nil); res.Status != 404 {
		t.Fatalf("an item of the failed batch: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpExecuteJavaScript, "", "b", nil); res.Status != 400 || !bytes.Contains(res.Payload, []byte("gateway mode")) {
		t.Fatalf("script execution: %d %s", res.Status, res.Payload)
	}
	// the gateway sees what direct mode wrote
	if st, b := gatewayDo(t, f.e, "GET", "/dbs/d/colls/c/docs/2", "docs", "dbs/d/colls/c/docs/2", nil, "x-ms-documentdb-partitionkey", `["b"]`); st != 200 || !bytes.Contains(b, []byte(`"id":"2"`)) {
		t.Fatalf("gateway read: %d %s", st, b)
	}
}

// TestDirectRefusesWrongSignature: a direct request signed with another
// key, or for another item, is 401, like the gateway's.
func TestDirectRefusesWrongSignature(t *testing.T) {
	f := newDirectFixture(t)
	d := dialDirect(t, f.e)
	date := time.Now().UTC().Format(http.TimeFormat)
	for _, tt := range []struct{ name, auth string }{
		{"another item", wire.MasterAuthorization(testKey, "GET", "docs", "dbs/d/colls/c/docs/other", date)},
		{"another key", wire.MasterAuthorization([]byte("not the key"), "GET", "docs", "dbs/d/colls/c/docs/x", date)},
		{"none", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d.id++
			ts := rntbd.Tokens{rntbd.ULongToken(rntbd.ReqTransportRequestID, d.id), rntbd.SmallStringToken(rntbd.ReqDate, date),
				rntbd.StringToken(rntbd.ReqDatabaseName, "d"), rntbd.StringToken(rntbd.ReqCollectionName, "c"),
				rntbd.StringToken(rntbd.ReqDocumentName, "x"), rntbd.StringToken(rntbd.ReqPartitionKey, `["a"]`)}
			if tt.auth != "" {
				ts = append(ts, rntbd.StringToken(rntbd.ReqAuthorizationToken, tt.auth))
			}
			frame, _ := rntbd.EncodeRequest(nil, &rntbd.Request{ResourceType: rntbd.ResourceDocument, OperationType: rntbd.OpRead, Tokens: ts})
			if _, err := d.c.Write(frame); err != nil {
				t.Fatal(err)
			}
			res, err := rntbd.ReadResponse(d.c, rntbd.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != 401 || !bytes.Contains(res.Payload, []byte(`"Unauthorized"`)) {
				t.Fatalf("%d %s", res.Status, res.Payload)
			}
		})
	}
}

// TestDirectModeDefaultPortTaken: when the optional (default) direct-mode
// port is held by another program, the emulator starts without direct
// mode, and address requests say so with a 400 naming the flag.
func TestDirectModeDefaultPortTaken(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	e := emulatortest.Start(t, func(c *server.Config) { c.RNTBDAddr, c.RNTBDOptional = held.Addr().String(), true })
	if e.RNTBDAddr() != "" {
		t.Fatalf("direct mode listens on %s, a port another program holds", e.RNTBDAddr())
	}
	st, b := gatewayDo(t, e, "GET", "/addresses?$resolveFor=dbs&$filter=protocol%20eq%20rntbd", "dbs", "", nil)
	if st != http.StatusBadRequest || !bytes.Contains(b, []byte("--rntbd-port")) {
		t.Fatalf("addresses without direct mode: %d %s", st, b)
	}
}

// TestDirectQueryPages: query pages over RNTBD, of one logical partition
// and of one partition key range (as the Java SDK sends each range's part
// of a cross-partition query), paged by PageSize with the
// ContinuationToken token, ItemCount, query metrics when asked, and an
// LSN no older than the last write; a sub-range (StartEpk) is refused.
func TestDirectQueryPages(t *testing.T) {
	f := newDirectFixture(t)
	d := dialDirect(t, f.e)
	var lastWrite int64
	for i := 0; i < 5; i++ {
		res := d.do(rntbd.OpCreate, "", "a", []byte(`{"id":"`+strconv.Itoa(i)+`","pk":"a","n":`+strconv.Itoa(i)+`}`))
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Payload)
		}
		lastWrite = tokenInt(res, rntbd.RespLSN)
	}
	rangeID := tokenStr(d.do(rntbd.OpRead, "0", "a", nil), rntbd.RespPartitionKeyRangeID)
	query := []byte(`{"query":"SELECT c.id FROM c WHERE c.n >= @min","parameters":[{"name":"@min","value":1}]}`)
	for _, tt := range []struct {
		name  string
		extra []rntbd.Token
		pk    string
	}{
		{"logical partition", nil, "a"},
		{"partition key range", []rntbd.Token{rntbd.StringToken(rntbd.ReqPartitionKeyRange, rangeID)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ids []string
			cont := ""
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatal("more than 5 pages of 1 item for 4 items")
				}
				extra := append([]rntbd.Token{rntbd.ULongToken(rntbd.ReqPageSize, 1), rntbd.ByteToken(rntbd.ReqPopulateQueryMetrics, 1)}, tt.extra...)
				if cont != "" {
					extra = append(extra, rntbd.StringToken(rntbd.ReqContinuationToken, cont))
				}
				res := d.doPK(rntbd.OpQuery, tt.pk, query, extra...)
				if res.Status != 200 {
					t.Fatalf("query page: %d %s", res.Status, res.Payload)
				}
				var feed struct {
					Documents []struct{ ID string }
					Count     int `json:"_count"`
				}
				if err := json.Unmarshal(res.Payload, &feed); err != nil {
					t.Fatalf("%v: %s", err, res.Payload)
				}
				if tokenInt(res, rntbd.RespItemCount) != int64(len(feed.Documents)) || feed.Count != len(feed.Documents) {
					t.Fatalf("item count %d, %d documents: %s", tokenInt(res, rntbd.RespItemCount), len(feed.Documents), res.Payload)
				}
				if lsn := tokenInt(res, rntbd.RespLSN); lsn < lastWrite || tokenStr(res, rntbd.RespPartitionKeyRangeID) != rangeID {
					t.Fatalf("page lsn %d (last write %d), range %q (want %q)", lsn, lastWrite, tokenStr(res, rntbd.RespPartitionKeyRangeID), rangeID)
				}
				if !strings.Contains(tokenStr(res, rntbd.RespQueryMetrics), "retrievedDocumentCount=") {
					t.Fatalf("query metrics %q", tokenStr(res, rntbd.RespQueryMetrics))
				}
				for _, doc := range feed.Documents {
					ids = append(ids, doc.ID)
				}
				if cont = tokenStr(res, rntbd.RespContinuationToken); cont == "" {
					break
				}
			}
			if strings.Join(ids, ",") != "1,2,3,4" {
				t.Fatalf("ids %v, want 1,2,3,4", ids)
			}
		})
	}
	// an EPK sub-range (StartEpk/EndEpk, the hex EPKs as bytes): the
	// whole hash space holds all four; an empty range is refused, as
	// through the gateway
	epkQuery := func(start, end string) *rntbd.Response {
		return d.doPK(rntbd.OpQuery, "", query, rntbd.ByteToken(rntbd.ReqReadFeedKeyType, 3),
			rntbd.Token{ID: rntbd.ReqStartEpk, Type: rntbd.TypeBytes, Bytes: []byte(start)},
			rntbd.Token{ID: rntbd.ReqEndEpk, Type: rntbd.TypeBytes, Bytes: []byte(end)})
	}
	if res := epkQuery("00", "FF"); res.Status != 200 || tokenInt(res, rntbd.RespItemCount) != 4 {
		t.Fatalf("query over the whole EPK space: %d %s", res.Status, res.Payload)
	}
	if res := epkQuery("00", "00"); res.Status != 400 || !bytes.Contains(res.Payload, []byte("is empty")) {
		t.Fatalf("query over an empty EPK range: %d %s", res.Status, res.Payload)
	}
	if res := epkQuery("zz", "FF"); res.Status != 400 {
		t.Fatalf("query over a malformed EPK: %d %s", res.Status, res.Payload)
	}
}

// TestDirectReadFeedAndChangeFeed: a read feed page by page, and the
// latest-version change feed (A_IM Incremental Feed): from the beginning
// every item with an etag continuation; with that etag as Match
// (If-None-Match) 304 and the same etag until a write, then the written
// item; the all-versions feed refused with a 400 naming gateway mode.
func TestDirectReadFeedAndChangeFeed(t *testing.T) {
	f := newDirectFixture(t)
	d := dialDirect(t, f.e)
	for i := 0; i < 3; i++ {
		if res := d.do(rntbd.OpCreate, "", "a", []byte(`{"id":"`+strconv.Itoa(i)+`","pk":"a"}`)); res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Payload)
		}
	}
	var ids []string
	cont := ""
	for pages := 0; ; pages++ {
		if pages > 4 {
			t.Fatal("more than 4 pages of 1 item for 3 items")
		}
		extra := []rntbd.Token{rntbd.ULongToken(rntbd.ReqPageSize, 1)}
		if cont != "" {
			extra = append(extra, rntbd.StringToken(rntbd.ReqContinuationToken, cont))
		}
		res := d.doPK(rntbd.OpReadFeed, "a", nil, extra...)
		if res.Status != 200 {
			t.Fatalf("read feed: %d %s", res.Status, res.Payload)
		}
		var feed struct{ Documents []struct{ ID string } }
		_ = json.Unmarshal(res.Payload, &feed)
		for _, doc := range feed.Documents {
			ids = append(ids, doc.ID)
		}
		if cont = tokenStr(res, rntbd.RespContinuationToken); cont == "" {
			break
		}
	}
	if strings.Join(ids, ",") != "0,1,2" {
		t.Fatalf("read feed ids %v", ids)
	}

	aim := rntbd.StringToken(rntbd.ReqAIM, "Incremental Feed")
	res := d.doPK(rntbd.OpReadFeed, "a", nil, aim)
	etag := tokenStr(res, rntbd.RespETag)
	if res.Status != 200 || tokenInt(res, rntbd.RespItemCount) != 3 || etag == "" {
		t.Fatalf("change feed from the beginning: %d %s etag %q", res.Status, res.Payload, etag)
	}
	for i := 0; i < 2; i++ {
		res = d.doPK(rntbd.OpReadFeed, "a", nil, aim, rntbd.StringToken(rntbd.ReqMatch, etag))
		if res.Status != 304 || res.Payload != nil || tokenStr(res, rntbd.RespETag) != etag {
			t.Fatalf("change feed with nothing new: %d %s etag %q (want %q)", res.Status, res.Payload, tokenStr(res, rntbd.RespETag), etag)
		}
	}
	if res = d.do(rntbd.OpUpsert, "", "a", []byte(`{"id":"1","pk":"a","v":2}`)); res.Status != 200 {
		t.Fatalf("upsert: %d %s", res.Status, res.Payload)
	}
	res = d.doPK(rntbd.OpReadFeed, "a", nil, aim, rntbd.StringToken(rntbd.ReqMatch, etag))
	if res.Status != 200 || tokenInt(res, rntbd.RespItemCount) != 1 || !bytes.Contains(res.Payload, []byte(`"v":2`)) || tokenStr(res, rntbd.RespETag) == etag {
		t.Fatalf("change feed after a write: %d %s", res.Status, res.Payload)
	}
}

// TestDirectAllVersionsFeed: the all-versions-and-deletes change feed
// (A_IM "Full-Fidelity Feed") over RNTBD: from now (Match "*") a 304 with
// the etag to continue from; after a create, a replace and a delete, one
// page of the three entries in commit order, the same page the gateway
// answers for that etag; then 304 again; with neither a continuation nor a
// start time the service's 400.
func TestDirectAllVersionsFeed(t *testing.T) {
	f := newDirectFixture(t)
	d := dialDirect(t, f.e)
	aim := rntbd.StringToken(rntbd.ReqAIM, "Full-Fidelity Feed")
	format := rntbd.StringToken(rntbd.ReqChangeFeedWireFormatVersion, "2021-09-15")
	res := d.doPK(rntbd.OpReadFeed, "a", nil, aim, format, rntbd.StringToken(rntbd.ReqMatch, "*"))
	etag := tokenStr(res, rntbd.RespETag)
	if res.Status != 304 || res.Payload != nil || etag == "" || tokenInt(res, rntbd.RespItemCount) != 0 {
		t.Fatalf("from now: %d %s etag %q", res.Status, res.Payload, etag)
	}
	for _, w := range []struct {
		op   uint16
		doc  string
		body string
	}{{rntbd.OpCreate, "", `{"id":"x","pk":"a","v":1}`}, {rntbd.OpReplace, "x", `{"id":"x","pk":"a","v":2}`}, {rntbd.OpDelete, "x", ""}} {
		var body []byte
		if w.body != "" {
			body = []byte(w.body)
		}
		if res := d.do(w.op, w.doc, "a", body); res.Status >= 300 {
			t.Fatalf("write %d: %d %s", w.op, res.Status, res.Payload)
		}
	}
	res = d.doPK(rntbd.OpReadFeed, "a", nil, aim, format, rntbd.StringToken(rntbd.ReqMatch, etag))
	var page struct {
		Documents []struct {
			Current  *struct{ V int } `json:"current"`
			Metadata struct {
				OperationType string `json:"operationType"`
			} `json:"metadata"`
		}
	}
	if err := json.Unmarshal(res.Payload, &page); err != nil || res.Status != 200 || tokenInt(res, rntbd.RespItemCount) != 3 {
		t.Fatalf("after three writes: %d %s %v", res.Status, res.Payload, err)
	}
	var ops []string
	for _, e := range page.Documents {
		ops = append(ops, e.Metadata.OperationType)
	}
	if strings.Join(ops, ",") != "create,replace,delete" || page.Documents[1].Current == nil || page.Documents[1].Current.V != 2 {
		t.Fatalf("entries %s", res.Payload)
	}
	st, gw := gatewayDo(t, f.e, "GET", "/dbs/d/colls/c/docs", "docs", "dbs/d/colls/c", nil, "a-im", "Full-Fidelity Feed",
		"if-none-match", etag, "x-ms-documentdb-partitionkey", `["a"]`, "x-ms-cosmos-changefeed-wire-format-version", "2021-09-15")
	if st != 200 || !bytes.Equal(gw, res.Payload) {
		t.Fatalf("the gateway's page for the same etag: %d %s, direct %s", st, gw, res.Payload)
	}
	next := tokenStr(res, rntbd.RespETag)
	if res = d.doPK(rntbd.OpReadFeed, "a", nil, aim, format, rntbd.StringToken(rntbd.ReqMatch, next)); res.Status != 304 || tokenStr(res, rntbd.RespETag) != next {
		t.Fatalf("nothing new: %d %s", res.Status, res.Payload)
	}
	if res = d.doPK(rntbd.OpReadFeed, "a", nil, aim, format); res.Status != 400 || !bytes.Contains(res.Payload, []byte(`"BadRequest"`)) {
		t.Fatalf("from the beginning: %d %s", res.Status, res.Payload)
	}
}

// TestDirectStoredProcedure: a stored procedure (created through the
// gateway, as the SDKs do) executes over RNTBD in its logical partition,
// with its parameters, its writes, its log when EnableLogging asks, and a
// script error as the gateway sends it.
func TestDirectStoredProcedure(t *testing.T) {
	f := newDirectFixture(t)
	body := []byte(`{"id":"sp","body":"function (id, v) { console.log('making ' + id); var c = getContext().getCollection(); if (!c.createDocument(c.getSelfLink(), {id: id, pk: 'a', v: v}, function (err, doc) { if (err) throw err; getContext().getResponse().setBody(doc.v * 2); })) throw new Error('not accepted'); }"}`)
	if st, b := gatewayDo(t, f.e, "POST", "/dbs/d/colls/c/sprocs", "sprocs", "dbs/d/colls/c", body); st != http.StatusCreated {
		t.Fatalf("create sproc: %d %s", st, b)
	}
	d := dialDirect(t, f.e)
	exec := func(params string, extra ...rntbd.Token) *rntbd.Response {
		d.id++
		date := time.Now().UTC().Format(http.TimeFormat)
		ts := append(rntbd.Tokens{rntbd.ULongToken(rntbd.ReqTransportRequestID, d.id),
			rntbd.StringToken(rntbd.ReqAuthorizationToken, wire.MasterAuthorization(testKey, "POST", "sprocs", "dbs/d/colls/c/sprocs/sp", date)),
			rntbd.SmallStringToken(rntbd.ReqDate, date),
			rntbd.StringToken(rntbd.ReqDatabaseName, "d"), rntbd.StringToken(rntbd.ReqCollectionName, "c"),
			rntbd.StringToken(rntbd.ReqStoredProcedureName, "sp"), rntbd.StringToken(rntbd.ReqPartitionKey, `["a"]`)}, extra...)
		frame, _ := rntbd.EncodeRequest(nil, &rntbd.Request{ResourceType: rntbd.ResourceStoredProcedure, OperationType: rntbd.OpExecuteJavaScript, Tokens: ts, Payload: []byte(params)})
		if _, err := d.c.Write(frame); err != nil {
			t.Fatal(err)
		}
		res, err := rntbd.ReadResponse(d.c, rntbd.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := exec(`["x",21]`, rntbd.ByteToken(rntbd.ReqEnableLogging, 1))
	if res.Status != 200 || string(res.Payload) != "42" || tokenStr(res, rntbd.RespLogResults) != "making%20x" {
		t.Fatalf("execute: %d %s log %q", res.Status, res.Payload, tokenStr(res, rntbd.RespLogResults))
	}
	if r := d.do(rntbd.OpRead, "x", "a", nil); r.Status != 200 || !bytes.Contains(r.Payload, []byte(`"v":21`)) {
		t.Fatalf("the procedure's write: %d %s", r.Status, r.Payload)
	}
	// the script rethrows the 409 of its create: a 400 naming it, as the
	// service answers a script's uncaught error
	if res = exec(`["x",1]`); res.Status != 400 || !bytes.Contains(res.Payload, []byte("already exists")) {
		t.Fatalf("execute, the id taken: %d %s", res.Status, res.Payload)
	}
}

// TestDirectResourceToken: a resource token (a read permission on the
// container) authorizes direct reads and queries of its container and
// is refused (403) for a write, as through the gateway.
func TestDirectResourceToken(t *testing.T) {
	f := newDirectFixture(t)
	d := dialDirect(t, f.e)
	if res := d.do(rntbd.OpCreate, "", "a", []byte(`{"id":"1","pk":"a"}`)); res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Payload)
	}
	if st, b := gatewayDo(t, f.e, "POST", "/dbs/d/users", "users", "dbs/d", []byte(`{"id":"u"}`)); st != http.StatusCreated {
		t.Fatalf("create user: %d %s", st, b)
	}
	st, b := gatewayDo(t, f.e, "POST", "/dbs/d/users/u/permissions", "permissions", "dbs/d/users/u",
		[]byte(`{"id":"read","permissionMode":"Read","resource":"dbs/d/colls/c"}`))
	if st != http.StatusCreated {
		t.Fatalf("create permission: %d %s", st, b)
	}
	var perm struct {
		Token string `json:"_token"`
	}
	if err := json.Unmarshal(b, &perm); err != nil || perm.Token == "" {
		t.Fatalf("permission %s", b)
	}
	auth := rntbd.StringToken(rntbd.ReqAuthorizationToken, url.QueryEscape(perm.Token))
	// the token replaces the master-key signature: it comes last, and the
	// server reads the last Authorization token of a frame
	if res := d.do(rntbd.OpRead, "1", "a", nil, auth); res.Status != 200 {
		t.Fatalf("read with a read token: %d %s", res.Status, res.Payload)
	}
	if res := d.doPK(rntbd.OpQuery, "a", []byte(`{"query":"SELECT * FROM c"}`), auth); res.Status != 200 || tokenInt(res, rntbd.RespItemCount) != 1 {
		t.Fatalf("query with a read token: %d %s", res.Status, res.Payload)
	}
	if res := d.do(rntbd.OpUpsert, "", "a", []byte(`{"id":"1","pk":"a","v":2}`), auth); res.Status != 403 {
		t.Fatalf("write with a read token: %d %s", res.Status, res.Payload)
	}
}

// TestDirectFaults: the fault rules (the REST fault set) apply to direct
// requests after authentication: a 429 with its SubStatus and
// RetryAfterMilliseconds for the matching operation only, counted; a
// dropped connection.
func TestDirectFaults(t *testing.T) {
	f := newDirectFixture(t)
	d := dialDirect(t, f.e)
	if res := d.do(rntbd.OpCreate, "", "a", []byte(`{"id":"1","pk":"a"}`)); res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Payload)
	}
	f.e.InjectFault(t, "throttle", emulatortest.FaultRule{
		Match:    emulatortest.FaultMatch{Operation: "Read", ResourceType: "docs", Container: "c"},
		Response: emulatortest.FaultResponse{Status: 429, SubStatus: 3200, RetryAfterMs: 7}, Count: 1})
	if res := d.doPK(rntbd.OpQuery, "a", []byte(`{"query":"SELECT * FROM c"}`)); res.Status != 200 {
		t.Fatalf("a query, which the rule does not match: %d %s", res.Status, res.Payload)
	}
	res := d.do(rntbd.OpRead, "1", "a", nil)
	if res.Status != 429 || tokenInt(res, rntbd.RespSubStatus) != 3200 || tokenInt(res, rntbd.RespRetryAfterMs) != 7 || !bytes.Contains(res.Payload, []byte(`"TooManyRequests"`)) {
		t.Fatalf("injected 429: %d %s", res.Status, res.Payload)
	}
	if res = d.do(rntbd.OpRead, "1", "a", nil); res.Status != 200 {
		t.Fatalf("after the rule's one injection: %d %s", res.Status, res.Payload)
	}
	if n := f.e.FaultHits("throttle"); n != 1 {
		t.Fatalf("hits %d, want 1", n)
	}
	f.e.InjectFault(t, "drop", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Delete"},
		Response: emulatortest.FaultResponse{CloseConnection: true}})
	d.id++
	date := time.Now().UTC().Format(http.TimeFormat)
	frame, _ := rntbd.EncodeRequest(nil, &rntbd.Request{ResourceType: rntbd.ResourceDocument, OperationType: rntbd.OpDelete, Tokens: rntbd.Tokens{
		rntbd.ULongToken(rntbd.ReqTransportRequestID, d.id), rntbd.SmallStringToken(rntbd.ReqDate, date),
		rntbd.StringToken(rntbd.ReqAuthorizationToken, wire.MasterAuthorization(testKey, "DELETE", "docs", "dbs/d/colls/c/docs/1", date)),
		rntbd.StringToken(rntbd.ReqDatabaseName, "d"), rntbd.StringToken(rntbd.ReqCollectionName, "c"),
		rntbd.StringToken(rntbd.ReqDocumentName, "1"), rntbd.StringToken(rntbd.ReqPartitionKey, `["a"]`)}})
	if _, err := d.c.Write(frame); err != nil {
		t.Fatal(err)
	}
	if res, err := rntbd.ReadResponse(d.c, rntbd.Limits{}); err == nil {
		t.Fatalf("a dropped connection answered %d %s", res.Status, res.Payload)
	}
}

// TestDirectGoneAfterSplit: after a split, a query or feed addressed to
// the parent range is 410 with SubStatus 1002 (PartitionKeyRangeGone: the
// SDK refreshes its ranges and addresses), and the parent's addresses are
// no longer handed out; the children serve.
func TestDirectGoneAfterSplit(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithDirectMode())
	if st, b := gatewayDo(t, e, "POST", "/dbs", "dbs", "", []byte(`{"id":"d"}`)); st != http.StatusCreated {
		t.Fatalf("create database: %d %s", st, b)
	}
	st, b := gatewayDo(t, e, "POST", "/dbs/d/colls", "colls", "dbs/d", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
	if st != http.StatusCreated {
		t.Fatalf("create container: %d %s", st, b)
	}
	d := dialDirect(t, e)
	children := e.SplitRange(t, "d", "c", "0", "")
	query := []byte(`{"query":"SELECT * FROM c"}`)
	for _, tt := range []struct {
		name string
		op   uint16
	}{{"query", rntbd.OpQuery}, {"change feed", rntbd.OpReadFeed}} {
		res := d.doPK(tt.op, "", query, rntbd.StringToken(rntbd.ReqPartitionKeyRange, "0"), rntbd.StringToken(rntbd.ReqAIM, "Incremental Feed"))
		if res.Status != 410 || tokenInt(res, rntbd.RespSubStatus) != 1002 {
			t.Fatalf("%s of the parent range: %d sub %d %s", tt.name, res.Status, tokenInt(res, rntbd.RespSubStatus), res.Payload)
		}
		if res = d.doPK(tt.op, "", query, rntbd.StringToken(rntbd.ReqPartitionKeyRange, children[0].ID), rntbd.StringToken(rntbd.ReqAIM, "Incremental Feed")); res.Status != 200 && res.Status != 304 {
			t.Fatalf("%s of a child range: %d %s", tt.name, res.Status, res.Payload)
		}
	}
	st, b = gatewayDo(t, e, "GET", "/addresses?$resolveFor="+url.QueryEscape("dbs/d/colls/c/docs")+"&$partitionKeyRangeIds=0,"+children[1].ID, "docs", "dbs/d/colls/c", nil)
	var feed addressFeed
	if err := json.Unmarshal(b, &feed); st != 200 || err != nil || len(feed.Addresses) != 1 || feed.Addresses[0].RangeID != children[1].ID {
		t.Fatalf("addresses of the parent and a child: %d %s", st, b)
	}
}

// TestDirectRateLimitAndMetrics: with --rate-limit, direct requests spend
// the same budgets as gateway requests and are throttled the same way,
// and the request metrics count them under the operation, resource type
// and status of the REST request they stand for. A create of ~1.9 MB
// (about 1,900 RU) is admitted on a 400 RU/s container, whose budget has
// spent nothing, and leaves it in debt for seconds: the next read is
// answered 429 with SubStatus 3200 and a retry-after, through the gateway
// and in direct mode alike.
func TestDirectRateLimitAndMetrics(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithDirectMode(), emulatortest.WithRateLimit())
	if st, b := gatewayDo(t, e, "POST", "/dbs", "dbs", "", []byte(`{"id":"d"}`)); st != http.StatusCreated {
		t.Fatalf("create database: %d %s", st, b)
	}
	if st, b := gatewayDo(t, e, "POST", "/dbs/d/colls", "colls", "dbs/d", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`),
		"x-ms-offer-throughput", "400"); st != http.StatusCreated {
		t.Fatalf("create container: %d %s", st, b)
	}
	d := dialDirect(t, e)
	big := []byte(`{"id":"big","pk":"a","x":"` + strings.Repeat("x", 1900<<10) + `"}`)
	res := d.do(rntbd.OpCreate, "", "a", big)
	if res.Status != 201 {
		t.Fatalf("the first create, on a budget that spent nothing: %d %.200s", res.Status, res.Payload)
	}
	charge, _ := res.Tokens.Get(rntbd.RespRequestCharge)
	if charge.Float() < 1000 {
		t.Fatalf("the ~1.9 MB create charged %v RU", charge.Float())
	}

	st, b := gatewayDo(t, e, "GET", "/dbs/d/colls/c/docs/big", "docs", "dbs/d/colls/c/docs/big", nil, "x-ms-documentdb-partitionkey", `["a"]`)
	if st != http.StatusTooManyRequests || !bytes.Contains(b, []byte(`"TooManyRequests"`)) {
		t.Fatalf("a gateway read after the direct create's debt: %d %.200s", st, b)
	}
	for _, op := range []struct {
		op  uint16
		doc string
	}{{rntbd.OpRead, "big"}, {rntbd.OpCreate, ""}} {
		var payload []byte
		if op.op == rntbd.OpCreate {
			payload = []byte(`{"id":"small","pk":"a"}`)
		}
		res = d.do(op.op, op.doc, "a", payload)
		if res.Status != 429 || tokenInt(res, rntbd.RespSubStatus) != 3200 || tokenInt(res, rntbd.RespRetryAfterMs) < 1 ||
			!bytes.Contains(res.Payload, []byte(`"TooManyRequests"`)) {
			t.Fatalf("direct op %d in debt: %d SubStatus %d RetryAfterMilliseconds %d %.200s", op.op, res.Status,
				tokenInt(res, rntbd.RespSubStatus), tokenInt(res, rntbd.RespRetryAfterMs), res.Payload)
		}
	}

	m := emulatortest.ScrapeMetrics(t, emulatortest.HTTPClient(), strings.TrimSuffix(e.Endpoint, "/")+wire.MetricsPath)
	for _, tt := range []struct {
		series string
		want   float64
	}{
		{`cosmos_emulator_requests_total{operation="Create",resource_type="docs",status="201"}`, 1},
		{`cosmos_emulator_requests_total{operation="Create",resource_type="docs",status="429"}`, 1},
		{`cosmos_emulator_requests_total{operation="Read",resource_type="docs",status="429"}`, 2}, // gateway and direct
		{`cosmos_emulator_request_charge_total{operation="Create",resource_type="docs"}`, charge.Float()},
		{`cosmos_emulator_request_duration_seconds_count{operation="Create",resource_type="docs"}`, 2},
	} {
		if got := m[tt.series]; got != tt.want {
			t.Errorf("%s = %v, want %v", tt.series, got, tt.want)
		}
	}
	// Only direct requests created documents here, so these phases are
	// theirs: the signature check and the create's statement.
	for _, phase := range []string{"auth", "postgres"} {
		series := `cosmos_emulator_request_phase_seconds_total{operation="Create",phase="` + phase + `",resource_type="docs"}`
		if got := m[series]; got <= 0 {
			t.Errorf("%s = %v, want > 0 (direct requests record their phases)", series, got)
		}
	}
}
