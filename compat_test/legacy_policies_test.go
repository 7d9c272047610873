package compat_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// etagExcluded is the system path the service adds to excludedPaths.
const etagExcluded = `{"path":"/\"_etag\"/?"}`

// TestLegacyIndexingPolicies: legacy and unusual-but-valid indexing
// policies (the legacy indexes arrays with any kind, dataType and
// precision, the root "/", "/path/?", "/arr/[]/?", quoted labels, enum
// values in any case, only excludedPaths, the SDKs' sample policies) are
// accepted by the real server, read back as the service returns them (the
// mode lower-case, reference §1.5.3; the rest as sent) through the wire and
// through azcosmos, and an ORDER BY on a path they index answers through
// azcosmos. Bodies azcosmos' model cannot express (indexes arrays) are sent
// raw; azcosmos reads every one back.
func TestLegacyIndexingPolicies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "legacypol")
	tests := []struct {
		name, rest, want string
	}{
		{"JS SDK specs: legacy root with Range and Spatial indexes, Consistent",
			`"indexingPolicy":{"indexingMode":"Consistent","automatic":true,"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Range","dataType":"String","precision":-1},{"kind":"Spatial","dataType":"Point"}]}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Range","dataType":"String","precision":-1},{"kind":"Spatial","dataType":"Point"}]}],"excludedPaths":[` + etagExcluded + `]}`},
		{"/* with Hash, precision 3 and every spatial data type",
			`"indexingPolicy":{"includedPaths":[{"path":"/*","indexes":[{"kind":"Hash","dataType":"String","precision":3},{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Spatial","dataType":"Point"},{"kind":"Spatial","dataType":"Polygon"},{"kind":"Spatial","dataType":"LineString"},{"kind":"Spatial","dataType":"MultiPolygon"}]}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*","indexes":[{"kind":"Hash","dataType":"String","precision":3},{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Spatial","dataType":"Point"},{"kind":"Spatial","dataType":"Polygon"},{"kind":"Spatial","dataType":"LineString"},{"kind":"Spatial","dataType":"MultiPolygon"}]}],"excludedPaths":[` + etagExcluded + `]}`},
		{"kind and dataType in any case",
			`"indexingPolicy":{"indexingMode":"CONSISTENT","includedPaths":[{"path":"/*","indexes":[{"kind":"range","dataType":"number","precision":-1},{"kind":"HASH","dataType":"STRING"}]}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*","indexes":[{"kind":"range","dataType":"number","precision":-1},{"kind":"HASH","dataType":"STRING"}]}],"excludedPaths":[` + etagExcluded + `]}`},
		{"scalar, array and quoted paths, legacy root excluded",
			`"indexingPolicy":{"includedPaths":[{"path":"/n/?","indexes":[{"kind":"Range","dataType":"Number","precision":-1}]},{"path":"/arr/[]/?"},{"path":"/\"key with space\"/?"}],"excludedPaths":[{"path":"/"}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/n/?","indexes":[{"kind":"Range","dataType":"Number","precision":-1}]},{"path":"/arr/[]/?"},{"path":"/\"key with space\"/?"}],"excludedPaths":[{"path":"/"},` + etagExcluded + `]}`},
		{"only excludedPaths",
			`"indexingPolicy":{"excludedPaths":[{"path":"/big/*"}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/big/*"},` + etagExcluded + `]}`},
		{"Lazy, automatic false",
			`"indexingPolicy":{"indexingMode":"Lazy","automatic":false}`,
			`{"indexingMode":"lazy","automatic":false,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagExcluded + `]}`},
		{"None, automatic false",
			`"indexingPolicy":{"indexingMode":"None","automatic":false}`,
			`{"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]}`},
		{"composite orders and spatial types in any case",
			`"indexingPolicy":{"compositeIndexes":[[{"path":"/n","order":"Ascending"},{"path":"/id","order":"DESCENDING"}]],"spatialIndexes":[{"path":"/loc/*","types":["point","POLYGON"]}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagExcluded + `],"compositeIndexes":[[{"path":"/n","order":"Ascending"},{"path":"/id","order":"DESCENDING"}]],"spatialIndexes":[{"path":"/loc/*","types":["point","POLYGON"]}]}`},
		{"Go SDK TestContainerVectorSearch with JS vector index options",
			`"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/embedding","dataType":"float32","distanceFunction":"Cosine","dimensions":3}]},` +
				`"indexingPolicy":{"automatic":true,"indexingMode":"consistent","includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/\"_etag\"/?"},{"path":"/embedding/*"}],"vectorIndexes":[{"path":"/embedding","type":"quantizedFlat","quantizationByteSize":2,"indexingSearchListSize":50}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagExcluded + `,{"path":"/embedding/*"}],"vectorIndexes":[{"path":"/embedding","type":"quantizedFlat","quantizationByteSize":2,"indexingSearchListSize":50}]}`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := f.rawFor(t)
			id := "c" + string(rune('a'+i))
			start := time.Now()
			resp := raw.do(http.MethodPost, "/dbs/legacypol/colls", []byte(`{"id":"`+id+`","partitionKey":{"paths":["/pk"],"kind":"Hash"},`+tt.rest+`}`))
			wantStatus(t, resp, http.StatusCreated)
			t.Logf("created in %v", time.Since(start))
			if got := compactJSON(t, rawMembers(t, resp.Body)["indexingPolicy"]); got != tt.want {
				t.Fatalf("create answered indexingPolicy\n got %s\nwant %s", got, tt.want)
			}
			read := raw.do(http.MethodGet, "/dbs/legacypol/colls/"+id, nil)
			wantStatus(t, read, http.StatusOK)
			if got := compactJSON(t, rawMembers(t, read.Body)["indexingPolicy"]); got != tt.want {
				t.Fatalf("read indexingPolicy\n got %s\nwant %s", got, tt.want)
			}
			cc, _ := db.NewContainer(id)
			cr, err := cc.Read(bg, nil)
			if err != nil {
				t.Fatalf("azcosmos read: %v", err)
			}
			var want struct {
				IndexingMode azcosmos.IndexingMode `json:"indexingMode"`
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if got := cr.ContainerProperties.IndexingPolicy.IndexingMode; got != want.IndexingMode {
				t.Errorf("azcosmos read mode %q, want %q", got, want.IndexingMode)
			}
			for _, doc := range []string{`{"id":"a","pk":"p","n":3}`, `{"id":"b","pk":"p","n":1}`, `{"id":"c","pk":"p","n":2}`} {
				if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString("p"), []byte(doc), nil); err != nil {
					t.Fatal(err)
				}
			}
			pager := cc.NewQueryItemsPager("SELECT VALUE c.id FROM c WHERE c.n >= 2 ORDER BY c.n DESC", azcosmos.NewPartitionKeyString("p"), nil)
			var ids []string
			for pager.More() {
				page, err := pager.NextPage(bg)
				if err != nil {
					t.Fatalf("ORDER BY query: %v", err)
				}
				for _, it := range page.Items {
					ids = append(ids, strings.Trim(string(it), `"`))
				}
			}
			if !reflect.DeepEqual(ids, []string{"a", "c"}) {
				t.Errorf("ORDER BY c.n DESC = %v, want [a c]", ids)
			}
		})
	}
}

