package compat_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestDatabases(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.c

	t.Run("create read duplicate", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		resp := raw.do(http.MethodPost, "/dbs", []byte(`{"id":"dbcreate"}`))
		wantStatus(t, resp, http.StatusCreated)
		wantCommonHeaders(t, resp.Header)
		d := object(t, resp.Body)
		if d["id"] != "dbcreate" {
			t.Errorf("id = %v", d["id"])
		}
		rid, _ := d["_rid"].(string)
		if b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(rid, "-", "/")); err != nil || len(b) != 4 {
			t.Errorf("_rid %q is not a 4-byte RID", rid)
		}
		if d["_self"] != "dbs/"+rid+"/" {
			t.Errorf("_self = %v, want dbs/%s/", d["_self"], rid)
		}
		etag, _ := d["_etag"].(string)
		if len(etag) < 3 || etag[0] != '"' || etag[len(etag)-1] != '"' {
			t.Errorf("_etag %q is not quoted", etag)
		}
		if resp.Header.Get("etag") != etag {
			t.Errorf("etag header %q != _etag %q", resp.Header.Get("etag"), etag)
		}
		if !isJSONInteger(d["_ts"]) {
			t.Errorf("_ts = %v, want an integer", d["_ts"])
		}
		if d["_colls"] != "colls/" || d["_users"] != "users/" {
			t.Errorf("_colls/_users = %v/%v", d["_colls"], d["_users"])
		}

		// duplicate
		wantError(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"dbcreate"}`)), http.StatusConflict, "Conflict")
		_, err := c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "dbcreate"}, nil)
		sdkErrCode(t, err, http.StatusConflict, "Conflict")

		// read via SDK and raw
		db, _ := c.NewDatabase("dbcreate")
		rr, err := db.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rr.RawResponse.StatusCode != http.StatusOK || rr.DatabaseProperties.ID != "dbcreate" || rr.DatabaseProperties.ResourceID != rid {
			t.Errorf("read: %d %+v", rr.RawResponse.StatusCode, rr.DatabaseProperties)
		}
		if string(rr.ETag) != etag {
			t.Errorf("read etag %q, want %q", rr.ETag, etag)
		}
		resp = raw.do(http.MethodGet, "/dbs/dbcreate", nil)
		wantStatus(t, resp, http.StatusOK)
		if got := object(t, resp.Body); got["_rid"] != rid || got["_etag"] != etag {
			t.Errorf("raw read = %s", resp.Body)
		}
		// by RID too (RID-based addressing)
		resp = raw.do(http.MethodGet, "/dbs/"+rid, nil)
		wantStatus(t, resp, http.StatusOK)
		if got := object(t, resp.Body); got["id"] != "dbcreate" {
			t.Errorf("read by RID = %s", resp.Body)
		}
	})

	t.Run("read missing", func(t *testing.T) {
		t.Parallel()
		db, _ := c.NewDatabase("nosuchdb")
		_, err := db.Read(bg, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		wantError(t, f.rawFor(t).do(http.MethodGet, "/dbs/nosuchdb", nil), http.StatusNotFound, "NotFound")
		_, err = db.Delete(bg, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
	})

	t.Run("invalid bodies", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		for _, body := range []string{`{`, `[]`, `{"id":""}`, `{"id":5}`, `{}`, `{"id":"a/b"}`, `{"id":"a?b"}`, `{"id":"a#b"}`, `{"id":"a\\b"}`, `{"id":"trailing "}`} {
			wantError(t, raw.do(http.MethodPost, "/dbs", []byte(body)), http.StatusBadRequest, "BadRequest")
		}
		resp := raw.do(http.MethodGet, "/dbs", nil)
		wantStatus(t, resp, http.StatusOK)
		for _, d := range object(t, resp.Body)["Databases"].([]any) {
			if id := d.(map[string]any)["id"]; id == "" || id == "a/b" || id == "trailing " {
				t.Errorf("invalid database %q was stored", id)
			}
		}
	})

	t.Run("list and query", func(t *testing.T) {
		t.Parallel()
		// a private emulator: the other subtests would change the count
		f2 := newFixture(t)
		for _, id := range []string{"la", "lb", "lc"} {
			mustDB(t, f2.c, id)
		}
		raw := f2.rawFor(t)
		resp := raw.do(http.MethodGet, "/dbs", nil)
		wantStatus(t, resp, http.StatusOK)
		wantCommonHeaders(t, resp.Header)
		env := object(t, resp.Body)
		if env["_rid"] != "" {
			t.Errorf("_rid = %v, want \"\"", env["_rid"])
		}
		dbs, _ := env["Databases"].([]any)
		if len(dbs) != 3 || env["_count"] != json.Number("3") || resp.Header.Get("x-ms-item-count") != "3" {
			t.Fatalf("list = %s (item count %q)", resp.Body, resp.Header.Get("x-ms-item-count"))
		}
		for i, id := range []string{"la", "lb", "lc"} {
			if dbs[i].(map[string]any)["id"] != id {
				t.Errorf("Databases[%d] = %v, want %s", i, dbs[i], id)
			}
		}

		// paged list
		var seen []string
		cont := ""
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("too many pages")
			}
			hdr := []string{"x-ms-max-item-count", "2"}
			if cont != "" {
				hdr = append(hdr, "x-ms-continuation", cont)
			}
			resp := raw.do(http.MethodGet, "/dbs", nil, hdr...)
			wantStatus(t, resp, http.StatusOK)
			for _, d := range object(t, resp.Body)["Databases"].([]any) {
				seen = append(seen, d.(map[string]any)["id"].(string))
			}
			if cont = resp.Header.Get("x-ms-continuation"); cont == "" {
				break
			}
		}
		if strings.Join(seen, ",") != "la,lb,lc" {
			t.Errorf("paged list = %v", seen)
		}

		// SDK query with a parameter
		pager := f2.c.NewQueryDatabasesPager("SELECT * FROM root r WHERE r.id = @id", &azcosmos.QueryDatabasesOptions{
			QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: "lb"}},
		})
		var got []string
		for pager.More() {
			page, err := pager.NextPage(bg)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range page.Databases {
				got = append(got, d.ID)
			}
		}
		if len(got) != 1 || got[0] != "lb" {
			t.Errorf("query by id = %v, want [lb]", got)
		}
		// a literal, and no match
		for q, want := range map[string]string{
			"SELECT * FROM c WHERE c.id = 'lc'": "lc",
			"SELECT * FROM c WHERE c.id = 'zz'": "",
			"SELECT * FROM c":                   "la,lb,lc",
		} {
			pager := f2.c.NewQueryDatabasesPager(q, nil)
			var ids []string
			for pager.More() {
				page, err := pager.NextPage(bg)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				for _, d := range page.Databases {
					ids = append(ids, d.ID)
				}
			}
			if strings.Join(ids, ",") != want {
				t.Errorf("%s = %v, want %s", q, ids, want)
			}
		}
		// raw query response envelope
		resp = raw.do(http.MethodPost, "/dbs", []byte(`{"query":"SELECT * FROM r WHERE r.id = @id","parameters":[{"name":"@id","value":"la"}]}`),
			"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True")
		wantStatus(t, resp, http.StatusOK)
		env = object(t, resp.Body)
		if dbs, _ := env["Databases"].([]any); len(dbs) != 1 || env["_count"] != json.Number("1") {
			t.Errorf("raw query = %s", resp.Body)
		}
		// database queries run on the query engine: projections, filters,
		// ORDER BY and aggregates work; invalid SQL is a 400
		for q, want := range map[string]string{
			`SELECT r.id FROM r ORDER BY r.id DESC`:                   `[{"id":"lc"},{"id":"lb"},{"id":"la"}]`,
			`SELECT VALUE r.id FROM r WHERE r.id != 'la'`:             `["lb","lc"]`,
			`SELECT VALUE COUNT(1) FROM r`:                            `[3]`,
			`SELECT VALUE IS_STRING(r._rid) FROM r WHERE r.id = 'la'`: `[true]`,
		} {
			body := mustJSON(t, map[string]any{"query": q})
			resp := raw.do(http.MethodPost, "/dbs", body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True")
			wantStatus(t, resp, http.StatusOK)
			var env struct{ Databases json.RawMessage }
			_ = json.Unmarshal(resp.Body, &env)
			if string(env.Databases) != want {
				t.Errorf("%s: %s, want %s", q, env.Databases, want)
			}
		}
		wantError(t, raw.do(http.MethodPost, "/dbs", mustJSON(t, map[string]any{"query": "DELETE FROM r"}), "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True"), http.StatusBadRequest, "BadRequest")
		// SDK surfaces invalid SQL as a 400 too
		pager = f2.c.NewQueryDatabasesPager("SELECT r.id FROM", nil)
		_, err := pager.NextPage(bg)
		sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
		// bad parameters
		for _, body := range []string{
			`{"query":"SELECT * FROM r WHERE r.id = @id","parameters":[{"name":"id","value":"la"}]}`,
			`{"query":"SELECT * FROM r WHERE r.id = @id","parameters":[{"name":"@id","value":"la"},{"name":"@id","value":"lb"}]}`,
			`{"query":`,
		} {
			wantError(t, raw.do(http.MethodPost, "/dbs", []byte(body), "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True"), http.StatusBadRequest, "BadRequest")
		}
	})

	t.Run("delete cascades", func(t *testing.T) {
		t.Parallel()
		db := mustDB(t, c, "dbcascade")
		cc := mustContainer(t, db, "c1")
		pk := azcosmos.NewPartitionKeyString("a")
		for i := 0; i < 3; i++ {
			if _, err := cc.CreateItem(bg, pk, mustJSON(t, map[string]any{"id": strconv.Itoa(i), "pk": "a"}), nil); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := db.Delete(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.RawResponse.StatusCode != http.StatusNoContent {
			t.Errorf("delete status %d, want 204", resp.RawResponse.StatusCode)
		}
		_, err = db.Read(bg, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		_, err = cc.Read(bg, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		_, err = cc.ReadItem(bg, pk, "0", nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")

		// the same names again: an empty container
		db = mustDB(t, c, "dbcascade")
		cc = mustContainer(t, db, "c1")
		_, err = cc.ReadItem(bg, pk, "0", nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		raw := f.rawFor(t)
		fr := raw.do(http.MethodGet, docsPath("dbcascade", "c1"), nil)
		wantStatus(t, fr, http.StatusOK)
		if env := object(t, fr.Body); env["_count"] != json.Number("0") {
			t.Errorf("recreated container is not empty: %s", fr.Body)
		}
		// a second delete is a 404
		wantStatus(t, raw.do(http.MethodDelete, "/dbs/dbcascade", nil), http.StatusNoContent)
		wantError(t, raw.do(http.MethodDelete, "/dbs/dbcascade", nil), http.StatusNotFound, "NotFound")
	})

	t.Run("throughput", func(t *testing.T) {
		t.Parallel()
		manual := azcosmos.NewManualThroughputProperties(400)
		if _, err := c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "dbmanual"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: &manual}); err != nil {
			t.Fatal(err)
		}
		auto := azcosmos.NewAutoscaleThroughputProperties(4000)
		if _, err := c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "dbauto"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: &auto}); err != nil {
			t.Fatal(err)
		}
		mustDB(t, c, "dbnone")

		dbm, _ := c.NewDatabase("dbmanual")
		tr, err := dbm.ReadThroughput(bg, nil)
		if err != nil {
			t.Fatalf("read manual throughput: %v", err)
		}
		if v, ok := tr.ThroughputProperties.ManualThroughput(); !ok || v != 400 {
			t.Errorf("manual throughput = %d %v, want 400", v, ok)
		}
		newTP := azcosmos.NewManualThroughputProperties(500)
		tr, err = dbm.ReplaceThroughput(bg, newTP, nil)
		if err != nil {
			t.Fatalf("replace manual throughput: %v", err)
		}
		if v, ok := tr.ThroughputProperties.ManualThroughput(); !ok || v != 500 {
			t.Errorf("replaced throughput = %d %v, want 500", v, ok)
		}
		tr, err = dbm.ReadThroughput(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := tr.ThroughputProperties.ManualThroughput(); v != 500 {
			t.Errorf("re-read throughput = %d, want 500", v)
		}

		dba, _ := c.NewDatabase("dbauto")
		tr, err = dba.ReadThroughput(bg, nil)
		if err != nil {
			t.Fatalf("read autoscale throughput: %v", err)
		}
		if v, ok := tr.ThroughputProperties.AutoscaleMaxThroughput(); !ok || v != 4000 {
			t.Errorf("autoscale max = %d %v, want 4000", v, ok)
		}
		tr, err = dba.ReplaceThroughput(bg, azcosmos.NewAutoscaleThroughputProperties(10000), nil)
		if err != nil {
			t.Fatalf("replace autoscale: %v", err)
		}
		if v, ok := tr.ThroughputProperties.AutoscaleMaxThroughput(); !ok || v != 10000 {
			t.Errorf("replaced autoscale max = %d %v, want 10000", v, ok)
		}
		tr, err = dba.ReadThroughput(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := tr.ThroughputProperties.AutoscaleMaxThroughput(); v != 10000 {
			t.Errorf("re-read autoscale max = %d, want 10000", v)
		}

		dbn, _ := c.NewDatabase("dbnone")
		_, err = dbn.ReadThroughput(bg, nil)
		sdkErr(t, err, http.StatusNotFound)

		// the offers feed lists both, each pointing at its database
		raw := f.rawFor(t)
		resp := raw.do(http.MethodGet, "/offers", nil)
		wantStatus(t, resp, http.StatusOK)
		env := object(t, resp.Body)
		offers, _ := env["Offers"].([]any)
		rids := map[string]bool{}
		for _, id := range []string{"dbmanual", "dbauto"} {
			d, _ := c.NewDatabase(id)
			r, err := d.Read(bg, nil)
			if err != nil {
				t.Fatal(err)
			}
			rids[r.DatabaseProperties.ResourceID] = true
		}
		found := 0
		for _, o := range offers {
			om := o.(map[string]any)
			if rids[om["offerResourceId"].(string)] {
				found++
				self, _ := om["_self"].(string)
				if self != "offers/"+om["id"].(string)+"/" || om["_rid"] != om["id"] {
					t.Errorf("offer links: %v", om)
				}
				if strings.ContainsAny(om["id"].(string), "/'\"") {
					t.Errorf("offer id %q is not URL/SQL safe", om["id"])
				}
				if !isJSONInteger(om["_ts"]) {
					t.Errorf("offer _ts = %v", om["_ts"])
				}
			}
		}
		if found != 2 {
			t.Errorf("offers for the two databases: %d, feed %s", found, resp.Body)
		}

		// invalid throughput is refused and creates nothing
		wantError(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"dblow"}`), "x-ms-offer-throughput", "100"), http.StatusBadRequest, "BadRequest")
		wantError(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"dblow"}`), "x-ms-offer-throughput", "abc"), http.StatusBadRequest, "BadRequest")
		wantError(t, raw.do(http.MethodGet, "/dbs/dblow", nil), http.StatusNotFound, "NotFound")

		// deleting the database deletes its offer (counted among the two
		// databases' offers: containers created by parallel subtests get
		// offers of their own)
		dbmr, err := dbm.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dbm.Delete(bg, nil); err != nil {
			t.Fatal(err)
		}
		resp = raw.do(http.MethodGet, "/offers", nil)
		left := 0
		for _, o := range object(t, resp.Body)["Offers"].([]any) {
			om := o.(map[string]any)
			if om["resource"] == nil {
				t.Errorf("offer without resource: %v", o)
			}
			if om["offerResourceId"] == dbmr.DatabaseProperties.ResourceID {
				t.Errorf("the deleted database's offer is still listed: %v", om)
			}
			if rids[om["offerResourceId"].(string)] {
				left++
			}
		}
		if left != 1 {
			t.Errorf("offers of the two databases after deleting one = %d, want 1", left)
		}
	})
}
