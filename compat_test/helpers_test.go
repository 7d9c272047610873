package compat_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// ---- raw, hand-signed HTTP (written from the protocol description, not
// from the server's code)

// rawClient sends hand-built requests to one emulator.
type rawClient struct {
	t        testing.TB
	endpoint string // without the trailing slash
	hc       *http.Client
}

func newRaw(t testing.TB, e *emulatortest.Emulator) *rawClient {
	return &rawClient{t: t, endpoint: strings.TrimSuffix(e.Endpoint, "/"), hc: emulatortest.HTTPClient()}
}

// rawResp is a fully read response.
type rawResp struct {
	Status int
	Header http.Header
	Body   []byte
}

// masterKey returns the decoded master key.
func masterKey(t testing.TB) []byte {
	k, err := base64.StdEncoding.DecodeString(emulatortest.Key)
	if err != nil {
		t.Fatalf("decode key: %v", err)
	}
	return k
}

// signature computes the master-key signature:
// base64(HMAC-SHA256(key, lower(verb)\nlower(type)\nlink\nlower(date)\n\n)).
func signature(key []byte, verb, resourceType, link, date string) string {
	payload := strings.ToLower(verb) + "\n" + strings.ToLower(resourceType) + "\n" + link + "\n" + strings.ToLower(date) + "\n" + "\n"
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// typeAndLink derives the signed resource type and link from an escaped
// path: segments are unescaped one by one; an odd count is a feed (type =
// last segment, link = the ones before), an even count a resource (type =
// second to last, link = all). Offers are addressed by RID: their link is
// the lower-cased RID alone.
func typeAndLink(escapedPath string) (string, string) {
	p := strings.Trim(escapedPath, "/")
	if p == "" {
		return "", ""
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if u, err := url.PathUnescape(s); err == nil {
			segs[i] = u
		}
	}
	n := len(segs)
	if n%2 == 1 {
		return segs[n-1], strings.Join(segs[:n-1], "/")
	}
	if segs[n-2] == "offers" {
		return "offers", strings.ToLower(segs[n-1])
	}
	return segs[n-2], strings.Join(segs, "/")
}

func rfc1123(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// masterAuth returns the URL-encoded (upper-case hex, like Go's
// url.QueryEscape) Authorization value for a request.
func masterAuth(key []byte, verb, escapedPath, date string) string {
	typ, link := typeAndLink(escapedPath)
	return url.QueryEscape("type=master&ver=1.0&sig=" + signature(key, verb, typ, link, date))
}

// req builds a request for escapedPath (e.g. /dbs/db1/colls/c1/docs/a%20b)
// with x-ms-date now and a valid master-key signature. Tests may change
// headers before calling send (call resign after changing the date).
func (c *rawClient) req(method, escapedPath string, body []byte) *http.Request {
	c.t.Helper()
	var rdr io.Reader
	if body != nil {
		rdr = bytes.NewReader(body)
	}
	r, err := http.NewRequest(method, c.endpoint+escapedPath, rdr)
	if err != nil {
		c.t.Fatalf("new request %s %s: %v", method, escapedPath, err)
	}
	if r.URL.EscapedPath() != escapedPath && escapedPath != "" {
		c.t.Fatalf("path %q was re-escaped to %q", escapedPath, r.URL.EscapedPath())
	}
	date := rfc1123(time.Now())
	r.Header.Set("x-ms-date", date)
	r.Header.Set("x-ms-version", "2020-11-05")
	r.Header.Set("Accept", "application/json")
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("Authorization", masterAuth(masterKey(c.t), method, escapedPath, date))
	return r
}

// resign sets x-ms-date to date and signs the request for it.
func (c *rawClient) resign(r *http.Request, date string) {
	r.Header.Set("x-ms-date", date)
	r.Header.Set("Authorization", masterAuth(masterKey(c.t), r.Method, r.URL.EscapedPath(), date))
}

// send sends r and reads the whole response.
func (c *rawClient) send(r *http.Request) rawResp {
	c.t.Helper()
	resp, err := c.hc.Do(r)
	if err != nil {
		c.t.Fatalf("%s %s: %v", r.Method, r.URL.EscapedPath(), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read body: %v", r.Method, r.URL.EscapedPath(), err)
	}
	return rawResp{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// do builds, signs and sends a request; hdr are extra headers as
// name, value pairs.
func (c *rawClient) do(method, escapedPath string, body []byte, hdr ...string) rawResp {
	c.t.Helper()
	r := c.req(method, escapedPath, body)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return c.send(r)
}

// docPath returns the escaped path of a document.
func docPath(db, coll, id string) string {
	return "/dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(coll) + "/docs/" + url.PathEscape(id)
}

// docsPath returns the escaped path of a container's documents feed.
func docsPath(db, coll string) string {
	return "/dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(coll) + "/docs"
}

// pkHeader is the partition key header name.
const pkHeader = "x-ms-documentdb-partitionkey"

// ---- assertions

// errorBody checks that body is a Cosmos error object with string code and
// message and returns them.
func errorBody(t testing.TB, body []byte) (code, message string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("error body is not a JSON object: %v: %q", err, body)
	}
	c, ok1 := m["code"].(string)
	msg, ok2 := m["message"].(string)
	if !ok1 || !ok2 || c == "" || msg == "" {
		t.Fatalf("error body lacks string code/message: %s", body)
	}
	return c, msg
}

// wantError asserts a raw response is an error with the given status and
// code, and returns its message.
func wantError(t testing.TB, r rawResp, status int, code string) string {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	c, msg := errorBody(t, r.Body)
	if c != code {
		t.Fatalf("code = %q, want %q; body %s", c, code, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type = %q", ct)
	}
	return msg
}

// wantStatus asserts a raw response's status.
func wantStatus(t testing.TB, r rawResp, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
}

// wantSubStatus asserts x-ms-substatus.
func wantSubStatus(t testing.TB, r rawResp, sub int) {
	t.Helper()
	if got := r.Header.Get("x-ms-substatus"); got != strconv.Itoa(sub) {
		t.Fatalf("x-ms-substatus = %q, want %d; body %s", got, sub, r.Body)
	}
}

// sdkErr asserts err is an *azcore.ResponseError with the given status and
// returns it with its body.
func sdkErr(t testing.TB, err error, status int) (*azcore.ResponseError, []byte) {
	t.Helper()
	if err == nil {
		t.Fatalf("got success, want HTTP %d", status)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("error is not a ResponseError: %v", err)
	}
	if re.StatusCode != status {
		t.Fatalf("status = %d, want %d: %v", re.StatusCode, status, err)
	}
	var body []byte
	if re.RawResponse != nil {
		body, _ = runtime.Payload(re.RawResponse)
	}
	return re, body
}

// sdkErrCode asserts err is a ResponseError with the status and a Cosmos
// error body with the given code.
func sdkErrCode(t testing.TB, err error, status int, code string) string {
	t.Helper()
	_, body := sdkErr(t, err, status)
	c, msg := errorBody(t, body)
	if c != code {
		t.Fatalf("code = %q, want %q; body %s", c, code, body)
	}
	return msg
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// object decodes a JSON object (numbers as json.Number).
func object(t testing.TB, b []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("not a JSON object: %v: %q", err, b)
	}
	return m
}

// isJSONInteger reports whether v (decoded with UseNumber) is an integer
// literal.
func isJSONInteger(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	_, err := strconv.ParseInt(string(n), 10, 64)
	return err == nil
}

// ---- SDK fixtures

var bg = context.Background()

func mustDB(t testing.TB, c *azcosmos.Client, id string) *azcosmos.DatabaseClient {
	t.Helper()
	if _, err := c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: id}, nil); err != nil {
		t.Fatalf("create database %s: %v", id, err)
	}
	db, err := c.NewDatabase(id)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// mustContainer creates a container partitioned on paths (default /pk).
func mustContainer(t testing.TB, db *azcosmos.DatabaseClient, id string, paths ...string) *azcosmos.ContainerClient {
	t.Helper()
	if len(paths) == 0 {
		paths = []string{"/pk"}
	}
	def := azcosmos.PartitionKeyDefinition{Paths: paths}
	if len(paths) > 1 {
		def.Kind = azcosmos.PartitionKeyKindMultiHash
		def.Version = 2
	}
	if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: def}, nil); err != nil {
		t.Fatalf("create container %s: %v", id, err)
	}
	cc, err := db.NewContainer(id)
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

// fixture is one emulator with an SDK client and a raw client.
type fixture struct {
	e   *emulatortest.Emulator
	c   *azcosmos.Client
	raw *rawClient
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	e := emulatortest.Start(t)
	return &fixture{e: e, c: e.Client(t), raw: newRaw(t, e)}
}

// rawFor returns a raw client reporting failures on t (for subtests).
func (f *fixture) rawFor(t testing.TB) *rawClient {
	return &rawClient{t: t, endpoint: f.raw.endpoint, hc: f.raw.hc}
}

// wantCommonHeaders checks the headers every successful response carries.
func wantCommonHeaders(t testing.TB, h http.Header) {
	t.Helper()
	ch, err := strconv.ParseFloat(h.Get("x-ms-request-charge"), 64)
	if err != nil || ch <= 0 {
		t.Errorf("x-ms-request-charge = %q, want > 0", h.Get("x-ms-request-charge"))
	}
	if h.Get("x-ms-activity-id") == "" {
		t.Errorf("x-ms-activity-id missing")
	}
	if h.Get("x-ms-session-token") == "" {
		t.Errorf("x-ms-session-token missing")
	}
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
}