// TestContainerErrorTexts: the container errors the SDKs' specs compare,
// through azcosmos and raw REST: a vector index without its embedding
// quotes the path with '/' escaped as the service does
// (path::\/vector1); a replace that changes the vector indexes is refused
// with the service's text, also when its body lacks every other member
// (that check runs before the body's validation); and a body over the
// request size limit is 413 with the service's envelope.
func TestContainerErrorTexts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "errtexts")
	const vecMsg = "The Vector Indexing Policy cannot be changed in Collection Replace"

	bad := azcosmos.ContainerProperties{ID: "vecbad", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			VectorIndexes: []azcosmos.VectorIndex{{Path: "/vector1", Type: azcosmos.VectorIndexTypeFlat}}}}
	msg := sdkErrCode(t, mustFail(db.CreateContainer(bg, bad, nil)), http.StatusBadRequest, "BadRequest")
	if want := `The Vector Indexing Policy's path::\/vector1 not matching in Embedding's path.`; msg != want {
		t.Errorf("vector index without embedding: message %q, want %q", msg, want)
	}

	props := azcosmos.ContainerProperties{ID: "vec", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{
			{Path: "/vector1", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionEuclidean, Dimensions: 3}}},
		IndexingPolicy: &azcosmos.IndexingPolicy{Automatic: true, IndexingMode: azcosmos.IndexingModeConsistent,
			VectorIndexes: []azcosmos.VectorIndex{{Path: "/vector1", Type: azcosmos.VectorIndexTypeFlat}}}}
	if _, err := db.CreateContainer(bg, props, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("vec")
	changed := props
	ip := *props.IndexingPolicy
	ip.VectorIndexes = []azcosmos.VectorIndex{{Path: "/vector1", Type: azcosmos.VectorIndexTypeQuantizedFlat}}
	changed.IndexingPolicy = &ip
	msg = sdkErrCode(t, mustFail(cc.Replace(bg, changed, nil)), http.StatusBadRequest, "BadRequest")
	if !strings.Contains(msg, vecMsg) {
		t.Errorf("azcosmos replace: message %q, want %q", msg, vecMsg)
	}
	// the body of the JS SDK's spec: only the id and the changed indexes
	for _, body := range []string{
		`{"id":"vec","indexingPolicy":{"vectorIndexes":[{"path":"/vector1","type":"quantizedFlat"}]}}`,
		`{"id":"vec","indexingPolicy":{"vectorIndexes":[]}}`,
	} {
		msg = wantError(t, f.raw.do(http.MethodPut, "/dbs/errtexts/colls/vec", []byte(body)), http.StatusBadRequest, "BadRequest")
		if !strings.Contains(msg, vecMsg) {
			t.Errorf("%s: message %q, want %q", body, msg, vecMsg)
		}
	}
	// a body lacking the partition key, vector indexes unchanged: the
	// body's own validation answers
	msg = wantError(t, f.raw.do(http.MethodPut, "/dbs/errtexts/colls/vec", []byte(`{"id":"vec","indexingPolicy":{"vectorIndexes":[{"path":"/vector1","type":"flat"}]},"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/vector1","dataType":"float32","distanceFunction":"euclidean","dimensions":3}]}}`)),
		http.StatusBadRequest, "BadRequest")
	if !strings.Contains(msg, "partition key definition is missing") {
		t.Errorf("unchanged vector indexes, no partition key: message %q", msg)
	}

	// 413: a 3 MiB document, through azcosmos
	items := mustContainer(t, db, "items")
	big := []byte(`{"id":"big","pk":"p","s":"` + strings.Repeat("x", 3<<20) + `"}`)
	start := time.Now()
	_, err := items.CreateItem(bg, azcosmos.NewPartitionKeyString("p"), big, nil)
	t.Logf("3 MiB create answered in %v", time.Since(start))
	msg = sdkErrCode(t, err, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge")
	const envelope = `Message: {"Errors":["Request size is too large"]}` + "\r\nActivityId: "
	if !strings.HasPrefix(msg, envelope) || len(msg) == len(envelope) {
		t.Errorf("413 message %q, want the envelope %q and the activity id", msg, envelope)
	}
}
