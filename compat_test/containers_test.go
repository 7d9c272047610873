package compat_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// compactJSON re-encodes JSON compactly (keeping member order).
func compactJSON(t testing.TB, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("compact %q: %v", b, err)
	}
	return buf.String()
}

// rawMembers decodes an object into its raw members.
func rawMembers(t testing.TB, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not an object: %v: %s", err, b)
	}
	return m
}

func TestContainers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.c
	db := mustDB(t, c, "cdb")
	dbr, err := db.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	dbRID := dbr.DatabaseProperties.ResourceID

	t.Run("create hash with defaults", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		resp := raw.do(http.MethodPost, "/dbs/cdb/colls", []byte(`{"id":"defaults","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`))
		wantStatus(t, resp, http.StatusCreated)
		wantCommonHeaders(t, resp.Header)
		m := rawMembers(t, resp.Body)
		want := map[string]string{
			"id":                       `"defaults"`,
			"partitionKey":             `{"paths":["/pk"],"kind":"Hash"}`,
			"indexingPolicy":           `{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/\"_etag\"/?"}]}`,
			"conflictResolutionPolicy": `{"mode":"LastWriterWins","conflictResolutionPath":"/_ts","conflictResolutionProcedure":""}`,
			"geospatialConfig":         `{"type":"Geography"}`,
			"_docs":                    `"docs/"`,
			"_sprocs":                  `"sprocs/"`,
			"_triggers":                `"triggers/"`,
			"_udfs":                    `"udfs/"`,
			"_conflicts":               `"conflicts/"`,
		}
		for k, v := range want {
			got, ok := m[k]
			if !ok {
				t.Errorf("%s missing", k)
				continue
			}
			if compactJSON(t, got) != v {
				t.Errorf("%s = %s, want %s", k, got, v)
			}
		}
		if _, ok := m["defaultTtl"]; ok {
			t.Errorf("defaultTtl present although not set: %s", m["defaultTtl"])
		}
		var rid, self, etag string
		_ = json.Unmarshal(m["_rid"], &rid)
		_ = json.Unmarshal(m["_self"], &self)
		_ = json.Unmarshal(m["_etag"], &etag)
		if self != "dbs/"+dbRID+"/colls/"+rid+"/" {
			t.Errorf("_self = %q", self)
		}
		if etag == "" || etag != resp.Header.Get("etag") || !strings.HasPrefix(etag, `"`) {
			t.Errorf("_etag %q vs header %q", etag, resp.Header.Get("etag"))
		}
		if !isJSONInteger(object(t, resp.Body)["_ts"]) {
			t.Errorf("_ts = %s", m["_ts"])
		}
		// the SDK reads the same thing back
		cc, _ := db.NewContainer("defaults")
		cr, err := cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := cr.ContainerProperties
		if p.ID != "defaults" || p.ResourceID != rid || p.PartitionKeyDefinition.Kind != azcosmos.PartitionKeyKindHash ||
			!reflect.DeepEqual(p.PartitionKeyDefinition.Paths, []string{"/pk"}) || p.DefaultTimeToLive != nil {
			t.Errorf("SDK read = %+v", p)
		}
		if ip := p.IndexingPolicy; ip == nil || !ip.Automatic || !strings.EqualFold(string(ip.IndexingMode), "consistent") ||
			len(ip.IncludedPaths) != 1 || ip.IncludedPaths[0].Path != "/*" || len(ip.ExcludedPaths) != 1 || ip.ExcludedPaths[0].Path != `/"_etag"/?` {
			t.Errorf("indexing policy = %+v", p.IndexingPolicy)
		}
		if crp := p.ConflictResolutionPolicy; crp == nil || crp.Mode != azcosmos.ConflictResolutionModeLastWriteWins || crp.ResolutionPath != "/_ts" {
			t.Errorf("conflict resolution = %+v", p.ConflictResolutionPolicy)
		}

		// duplicate
		_, err = db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "defaults", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
		sdkErrCode(t, err, http.StatusConflict, "Conflict")
	})

	t.Run("create multihash", func(t *testing.T) {
		t.Parallel()
		def := azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Paths: []string{"/tenant", "/user", "/session"}, Version: 2}
		cr, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "hier", PartitionKeyDefinition: def}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if cr.RawResponse.StatusCode != http.StatusCreated {
			t.Errorf("status %d", cr.RawResponse.StatusCode)
		}
		if !reflect.DeepEqual(cr.ContainerProperties.PartitionKeyDefinition, def) {
			t.Errorf("pk def = %+v, want %+v", cr.ContainerProperties.PartitionKeyDefinition, def)
		}
		resp := f.rawFor(t).do(http.MethodGet, "/dbs/cdb/colls/hier", nil)
		wantStatus(t, resp, http.StatusOK)
		if got := compactJSON(t, rawMembers(t, resp.Body)["partitionKey"]); got != `{"kind":"MultiHash","paths":["/tenant","/user","/session"],"version":2}` {
			t.Errorf("raw partitionKey = %s", got)
		}
	})

	t.Run("invalid definitions", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		for i, body := range []string{
			`{"id":"bad0"}`,
			`{"id":"bad1","partitionKey":null}`,
			`{"id":"bad2","partitionKey":{"paths":[],"kind":"Hash"}}`,
			`{"id":"bad3","partitionKey":{"paths":["/a","/b"],"kind":"Hash"}}`,
			`{"id":"bad4","partitionKey":{"paths":["/a","/b","/c","/d"],"kind":"MultiHash"}}`,
			`{"id":"bad5","partitionKey":{"paths":["/a"],"kind":"Range"}}`,
			`{"id":"bad6","partitionKey":{"paths":["a"],"kind":"Hash"}}`,
			`{"id":"bad7","partitionKey":"/pk"}`,
			`{"id":"bad8","partitionKey":{"paths":["/pk"]},"indexingPolicy":"consistent"}`,
			`{"partitionKey":{"paths":["/pk"]}}`,
			`{"id":"","partitionKey":{"paths":["/pk"]}}`,
			`{"id":"a/b","partitionKey":{"paths":["/pk"]}}`,
			`{"id":"a#b","partitionKey":{"paths":["/pk"]}}`,
			`{"id":"bad9","partitionKey":{"paths":["/pk"]}`,
			`[{"id":"bad10","partitionKey":{"paths":["/pk"]}}]`,
		} {
			resp := raw.do(http.MethodPost, "/dbs/cdb/colls", []byte(body))
			wantError(t, resp, http.StatusBadRequest, "BadRequest")
			if i <= 8 {
				wantError(t, raw.do(http.MethodGet, fmt.Sprintf("/dbs/cdb/colls/bad%d", i), nil), http.StatusNotFound, "NotFound")
			}
		}
		// in a missing database
		wantError(t, raw.do(http.MethodPost, "/dbs/nodb/colls", []byte(`{"id":"x","partitionKey":{"paths":["/pk"]}}`)), http.StatusNotFound, "NotFound")
	})

	t.Run("policies verbatim", func(t *testing.T) {
		t.Parallel()
		props := azcosmos.ContainerProperties{
			ID:                     "policies",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
			IndexingPolicy: &azcosmos.IndexingPolicy{
				Automatic:     true,
				IndexingMode:  azcosmos.IndexingModeConsistent,
				IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
				ExcludedPaths: []azcosmos.ExcludedPath{{Path: `/"_etag"/?`}, {Path: "/embedding/*"}, {Path: "/big/?"}},
				SpatialIndexes: []azcosmos.SpatialIndex{{Path: "/location/*", SpatialTypes: []azcosmos.SpatialType{
					azcosmos.SpatialTypePoint, azcosmos.SpatialTypePolygon}}},
				CompositeIndexes: [][]azcosmos.CompositeIndex{{
					{Path: "/name", Order: azcosmos.CompositeIndexAscending},
					{Path: "/age", Order: azcosmos.CompositeIndexDescending},
				}},
				VectorIndexes:   []azcosmos.VectorIndex{{Path: "/embedding", Type: azcosmos.VectorIndexTypeQuantizedFlat}},
				FullTextIndexes: []azcosmos.FullTextIndex{{Path: "/text"}},
			},
			UniqueKeyPolicy: &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/email"}}, {Paths: []string{"/a", "/b"}}}},
			VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{{
				Path: "/embedding", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 8,
			}}},
			FullTextPolicy: &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/text", Language: "en-US"}}},
			ConflictResolutionPolicy: &azcosmos.ConflictResolutionPolicy{
				Mode: azcosmos.ConflictResolutionModeLastWriteWins, ResolutionPath: "/version",
			},
		}
		if _, err := db.CreateContainer(bg, props, nil); err != nil {
			t.Fatal(err)
		}
		cc, _ := db.NewContainer("policies")
		cr, err := cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := cr.ContainerProperties
		wantIP := *props.IndexingPolicy
		wantIP.IndexingMode = "consistent" // returned lower-case, like the service
		if !reflect.DeepEqual(got.IndexingPolicy, &wantIP) {
			t.Errorf("indexing policy\n got %+v\nwant %+v", got.IndexingPolicy, &wantIP)
		}
		if !reflect.DeepEqual(got.UniqueKeyPolicy, props.UniqueKeyPolicy) {
			t.Errorf("unique keys = %+v", got.UniqueKeyPolicy)
		}
		if !reflect.DeepEqual(got.VectorEmbeddingPolicy, props.VectorEmbeddingPolicy) {
			t.Errorf("vector policy = %+v", got.VectorEmbeddingPolicy)
		}
		if !reflect.DeepEqual(got.FullTextPolicy, props.FullTextPolicy) {
			t.Errorf("full text policy = %+v", got.FullTextPolicy)
		}
		if !reflect.DeepEqual(got.ConflictResolutionPolicy, props.ConflictResolutionPolicy) {
			t.Errorf("conflict resolution = %+v", got.ConflictResolutionPolicy)
		}

		// properties without SDK types come back verbatim too
		raw := f.rawFor(t)
		body := `{"id":"rawprops","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},` +
			`"computedProperties":[{"name":"lowerName","query":"SELECT VALUE LOWER(c.name) FROM c"}],` +
			`"analyticalStorageTtl":-1,"clientEncryptionPolicy":{"includedPaths":[],"policyFormatVersion":2},` +
			`"indexingPolicy":{"indexingMode":"Consistent","automatic":true,"includedPaths":[{"path":"/a/?","indexes":[{"kind":"Range","dataType":"String","precision":-1}]}],"excludedPaths":[{"path":"/*"}]}}`
		resp := raw.do(http.MethodPost, "/dbs/cdb/colls", []byte(body))
		wantStatus(t, resp, http.StatusCreated)
		resp = raw.do(http.MethodGet, "/dbs/cdb/colls/rawprops", nil)
		wantStatus(t, resp, http.StatusOK)
		m := rawMembers(t, resp.Body)
		for k, v := range map[string]string{
			"computedProperties":     `[{"name":"lowerName","query":"SELECT VALUE LOWER(c.name) FROM c"}]`,
			"analyticalStorageTtl":   `-1`,
			"clientEncryptionPolicy": `{"includedPaths":[],"policyFormatVersion":2}`,
			"indexingPolicy":         `{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/a/?","indexes":[{"kind":"Range","dataType":"String","precision":-1}]}],"excludedPaths":[{"path":"/*"},{"path":"/\"_etag\"/?"}]}`,
			"partitionKey":           `{"paths":["/pk"],"kind":"Hash","version":2}`,
		} {
			if compactJSON(t, m[k]) != v {
				t.Errorf("%s = %s, want %s", k, m[k], v)
			}
		}
	})

	t.Run("defaultTtl", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		for _, ttl := range []int32{-1, 3600, 2147483647} {
			id := fmt.Sprintf("ttl%d", ttl)
			v := ttl
			if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: id, DefaultTimeToLive: &v,
				PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
				t.Fatalf("defaultTtl %d: %v", ttl, err)
			}
			cc, _ := db.NewContainer(id)
			cr, err := cc.Read(bg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if cr.ContainerProperties.DefaultTimeToLive == nil || *cr.ContainerProperties.DefaultTimeToLive != ttl {
				t.Errorf("defaultTtl read back = %v, want %d", cr.ContainerProperties.DefaultTimeToLive, ttl)
			}
			resp := raw.do(http.MethodGet, "/dbs/cdb/colls/"+id, nil)
			if got := string(rawMembers(t, resp.Body)["defaultTtl"]); got != fmt.Sprint(ttl) {
				t.Errorf("raw defaultTtl = %q, want %d", got, ttl)
			}
		}
		// null means off: accepted and not returned
		resp := raw.do(http.MethodPost, "/dbs/cdb/colls", []byte(`{"id":"ttlnull","partitionKey":{"paths":["/pk"]},"defaultTtl":null}`))
		wantStatus(t, resp, http.StatusCreated)
		if _, ok := rawMembers(t, resp.Body)["defaultTtl"]; ok {
			t.Errorf("defaultTtl null was returned: %s", resp.Body)
		}
		// invalid values are refused and nothing is stored
		for i, v := range []string{`0`, `-2`, `-10`, `2147483648`, `1.5`, `"10"`, `true`, `{}`, `1e3`} {
			id := fmt.Sprintf("ttlbad%d", i)
			body := `{"id":"` + id + `","partitionKey":{"paths":["/pk"]},"defaultTtl":` + v + `}`
			msg := wantError(t, raw.do(http.MethodPost, "/dbs/cdb/colls", []byte(body)), http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, "defaultTtl") {
				t.Errorf("defaultTtl %s: message %q does not name defaultTtl", v, msg)
			}
			wantError(t, raw.do(http.MethodGet, "/dbs/cdb/colls/"+id, nil), http.StatusNotFound, "NotFound")
		}
	})

	t.Run("replace", func(t *testing.T) {
		t.Parallel()
		cc := mustContainer(t, db, "repl")
		pk := azcosmos.NewPartitionKeyString("p")
		for _, id := range []string{"i1", "i2"} {
			if _, err := cc.CreateItem(bg, pk, mustJSON(t, map[string]any{"id": id, "pk": "p"}), nil); err != nil {
				t.Fatal(err)
			}
		}
		cr, err := cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		props := *cr.ContainerProperties
		oldETag := cr.ETag
		ttl := int32(3600)
		props.DefaultTimeToLive = &ttl
		props.IndexingPolicy = &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/name/?"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}}}
		rr, err := cc.Replace(bg, props, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rr.RawResponse.StatusCode != http.StatusOK {
			t.Errorf("replace status %d", rr.RawResponse.StatusCode)
		}
		if rr.ETag == oldETag {
			t.Errorf("replace kept the etag %s", oldETag)
		}
		cr, err = cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := cr.ContainerProperties
		if got.DefaultTimeToLive == nil || *got.DefaultTimeToLive != 3600 {
			t.Errorf("defaultTtl after replace = %v", got.DefaultTimeToLive)
		}
		if ip := got.IndexingPolicy; ip == nil || len(ip.IncludedPaths) != 1 || ip.IncludedPaths[0].Path != "/name/?" ||
			len(ip.ExcludedPaths) != 2 || ip.ExcludedPaths[0].Path != "/*" || ip.ExcludedPaths[1].Path != `/"_etag"/?` {
			t.Errorf("indexing policy after replace = %+v", got.IndexingPolicy)
		}
		if got.ResourceID != props.ResourceID {
			t.Errorf("RID changed on replace: %s -> %s", props.ResourceID, got.ResourceID)
		}
		for _, id := range []string{"i1", "i2"} {
			if _, err := cc.ReadItem(bg, pk, id, nil); err != nil {
				t.Errorf("item %s after replace: %v", id, err)
			}
		}
		// replace without defaultTtl turns TTL off
		props = *got
		props.DefaultTimeToLive = nil
		if _, err := cc.Replace(bg, props, nil); err != nil {
			t.Fatal(err)
		}
		resp := f.rawFor(t).do(http.MethodGet, "/dbs/cdb/colls/repl", nil)
		if _, ok := rawMembers(t, resp.Body)["defaultTtl"]; ok {
			t.Errorf("defaultTtl still present: %s", resp.Body)
		}

		// the partition key cannot change
		bad := props
		bad.PartitionKeyDefinition = azcosmos.PartitionKeyDefinition{Paths: []string{"/other"}}
		_, err = cc.Replace(bg, bad, nil)
		sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
		bad.PartitionKeyDefinition = azcosmos.PartitionKeyDefinition{Paths: []string{"/pk", "/x"}, Kind: azcosmos.PartitionKeyKindMultiHash}
		_, err = cc.Replace(bg, bad, nil)
		sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
		raw := f.rawFor(t)
		// nor the id, nor can defaultTtl be invalid
		wantError(t, raw.do(http.MethodPut, "/dbs/cdb/colls/repl", []byte(`{"id":"other","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusBadRequest, "BadRequest")
		wantError(t, raw.do(http.MethodPut, "/dbs/cdb/colls/repl", []byte(`{"id":"repl","partitionKey":{"paths":["/pk"],"kind":"Hash"},"defaultTtl":0}`)), http.StatusBadRequest, "BadRequest")
		wantError(t, raw.do(http.MethodPut, "/dbs/cdb/colls/repl", []byte(`{"id":"repl"`)), http.StatusBadRequest, "BadRequest")
		cr, err = cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cr.ContainerProperties.PartitionKeyDefinition.Paths, []string{"/pk"}) || cr.ContainerProperties.DefaultTimeToLive != nil {
			t.Errorf("failed replaces changed the container: %+v", cr.ContainerProperties)
		}
		// a missing container
		wantError(t, raw.do(http.MethodPut, "/dbs/cdb/colls/nosuch", []byte(`{"id":"nosuch","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusNotFound, "NotFound")
	})

	t.Run("list query delete", func(t *testing.T) {
		t.Parallel()
		ldb := mustDB(t, c, "listdb")
		rids := map[string]bool{}
		names := []string{"a1", "a2", "a3", "a4", "a5"}
		for _, n := range names {
			cc := mustContainer(t, ldb, n)
			r, err := cc.Read(bg, nil)
			if err != nil {
				t.Fatal(err)
			}
			rids[r.ContainerProperties.ResourceID] = true
		}
		raw := f.rawFor(t)
		resp := raw.do(http.MethodGet, "/dbs/listdb/colls", nil)
		wantStatus(t, resp, http.StatusOK)
		env := object(t, resp.Body)
		lr, _ := ldb.Read(bg, nil)
		if env["_rid"] != lr.DatabaseProperties.ResourceID {
			t.Errorf("_rid = %v, want the database RID %s", env["_rid"], lr.DatabaseProperties.ResourceID)
		}
		colls, _ := env["DocumentCollections"].([]any)
		if len(colls) != 5 || env["_count"] != json.Number("5") || resp.Header.Get("x-ms-item-count") != "5" {
			t.Fatalf("list = %s", resp.Body)
		}
		for i, n := range names {
			if colls[i].(map[string]any)["id"] != n {
				t.Errorf("DocumentCollections[%d] = %v", i, colls[i].(map[string]any)["id"])
			}
		}
		// query by id
		pager := ldb.NewQueryContainersPager("SELECT * FROM c WHERE c.id = @id", &azcosmos.QueryContainersOptions{
			QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: "a3"}},
		})
		var got []string
		for pager.More() {
			page, err := pager.NextPage(bg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page.Containers {
				got = append(got, p.ID)
				if p.PartitionKeyDefinition.Paths[0] != "/pk" {
					t.Errorf("queried container lacks its partition key: %+v", p)
				}
			}
		}
		if len(got) != 1 || got[0] != "a3" {
			t.Errorf("query = %v, want [a3]", got)
		}
		// delete
		cc, _ := ldb.NewContainer("a2")
		dr, err := cc.Delete(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if dr.RawResponse.StatusCode != http.StatusNoContent {
			t.Errorf("delete status %d", dr.RawResponse.StatusCode)
		}
		_, err = cc.Read(bg, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		_, err = cc.Delete(bg, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		resp = raw.do(http.MethodGet, "/dbs/listdb/colls", nil)
		if n := len(object(t, resp.Body)["DocumentCollections"].([]any)); n != 4 {
			t.Errorf("%d containers after delete, want 4", n)
		}
		// list of a missing database
		wantError(t, raw.do(http.MethodGet, "/dbs/nodb/colls", nil), http.StatusNotFound, "NotFound")

		// RIDs: unique, 8 bytes, URL- and SQL-safe, container bit set
		for i := 0; i < 5; i++ {
			cc := mustContainer(t, db, fmt.Sprintf("rid%d", i))
			r, err := cc.Read(bg, nil)
			if err != nil {
				t.Fatal(err)
			}
			rids[r.ContainerProperties.ResourceID] = true
		}
		if len(rids) != 10 {
			t.Errorf("container RIDs are not unique: %v", rids)
		}
		for rid := range rids {
			if strings.ContainsAny(rid, `/'"?#% `) {
				t.Errorf("RID %q has unsafe characters", rid)
			}
			b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(rid, "-", "/"))
			if err != nil || len(b) != 8 || b[4]&0x80 == 0 {
				t.Errorf("RID %q: %v %x", rid, err, b)
			}
		}
	})

	t.Run("missing container", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		item := []byte(`{"id":"x","pk":"a"}`)
		for _, coll := range []string{"/dbs/cdb/colls/nosuch", "/dbs/nodb/colls/nosuch"} {
			for _, tc := range []struct {
				method, path string
				body         []byte
				hdr          []string
			}{
				{http.MethodGet, coll, nil, nil},
				{http.MethodDelete, coll, nil, nil},
				{http.MethodGet, coll + "/pkranges", nil, nil},
				{http.MethodPost, coll + "/docs", item, []string{pkHeader, `["a"]`}},
				{http.MethodPost, coll + "/docs", item, []string{pkHeader, `["a"]`, "x-ms-documentdb-is-upsert", "True"}},
				{http.MethodGet, coll + "/docs", nil, nil},
				{http.MethodGet, coll + "/docs/x", nil, []string{pkHeader, `["a"]`}},
				{http.MethodPut, coll + "/docs/x", item, []string{pkHeader, `["a"]`}},
				{http.MethodPatch, coll + "/docs/x", []byte(`{"operations":[{"op":"set","path":"/a","value":1}]}`), []string{pkHeader, `["a"]`}},
				{http.MethodDelete, coll + "/docs/x", nil, []string{pkHeader, `["a"]`}},
			} {
				resp := raw.do(tc.method, tc.path, tc.body, tc.hdr...)
				if resp.Status != http.StatusNotFound {
					t.Errorf("%s %s: status %d, want 404; %s", tc.method, tc.path, resp.Status, resp.Body)
					continue
				}
				if code, _ := errorBody(t, resp.Body); code != "NotFound" {
					t.Errorf("%s %s: code %s", tc.method, tc.path, code)
				}
			}
		}
		cc, _ := db.NewContainer("nosuch")
		_, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString("a"), item, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		_, err = cc.ReadItem(bg, azcosmos.NewPartitionKeyString("a"), "x", nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
	})

	t.Run("throughput", func(t *testing.T) {
		t.Parallel()
		manual := azcosmos.NewManualThroughputProperties(400)
		if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "tpm", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
			&azcosmos.CreateContainerOptions{ThroughputProperties: &manual}); err != nil {
			t.Fatal(err)
		}
		auto := azcosmos.NewAutoscaleThroughputProperties(5000)
		if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "tpa", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
			&azcosmos.CreateContainerOptions{ThroughputProperties: &auto}); err != nil {
			t.Fatal(err)
		}
		ccm, _ := db.NewContainer("tpm")
		tr, err := ccm.ReadThroughput(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := tr.ThroughputProperties.ManualThroughput(); !ok || v != 400 {
			t.Errorf("manual = %d %v", v, ok)
		}
		tr, err = ccm.ReplaceThroughput(bg, azcosmos.NewManualThroughputProperties(500), nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := tr.ThroughputProperties.ManualThroughput(); v != 500 {
			t.Errorf("replaced manual = %d", v)
		}
		cca, _ := db.NewContainer("tpa")
		tr, err = cca.ReadThroughput(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := tr.ThroughputProperties.AutoscaleMaxThroughput(); !ok || v != 5000 {
			t.Errorf("autoscale = %d %v", v, ok)
		}
		tr, err = cca.ReplaceThroughput(bg, azcosmos.NewAutoscaleThroughputProperties(10000), nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := tr.ThroughputProperties.AutoscaleMaxThroughput(); v != 10000 {
			t.Errorf("replaced autoscale = %d", v)
		}
		// a container created without throughput, in a database without
		// shared throughput, gets the service's 400 RU/s: readable,
		// replaceable and listed
		ccn := mustContainer(t, db, "tpnone")
		tr, err = ccn.ReadThroughput(bg, nil)
		if err != nil {
			t.Fatalf("read the default throughput: %v", err)
		}
		if v, ok := tr.ThroughputProperties.ManualThroughput(); !ok || v != 400 {
			t.Errorf("default throughput = %d %v, want manual 400", v, ok)
		}
		nr, err := ccn.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		rid := nr.ContainerProperties.ResourceID
		raw := f.rawFor(t)
		var offerID string
		for _, o := range object(t, raw.do(http.MethodGet, "/offers", nil).Body)["Offers"].([]any) {
			if om := o.(map[string]any); om["offerResourceId"] == rid {
				offerID, _ = om["id"].(string)
				if om["resource"] != nr.ContainerProperties.SelfLink {
					t.Errorf("offer resource = %v, want %s", om["resource"], nr.ContainerProperties.SelfLink)
				}
			}
		}
		if offerID == "" {
			t.Fatalf("GET /offers does not list the container's offer")
		}
		resp := raw.do(http.MethodGet, "/offers/"+offerID, nil)
		wantStatus(t, resp, http.StatusOK)
		if got := compactJSON(t, rawMembers(t, resp.Body)["content"]); !strings.HasPrefix(got, `{"offerThroughput":400,`) {
			t.Errorf("offer content = %s", got)
		}
		if tr, err = ccn.ReplaceThroughput(bg, azcosmos.NewManualThroughputProperties(600), nil); err != nil {
			t.Fatal(err)
		}
		if v, _ := tr.ThroughputProperties.ManualThroughput(); v != 600 {
			t.Errorf("replaced default throughput = %d", v)
		}

		// in a database with shared throughput, a container without its
		// own has no offer (the SDK turns the empty offer query into 404);
		// one with its own has it
		shared := azcosmos.NewManualThroughputProperties(400)
		if _, err := f.c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "shareddb"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: &shared}); err != nil {
			t.Fatal(err)
		}
		sdb, _ := f.c.NewDatabase("shareddb")
		_, err = mustContainer(t, sdb, "inshared").ReadThroughput(bg, nil)
		sdkErr(t, err, http.StatusNotFound)
		own := azcosmos.NewManualThroughputProperties(700)
		if _, err := sdb.CreateContainer(bg, azcosmos.ContainerProperties{ID: "own", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
			&azcosmos.CreateContainerOptions{ThroughputProperties: &own}); err != nil {
			t.Fatal(err)
		}
		cco, _ := sdb.NewContainer("own")
		tr, err = cco.ReadThroughput(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := tr.ThroughputProperties.ManualThroughput(); v != 700 {
			t.Errorf("own throughput in a shared database = %d, want 700", v)
		}
	})
}

func TestPartitionKeyRanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "pkrdb")
	cc := mustContainer(t, db, "c")
	cr, err := cc.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	collRID := cr.ContainerProperties.ResourceID
	raw := f.rawFor(t)

	for _, hdr := range [][]string{nil, {"A-IM", "Incremental Feed", "x-ms-max-item-count", "-1"}} {
		resp := raw.do(http.MethodGet, "/dbs/pkrdb/colls/c/pkranges", nil, hdr...)
		wantStatus(t, resp, http.StatusOK)
		etag := resp.Header.Get("etag")
		if etag == "" {
			t.Fatal("pkranges without etag")
		}
		env := object(t, resp.Body)
		ranges, _ := env["PartitionKeyRanges"].([]any)
		if env["_rid"] != collRID || env["_count"] != json.Number("1") || len(ranges) != 1 {
			t.Fatalf("pkranges = %s", resp.Body)
		}
		r := ranges[0].(map[string]any)
		if r["id"] != "0" || r["minInclusive"] != "" || r["maxExclusive"] != "FF" {
			t.Errorf("range = %v", r)
		}
		if !isJSONInteger(r["_ts"]) || (r["lsn"] != nil && !isJSONInteger(r["lsn"])) {
			t.Errorf("range _ts/lsn not integers: %v", r)
		}
		if p, ok := r["parents"].([]any); !ok || len(p) != 0 {
			t.Errorf("parents = %v", r["parents"])
		}
		// unchanged: 304 with the etag and no body
		resp = raw.do(http.MethodGet, "/dbs/pkrdb/colls/c/pkranges", nil, append(hdr, "If-None-Match", etag)...)
		wantStatus(t, resp, http.StatusNotModified)
		if len(resp.Body) != 0 {
			t.Errorf("304 with a body: %q", resp.Body)
		}
		if resp.Header.Get("etag") != etag {
			t.Errorf("304 etag %q, want %q", resp.Header.Get("etag"), etag)
		}
		// a stale etag: the ranges again
		resp = raw.do(http.MethodGet, "/dbs/pkrdb/colls/c/pkranges", nil, append(hdr, "If-None-Match", `"stale"`)...)
		wantStatus(t, resp, http.StatusOK)
	}

	// .NET reads them by RID and signs the lower-cased container RID
	dr, err := db.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ridPath := "/dbs/" + dr.DatabaseProperties.ResourceID + "/colls/" + collRID + "/pkranges"
	r := raw.req(http.MethodGet, ridPath, nil)
	r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+
		signature(masterKey(t), "GET", "pkranges", strings.ToLower(collRID), r.Header.Get("x-ms-date"))))
	resp := raw.send(r)
	wantStatus(t, resp, http.StatusOK)
	if env := object(t, resp.Body); env["_rid"] != collRID {
		t.Errorf("pkranges by RID = %s", resp.Body)
	}

	// the SDK's feed ranges drain the pkranges feed to its 304
	frs, err := cc.ReadFeedRanges(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(frs) != 1 || frs[0].MinInclusive != "" || frs[0].MaxExclusive != "FF" {
		t.Errorf("feed ranges = %+v", frs)
	}
	wantError(t, raw.do(http.MethodGet, "/dbs/pkrdb/colls/nosuch/pkranges", nil), http.StatusNotFound, "NotFound")
}
