package compat_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestContainerPolicies checks the policies of container bodies through
// the SDK and the wire: the defaults the service fills in, the shapes it
// refuses (each a 400 that stores nothing) and the replaces it refuses.
func TestContainerPolicies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "poldb")
	const defaultPolicy = `{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/\"_etag\"/?"}]}`

	t.Run("indexing policy defaults", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		for _, tc := range []struct{ id, policy, want string }{
			{"ipempty", `{}`, defaultPolicy},
			{"ippartial", `{"indexingMode":"Consistent","automatic":true}`, defaultPolicy},
			{"ipexcl", `{"excludedPaths":[{"path":"/big/*"}]}`,
				`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/big/*"},{"path":"/\"_etag\"/?"}]}`},
			{"ipnone", `{"indexingMode":"None","automatic":false}`, `{"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]}`},
		} {
			resp := raw.do(http.MethodPost, "/dbs/poldb/colls", []byte(`{"id":"`+tc.id+`","partitionKey":{"paths":["/pk"]},"indexingPolicy":`+tc.policy+`}`))
			wantStatus(t, resp, http.StatusCreated)
			if got := compactJSON(t, rawMembers(t, resp.Body)["indexingPolicy"]); got != tc.want {
				t.Errorf("%s: indexingPolicy\n got %s\nwant %s", tc.policy, got, tc.want)
			}
		}
		// the SDK reads the filled-in policy back
		cc, _ := db.NewContainer("ipempty")
		cr, err := cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: "consistent",
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}}, ExcludedPaths: []azcosmos.ExcludedPath{{Path: `/"_etag"/?`}}}
		if !reflect.DeepEqual(cr.ContainerProperties.IndexingPolicy, want) {
			t.Errorf("SDK read %+v, want %+v", cr.ContainerProperties.IndexingPolicy, want)
		}
	})

	t.Run("indexing mode none", func(t *testing.T) {
		t.Parallel()
		// what the Go SDK's own emulator test does: replace with mode none
		cc := mustContainer(t, db, "none")
		cr, err := cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		props := *cr.ContainerProperties
		props.IndexingPolicy = &azcosmos.IndexingPolicy{IndexingMode: azcosmos.IndexingModeNone}
		if _, err := cc.Replace(bg, props, nil); err != nil {
			t.Fatalf("replace with mode none: %v", err)
		}
		// turning TTL on while indexing is off is refused
		ttl := int32(60)
		props.DefaultTimeToLive = &ttl
		msg := sdkErrCode(t, mustFail(cc.Replace(bg, props, nil)), http.StatusBadRequest, "BadRequest")
		if !strings.Contains(msg, "Indexing mode value cannot be 'none' when 'defaultTtl' is specified in the collection") {
			t.Errorf("message %q", msg)
		}
		// and so is turning indexing off on a container with TTL
		withTTL := azcosmos.ContainerProperties{ID: "nonettl", DefaultTimeToLive: &ttl, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
		if _, err := db.CreateContainer(bg, withTTL, nil); err != nil {
			t.Fatal(err)
		}
		ct, _ := db.NewContainer("nonettl")
		withTTL.IndexingPolicy = &azcosmos.IndexingPolicy{IndexingMode: azcosmos.IndexingModeNone}
		sdkErrCode(t, mustFail(ct.Replace(bg, withTTL, nil)), http.StatusBadRequest, "BadRequest")
		got, err := ct.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.ContainerProperties.DefaultTimeToLive == nil || got.ContainerProperties.IndexingPolicy.IndexingMode != "consistent" {
			t.Errorf("refused replaces changed the container: %+v", got.ContainerProperties)
		}
		// mode none with automatic true: the service's refusal, and the
		// container is left as it was
		withTTL.IndexingPolicy = &azcosmos.IndexingPolicy{IndexingMode: azcosmos.IndexingModeNone, Automatic: true}
		withTTL.DefaultTimeToLive = nil
		msg = sdkErrCode(t, mustFail(ct.Replace(bg, withTTL, nil)), http.StatusBadRequest, "BadRequest")
		if !strings.Contains(msg, "Indexing mode value cannot be 'none' when automatic indexing is specified as 'true'.") {
			t.Errorf("message %q", msg)
		}
		if got, err = ct.Read(bg, nil); err != nil {
			t.Fatal(err)
		}
		if ip := got.ContainerProperties.IndexingPolicy; ip.IndexingMode != "consistent" {
			t.Errorf("the refused replace changed the policy: %+v", ip)
		}
	})

	t.Run("refused bodies", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		for _, tc := range []struct{ id, rest, msg string }{
			{"pkspace", `"partitionKey":{"paths":["/id ds"]}`,
				"The partition key component definition path '/id ds' could not be accepted, failed near position '3'."},
			{"pkhier", `"partitionKey":{"paths":["/tenant","user"],"kind":"MultiHash","version":2}`, "path 'user' could not be accepted"},
			{"pkversion", `"partitionKey":{"paths":["/pk"],"version":7}`, "version"},
			{"vecnoemb", `"partitionKey":{"paths":["/pk"]},"indexingPolicy":{"vectorIndexes":[{"path":"/vector1","type":"flat"}]}`,
				`The Vector Indexing Policy's path::\/vector1 not matching in Embedding's path.`},
			{"nonettl2", `"partitionKey":{"paths":["/pk"]},"defaultTtl":-1,"indexingPolicy":{"indexingMode":"none","automatic":false}`,
				"Indexing mode value cannot be 'none' when 'defaultTtl' is specified in the collection"},
			{"noneauto", `"partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"none","automatic":true}`,
				"Indexing mode value cannot be 'none' when automatic indexing is specified as 'true'."},
			{"composite", `"partitionKey":{"paths":["/pk"]},"indexingPolicy":{"compositeIndexes":[[{"path":"/a'); DROP TABLE x; --"},{"path":"/b"}]]}`,
				"could not be accepted"},
			{"included", `"partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/a;b/?"}]}`, "The indexing path '/a;b/?' could not be accepted"},
			{"unique", `"partitionKey":{"paths":["/pk"]},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/a\\b"]}]}`, "could not be accepted"},
			{"nul", `"partitionKey":{"paths":["/pk"]},"indexingPolicy":{"excludedPaths":[{"path":"/a\u0000/?"}]}`, "could not be accepted"},
		} {
			msg := wantError(t, raw.do(http.MethodPost, "/dbs/poldb/colls", []byte(`{"id":"`+tc.id+`",`+tc.rest+`}`)), http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("%s: message %q does not contain %q", tc.id, msg, tc.msg)
			}
			wantError(t, raw.do(http.MethodGet, "/dbs/poldb/colls/"+tc.id, nil), http.StatusNotFound, "NotFound")
		}
	})

	t.Run("vector policies are fixed", func(t *testing.T) {
		t.Parallel()
		props := azcosmos.ContainerProperties{
			ID:                     "vec",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
			VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
				{Path: "/v1", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 3},
				{Path: "/v2", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionDotProduct, Dimensions: 3},
			}},
			IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
				IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
				ExcludedPaths: []azcosmos.ExcludedPath{{Path: `/"_etag"/?`}, {Path: "/v1/*"}, {Path: "/v2/*"}},
				VectorIndexes: []azcosmos.VectorIndex{{Path: "/v1", Type: azcosmos.VectorIndexTypeFlat}}},
		}
		if _, err := db.CreateContainer(bg, props, nil); err != nil {
			t.Fatal(err)
		}
		cc, _ := db.NewContainer("vec")
		cr, err := cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		// replacing with what was read is fine
		cur := *cr.ContainerProperties
		if _, err := cc.Replace(bg, cur, nil); err != nil {
			t.Fatalf("replace unchanged: %v", err)
		}
		// changing a vector index is refused
		changed := cur
		ip := *cur.IndexingPolicy
		ip.VectorIndexes = []azcosmos.VectorIndex{{Path: "/v1", Type: azcosmos.VectorIndexTypeQuantizedFlat}}
		changed.IndexingPolicy = &ip
		sdkErrCode(t, mustFail(cc.Replace(bg, changed, nil)), http.StatusBadRequest, "BadRequest")
		ip.VectorIndexes = append(cur.IndexingPolicy.VectorIndexes, azcosmos.VectorIndex{Path: "/v2", Type: azcosmos.VectorIndexTypeFlat})
		sdkErrCode(t, mustFail(cc.Replace(bg, changed, nil)), http.StatusBadRequest, "BadRequest")
		// so is dropping the embeddings
		changed = cur
		changed.VectorEmbeddingPolicy = nil
		changed.IndexingPolicy = &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent}
		sdkErrCode(t, mustFail(cc.Replace(bg, changed, nil)), http.StatusBadRequest, "BadRequest")
		cr, err = cc.Read(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cr.ContainerProperties.IndexingPolicy.VectorIndexes; !reflect.DeepEqual(got, props.IndexingPolicy.VectorIndexes) {
			t.Errorf("vector indexes after refused replaces = %+v", got)
		}
	})
}

// mustFail returns the error of an SDK call that must fail.
func mustFail[T any](_ T, err error) error { return err }

// TestLegacyRootIndexingPolicy: the policy the JS SDK's own cross-partition,
// aggregate and spatial specs create their containers with (the legacy
// root "/" with an indexes array) is accepted as the service and
// Microsoft's emulator accept it (it was refused with 400 "The indexing
// path '/' could not be accepted", failing 56 of those specs), stored
// and returned as sent, and queries over it filter and sort (served as /*).
func TestLegacyRootIndexingPolicy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mustDB(t, f.c, "legacydb")
	const policy = `{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Range","dataType":"String","precision":-1}]}],"excludedPaths":[{"path":"/\"_etag\"/?"}]}`
	resp := f.raw.do(http.MethodPost, "/dbs/legacydb/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"},"indexingPolicy":`+policy+`}`))
	wantStatus(t, resp, http.StatusCreated)
	if got := compactJSON(t, rawMembers(t, resp.Body)["indexingPolicy"]); got != policy {
		t.Fatalf("indexingPolicy\n got %s\nwant %s", got, policy)
	}
	read := f.raw.do(http.MethodGet, "/dbs/legacydb/colls/c", nil)
	wantStatus(t, read, http.StatusOK)
	if got := compactJSON(t, rawMembers(t, read.Body)["indexingPolicy"]); got != policy {
		t.Fatalf("read indexingPolicy\n got %s\nwant %s", got, policy)
	}
	for _, doc := range []string{`{"id":"a","pk":"p","n":3}`, `{"id":"b","pk":"p","n":1}`, `{"id":"c","pk":"p","n":2}`} {
		wantStatus(t, f.raw.do(http.MethodPost, docsPath("legacydb", "c"), []byte(doc), pkHeader, `["p"]`), http.StatusCreated)
	}
	q := f.raw.do(http.MethodPost, docsPath("legacydb", "c"), queryBody("SELECT VALUE c.id FROM c WHERE c.n >= 2 ORDER BY c.n"),
		append([]string{pkHeader, `["p"]`}, queryHeaders...)...)
	wantStatus(t, q, http.StatusOK)
	if got := compactJSON(t, rawMembers(t, q.Body)["Documents"]); got != `["c","a"]` {
		t.Fatalf("query results %s, want [\"c\",\"a\"]", got)
	}
}
