package emulator

import (
	"strings"
	"testing"
)

// normalizeBody runs normalizeContainer on a container body and returns the
// normalized body.
func normalizeBody(t *testing.T, body string) (*Object, error) {
	t.Helper()
	v, err := DecodeJSON([]byte(body))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	obj := v.(*Object)
	_, _, err = normalizeContainer(obj)
	return obj, err
}

// wantBadRequest checks that err is a 400 whose message contains msg.
func wantBadRequest(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want 400 %q", msg)
	}
	if KindOf(err) != KindBadRequest {
		t.Fatalf("kind %v (%v), want BadRequest", KindOf(err), err)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Fatalf("message %q does not contain %q", err, msg)
	}
}

const etagPath = `{"path":"/\"_etag\"/?"}`

func TestNormalizeContainerIndexingPolicy(t *testing.T) {
	const pk = `"partitionKey":{"paths":["/pk"]}`
	tests := []struct {
		name string
		rest string // members after the partition key
		want string // the stored indexingPolicy; "" when refused
		err  string // part of the refusal message
	}{
		{"absent", ``, `{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `]}`, ""},
		{"null", `,"indexingPolicy":null`, `{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `]}`, ""},
		{"empty", `,"indexingPolicy":{}`, `{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `]}`, ""},
		// reference §1.5.3 (recorded): the mode reads back lower-case
		{"partial, Consistent read back lower-case", `,"indexingPolicy":{"automatic":true,"indexingMode":"Consistent"}`, `{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `]}`, ""},
		{"etag appended to the client's exclusions", `,"indexingPolicy":{"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/big/*"}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/big/*"},` + etagPath + `]}`, ""},
		{"root excluded: nothing included by default", `,"indexingPolicy":{"excludedPaths":[{"path":"/*"}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[],"excludedPaths":[{"path":"/*"},` + etagPath + `]}`, ""},
		{"other members kept after the path lists", `,"indexingPolicy":{"compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]],"indexingMode":"lazy"}`,
			`{"indexingMode":"lazy","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `],"compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]]}`, ""},
		{"none without paths", `,"indexingPolicy":{"indexingMode":"none","automatic":false}`, `{"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]}`, ""},
		{"None is none", `,"indexingPolicy":{"indexingMode":"None","automatic":false}`, `{"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]}`, ""},
		{"none, automatic absent", `,"indexingPolicy":{"indexingMode":"none"}`, `{"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]}`, ""},
		// the service's refusal (its SDKs' tests switch to mode none
		// with automatic false)
		{"none with automatic true", `,"indexingPolicy":{"indexingMode":"none","automatic":true}`, "",
			"Indexing mode value cannot be 'none' when automatic indexing is specified as 'true'."},
		{"NONE with automatic true", `,"indexingPolicy":{"indexingMode":"NONE","automatic":true}`, "",
			"Indexing mode value cannot be 'none' when automatic indexing is specified as 'true'."},
		// kept refusal: reference §5.6 (the service's text, azure-docs#29213)
		{"none with defaultTtl", `,"defaultTtl":-1,"indexingPolicy":{"indexingMode":"none","automatic":false}`, "",
			"Indexing mode value cannot be 'none' when 'defaultTtl' is specified in the collection"},
		{"None with defaultTtl", `,"defaultTtl":3600,"indexingPolicy":{"indexingMode":"None","automatic":false}`, "",
			"Indexing mode value cannot be 'none' when 'defaultTtl' is specified in the collection"},
		{"none with null defaultTtl", `,"defaultTtl":null,"indexingPolicy":{"indexingMode":"none","automatic":false}`, `{"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]}`, ""},
		// no known refusal: kept as sent, indexed as consistent
		{"unknown mode", `,"indexingPolicy":{"indexingMode":"eager"}`, `{"indexingMode":"eager","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `]}`, ""},
		// kept refusals of a member the SDKs' models cannot read back
		// (azcosmos indexing_policy.go: IndexingMode string, Automatic bool)
		{"mode not a string", `,"indexingPolicy":{"indexingMode":1}`, "", "indexing mode"},
		{"automatic not a bool", `,"indexingPolicy":{"automatic":"yes"}`, "", "automatic"},
		{"not an object", `,"indexingPolicy":"consistent"`, "", "indexingPolicy"},
		{"includedPaths not an array", `,"indexingPolicy":{"includedPaths":{"path":"/*"}}`, "", "includedPaths"},
		{"path not a string", `,"indexingPolicy":{"includedPaths":[{"path":1}]}`, "", "path"},
		{"path missing", `,"indexingPolicy":{"excludedPaths":[{}]}`, "", "path"},
		// Legacy and unusual-but-valid policies the service accepts and
		// SDK suites still send: stored as sent (the indexes arrays, the
		// root "/", quoted labels), served like their modern equivalents.
		{"legacy root with indexes (the JS SDK's specs)", `,"indexingPolicy":{"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Range","dataType":"String","precision":-1}]}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Range","dataType":"String","precision":-1}]}],"excludedPaths":[` + etagPath + `]}`, ""},
		{"legacy /* with Hash, Spatial and precision 3", `,"indexingPolicy":{"automatic":true,"indexingMode":"Consistent","includedPaths":[{"path":"/*","indexes":[{"kind":"Hash","dataType":"String","precision":3},{"kind":"Spatial","dataType":"Point"},{"kind":"Spatial","dataType":"Polygon"}]}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*","indexes":[{"kind":"Hash","dataType":"String","precision":3},{"kind":"Spatial","dataType":"Point"},{"kind":"Spatial","dataType":"Polygon"}]}],"excludedPaths":[` + etagPath + `]}`, ""},
		{"legacy root excluded", `,"indexingPolicy":{"excludedPaths":[{"path":"/"}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[],"excludedPaths":[{"path":"/"},` + etagPath + `]}`, ""},
		{"scalar, array and quoted paths", `,"indexingPolicy":{"includedPaths":[{"path":"/path/?"},{"path":"/arr/[]/?"},{"path":"/\"key with space\"/?"}],"excludedPaths":[{"path":"/*"}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/path/?"},{"path":"/arr/[]/?"},{"path":"/\"key with space\"/?"}],"excludedPaths":[{"path":"/*"},` + etagPath + `]}`, ""},
		{"only excludedPaths", `,"indexingPolicy":{"excludedPaths":[{"path":"/big/*"}]}`,
			`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/big/*"},` + etagPath + `]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := normalizeBody(t, `{"id":"c",`+pk+tt.rest+`}`)
			if tt.want == "" {
				wantBadRequest(t, err, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ip, _ := obj.Get("indexingPolicy")
			if got := string(EncodeJSON(ip)); got != tt.want {
				t.Fatalf("indexingPolicy\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestNormalizeContainerPartitionKey(t *testing.T) {
	const pkMsg = "Partition key paths must contain only valid characters and not contain a trailing slash or wildcard character."
	tests := []struct {
		pk  string
		err string // "" when accepted
	}{
		{`{"paths":["/pk"],"kind":"Hash"}`, ""},
		{`{"paths":["/pk"],"kind":"Hash","version":2}`, ""},
		{`{"paths":["/pk"],"kind":"Hash","version":1}`, ""},
		{`{"paths":["/pk"]}`, ""},
		{`{"paths":["/a/b/c"]}`, ""},
		{`{"paths":["/_ts"]}`, ""},
		{`{"paths":["/userId_2"]}`, ""},
		{`{"paths":["/nämé"]}`, ""},
		{`{"paths":["/\"odd name\""]}`, ""},
		{`{"paths":["/\"a-b\"/c"]}`, ""},
		{`{"paths":["/tenant","/user","/session"],"kind":"MultiHash","version":2}`, ""},
		{`{"paths":["/tenant"],"kind":"MultiHash","version":2}`, ""},
		{`{"paths":["/id ds"]}`, "The partition key component definition path '/id ds' could not be accepted, failed near position '3'. " + pkMsg},
		{`{"paths":["/user-id"]}`, "failed near position '5'"},
		{`{"paths":["/tenant","user"],"kind":"MultiHash"}`, "The partition key component definition path 'user' could not be accepted, failed near position '0'."},
		{`{"paths":["/a","/b c"],"kind":"MultiHash"}`, "path '/b c'"},
		{`{"paths":["a"]}`, pkMsg},
		{`{"paths":["/"]}`, pkMsg},
		{`{"paths":[""]}`, pkMsg},
		{`{"paths":["/pk/"]}`, pkMsg},
		{`{"paths":["/pk/*"]}`, pkMsg},
		{`{"paths":["/pk/?"]}`, pkMsg},
		{`{"paths":["/*"]}`, pkMsg},
		{`{"paths":["/a//b"]}`, pkMsg},
		{`{"paths":["/a[]"]}`, pkMsg},
		{`{"paths":["/a;b"]}`, pkMsg},
		{`{"paths":["/a'b"]}`, pkMsg},
		{`{"paths":["/a\"b"]}`, pkMsg},
		{`{"paths":["/\"unterminated"]}`, pkMsg},
		{`{"paths":["/\"\""]}`, pkMsg},
		{`{"paths":["/\"a\\\\b\""]}`, pkMsg},
		{`{"paths":["/a\u0000b"]}`, pkMsg},
		{`{"paths":["/a\tb"]}`, pkMsg},
		{`{"paths":["/` + strings.Repeat("a", 2000) + `"]}`, ""},   // no known length limit
		{`{"paths":["` + strings.Repeat("/a", 200) + `"]}`, pkMsg}, // reference §4: nesting depth 128
		{`{"paths":[1]}`, "partition key"},
		{`{"paths":"/pk"}`, "partition key"},
		{`{"paths":[]}`, "at least one path"},
		{`{"paths":["/a","/b"],"kind":"Hash"}`, "exactly one path"},
		{`{"paths":["/a","/b","/c","/d"],"kind":"MultiHash"}`, "at most 3 paths"},
		{`{"paths":["/a"],"kind":"Range"}`, "'kind' value 'Range'"},
		{`{"paths":["/a"],"kind":"hash"}`, "'kind' value 'hash'"},
		{`{"paths":["/a"],"version":3}`, "version"},
		{`{"paths":["/a"],"version":0}`, "version"},
		{`{"paths":["/a"],"version":"2"}`, "version"},
		{`{"paths":["/a"],"version":2.5}`, "version"},
		{`"/pk"`, "partition key"},
		{`null`, "partition key definition is missing"},
	}
	for _, tt := range tests {
		t.Run(shortName(tt.pk), func(t *testing.T) {
			_, err := normalizeBody(t, `{"id":"c","partitionKey":`+tt.pk+`}`)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantBadRequest(t, err, tt.err)
		})
	}
}

// TestContainerPolicyPaths checks the paths of every container policy: the
// forms the service documents and the SDKs send are accepted, hostile or
// malformed paths are a 400 before anything is stored. The refusals follow
// the documented path syntax (reference §0 and §1.5.3, index-policy: labels,
// quoted labels, [] and the /? and /* endings) and the service's wording
// of them ("could not be accepted, failed near position"), and the depth
// limit is the service's nesting depth (reference §4).
func TestContainerPolicyPaths(t *testing.T) {
	// where puts a path into a container body's members.
	where := map[string]func(p string) string{
		"included": func(p string) string {
			return `"indexingPolicy":{"includedPaths":[{"path":` + p + `}],"excludedPaths":[{"path":"/*"}]}`
		},
		"excluded": func(p string) string { return `"indexingPolicy":{"excludedPaths":[{"path":` + p + `}]}` },
		"spatial": func(p string) string {
			return `"indexingPolicy":{"spatialIndexes":[{"path":` + p + `,"types":["Point","Polygon","MultiPolygon","LineString"]}]}`
		},
		"composite": func(p string) string {
			return `"indexingPolicy":{"compositeIndexes":[[{"path":` + p + `,"order":"ascending"},{"path":"/b","order":"descending"}]]}`
		},
		"unique": func(p string) string { return `"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/a",` + p + `]}]}` },
		"full text": func(p string) string {
			return `"fullTextPolicy":{"defaultLanguage":"en-US","fullTextPaths":[{"path":` + p + `,"language":"en-US"}]}`
		},
		"full text index": func(p string) string {
			return `"fullTextPolicy":{"defaultLanguage":"en-US","fullTextPaths":[{"path":` + p + `,"language":"en-US"}]},` +
				`"indexingPolicy":{"fullTextIndexes":[{"path":` + p + `}]}`
		},
		"vector": func(p string) string {
			return `"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":` + p + `,"dataType":"float32","distanceFunction":"cosine","dimensions":8}]},` +
				`"indexingPolicy":{"vectorIndexes":[{"path":` + p + `,"type":"flat"}]}`
		},
		"conflict": func(p string) string {
			return `"conflictResolutionPolicy":{"mode":"LastWriterWins","conflictResolutionPath":` + p + `}`
		},
	}
	index := []string{"included", "excluded", "spatial"}
	property := []string{"composite", "unique", "full text", "full text index", "vector", "conflict"}
	all := append(append([]string{}, index...), property...)
	tests := []struct {
		path string   // JSON string
		ok   []string // the places where it is valid; everywhere else it is refused
	}{
		// index paths (docs: index-policy): /? a scalar, /* everything below, quoted labels, [] arrays
		{`"/*"`, index},
		{`"/name/?"`, index},
		{`"/name/*"`, index},
		{`"/a/b/c/?"`, index},
		{`"/tags/[]/?"`, index},
		{`"/tags/[]/name/?"`, index},
		{`"/tags/[]/*"`, index},
		{`"/\"_etag\"/?"`, index},
		{`"/\"path-abc\"/?"`, index},
		{`"/\"a b\"/*"`, index},
		{`"/location/*"`, index},
		{`"/_ts/?"`, index},
		{`"/nämé/?"`, index},
		// property paths
		{`"/name"`, property},
		{`"/a/b"`, property},
		{`"/_ts"`, property},
		{`"/\"odd-name\""`, property},
		{`"/\"odd-name\"/inner"`, property},
		// refused everywhere (an empty or null conflict resolution path
		// goes with the Custom mode)
		{`""`, []string{"conflict"}},
		{`null`, []string{"conflict"}},
		// the legacy root (API versions before /*): accepted by the
		// service in included and excluded paths, sent by the JS SDK's
		// own specs (issue 18: refusing it failed 56 of them)
		{`"/"`, []string{"included", "excluded"}},
		{`"name/?"`, nil},
		{`"name"`, nil},
		{`"//?"`, nil},
		{`"/a//b/?"`, nil},
		{`"/path-abc/?"`, nil},
		{`"/a b/?"`, nil},
		{`"/a;b/?"`, nil},
		{`"/a;DROP TABLE x/?"`, nil},
		{`"/a'b/?"`, nil},
		{`"/a'); SELECT 1; --"`, nil},
		{`"/a\"b/?"`, nil},
		{`"/\"a/?"`, nil},
		{`"/\"a\"b/?"`, nil},
		{`"/\"\"/?"`, nil},
		{`"/\"a\\\"b\"/?"`, nil},
		{`"/a\\b/?"`, nil},
		{`"/\"a\\\\b\"/?"`, nil},
		{`"/a\u0000/?"`, nil},
		{`"/\"a\u0000\"/?"`, nil},
		{`"/\"a\nb\"/?"`, nil},
		{`"/a/*/b/?"`, nil},
		{`"/a/?/b"`, nil},
		{`"/a/??"`, nil},
		{`"/a?"`, nil},
		{`"/a*"`, nil},
		{`"/[]"`, nil},
		{`"/a[]/?"`, nil},
		{`"/[x]/?"`, nil},
		{`"/a/"`, nil},
		{`"/` + strings.Repeat("a", 5000) + `/?"`, index}, // no known length limit
		{`"` + strings.Repeat("/a", 300) + `/?"`, nil},    // reference §4: nesting depth 128
		{`1`, nil},
	}
	for _, tt := range tests {
		ok := map[string]bool{}
		for _, w := range tt.ok {
			ok[w] = true
		}
		for _, w := range all {
			t.Run(shortName(w+" "+tt.path), func(t *testing.T) {
				body := `{"id":"c","partitionKey":{"paths":["/pk"]},` + where[w](tt.path) + `}`
				_, err := normalizeBody(t, body)
				if ok[w] {
					if err != nil {
						t.Fatalf("%s: %v", body, err)
					}
					return
				}
				wantBadRequest(t, err, "")
			})
		}
	}
}

// TestContainerPolicyShapes checks the members around the paths: counts,
// types and the vector index rules.
func TestContainerPolicyShapes(t *testing.T) {
	many := func(n int, item string) string {
		return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
	}
	tests := []struct {
		name string
		rest string
		err  string // "" when accepted
	}{
		{"vector index with its embedding", `"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"cosine","dimensions":3}]},"indexingPolicy":{"vectorIndexes":[{"path":"/v","type":"quantizedFlat"}]}`, ""},
		{"vector index without embedding policy", `"indexingPolicy":{"vectorIndexes":[{"path":"/vector1","type":"flat"}]}`,
			"The Vector Indexing Policy's path::\\/vector1 not matching in Embedding's path."},
		{"vector index on another path", `"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"cosine","dimensions":3}]},"indexingPolicy":{"vectorIndexes":[{"path":"/w","type":"flat"}]}`,
			"The Vector Indexing Policy's path::\\/w not matching in Embedding's path."},
		{"embedding without index", `"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"dotproduct","dimensions":3}]}`, ""},
		// no known refusal of these values: kept as sent
		{"embedding dimensions zero", `"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"cosine","dimensions":0}]}`, ""},
		{"embedding distance unknown", `"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"manhattan","dimensions":3}]}`, ""},
		// kept: types azcosmos' VectorEmbedding cannot read back (int32, string)
		{"embedding dimensions not an int32", `"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"cosine","dimensions":3.5}]}`, "dimensions"},
		{"embedding distance not a string", `"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":1,"dimensions":3}]}`, "distanceFunction"},
		{"vectorEmbeddings not an array", `"vectorEmbeddingPolicy":{"vectorEmbeddings":{}}`, "vectorEmbeddings"},
		{"composite of 8 paths", `"indexingPolicy":{"compositeIndexes":[[` + many(8, `{"path":"/a"}`) + `]]}`, ""},
		{"composite of 9 paths", `"indexingPolicy":{"compositeIndexes":[[` + many(9, `{"path":"/a"}`) + `]]}`, "composite"},
		{"composite order unknown (no known refusal)", `"indexingPolicy":{"compositeIndexes":[[{"path":"/a","order":"up"},{"path":"/b"}]]}`, ""},
		{"composite order not a string (azcosmos CompositeIndexOrder)", `"indexingPolicy":{"compositeIndexes":[[{"path":"/a","order":1},{"path":"/b"}]]}`, "order"},
		{"composite order any case", `"indexingPolicy":{"compositeIndexes":[[{"path":"/a","order":"Ascending"},{"path":"/b","order":"DESCENDING"}]]}`, ""},
		{"composite not nested", `"indexingPolicy":{"compositeIndexes":[{"path":"/a"}]}`, "compositeIndexes"},
		{"1500 excluded paths", `"indexingPolicy":{"excludedPaths":[` + many(1500, `{"path":"/a/?"}`) + `]}`, ""},
		{"1501 excluded paths", `"indexingPolicy":{"excludedPaths":[` + many(1501, `{"path":"/a/?"}`) + `]}`, "excludedPaths"},
		{"1501 included paths", `"indexingPolicy":{"includedPaths":[` + many(1501, `{"path":"/a/?"}`) + `]}`, "includedPaths"},
		{"10 unique keys", `"uniqueKeyPolicy":{"uniqueKeys":[` + many(10, `{"paths":["/a"]}`) + `]}`, ""},
		{"11 unique keys", `"uniqueKeyPolicy":{"uniqueKeys":[` + many(11, `{"paths":["/a"]}`) + `]}`, "unique"},
		{"16 paths in a unique key", `"uniqueKeyPolicy":{"uniqueKeys":[{"paths":[` + many(16, `"/a"`) + `]}]}`, ""},
		{"17 paths in a unique key", `"uniqueKeyPolicy":{"uniqueKeys":[{"paths":[` + many(17, `"/a"`) + `]}]}`, "unique"},
		{"unique key without paths (no known refusal)", `"uniqueKeyPolicy":{"uniqueKeys":[{}]}`, ""},
		{"empty unique key policy", `"uniqueKeyPolicy":{"uniqueKeys":[]}`, ""},
		{"spatial types not an array", `"indexingPolicy":{"spatialIndexes":[{"path":"/l/*","types":"Point"}]}`, "types"},
		{"conflict path empty (custom mode)", `"conflictResolutionPolicy":{"mode":"Custom","conflictResolutionPath":"","conflictResolutionProcedure":"dbs/d/colls/c/sprocs/p"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := normalizeBody(t, `{"id":"c","partitionKey":{"paths":["/pk"]},`+tt.rest+`}`)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantBadRequest(t, err, tt.err)
		})
	}
}

// shortName bounds a subtest name built from its input.
func shortName(s string) string {
	if len(s) > 60 {
		return s[:60]
	}
	return s
}

// FuzzNormalizeContainer feeds container bodies to the validation: it never
// panics, refuses only with 400, and what it accepts is a fixed point (the
// stored body validates again to itself), with every policy path following
// its grammar.
func FuzzNormalizeContainer(f *testing.F) {
	for _, seed := range []string{
		`{"id":"c","partitionKey":{"paths":["/pk"]}}`,
		`{"id":"c","partitionKey":{"paths":["/a","/b"],"kind":"MultiHash","version":2},"defaultTtl":-1}`,
		`{"id":"c","partitionKey":{"paths":["/\"a b\""]},"indexingPolicy":{}}`,
		`{"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"none","automatic":false}}`,
		`{"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/tags/[]/?"}],"excludedPaths":[{"path":"/*"}],` +
			`"compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/\"b-c\"","order":"descending"}]],"spatialIndexes":[{"path":"/l/*","types":["Point"]}],` +
			`"vectorIndexes":[{"path":"/v","type":"flat"}]},"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"cosine","dimensions":3}]},` +
			`"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/u"]}]},"fullTextPolicy":{"fullTextPaths":[{"path":"/t"}]}}`,
		`{"id":"c","partitionKey":{"paths":["/a'); DROP TABLE x; --"]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := DecodeJSON(body)
		if err != nil {
			return
		}
		obj, ok := v.(*Object)
		if !ok {
			return
		}
		if _, _, err := normalizeContainer(obj); err != nil {
			if KindOf(err) != KindBadRequest {
				t.Fatalf("%s: %v", body, err)
			}
			return
		}
		once := EncodeJSON(obj)
		again, err := DecodeJSON(once)
		if err != nil {
			t.Fatalf("stored body %s: %v", once, err)
		}
		if _, _, err := normalizeContainer(again.(*Object)); err != nil {
			t.Fatalf("stored body %s refused: %v", once, err)
		}
		if twice := EncodeJSON(again); string(twice) != string(once) {
			t.Fatalf("not a fixed point:\n%s\n%s", once, twice)
		}
	})
}

// legacyPolicies are the legacy and unusual-but-valid indexing policies the
// service accepts and SDK suites or old applications still send: each is
// a container body's members after the partition key, and the
// indexingPolicy the service returns for it (the mode lower-case,
// reference §1.5.3; the system path /"_etag"/? excluded; everything else as
// sent). compat_test's TestLegacyIndexingPolicies sends the same ones.
var legacyPolicies = []struct {
	name, rest, want string
}{
	{"JS SDK specs: legacy root with Range and Spatial indexes, Consistent",
		`"indexingPolicy":{"indexingMode":"Consistent","automatic":true,"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Range","dataType":"String","precision":-1},{"kind":"Spatial","dataType":"Point"}]}]}`,
		`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Range","dataType":"String","precision":-1},{"kind":"Spatial","dataType":"Point"}]}],"excludedPaths":[` + etagPath + `]}`},
	{"/* with Hash, precision 3 and every spatial data type",
		`"indexingPolicy":{"includedPaths":[{"path":"/*","indexes":[{"kind":"Hash","dataType":"String","precision":3},{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Spatial","dataType":"Point"},{"kind":"Spatial","dataType":"Polygon"},{"kind":"Spatial","dataType":"LineString"},{"kind":"Spatial","dataType":"MultiPolygon"}]}]}`,
		`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*","indexes":[{"kind":"Hash","dataType":"String","precision":3},{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Spatial","dataType":"Point"},{"kind":"Spatial","dataType":"Polygon"},{"kind":"Spatial","dataType":"LineString"},{"kind":"Spatial","dataType":"MultiPolygon"}]}],"excludedPaths":[` + etagPath + `]}`},
	{"kind and dataType in any case",
		`"indexingPolicy":{"indexingMode":"CONSISTENT","includedPaths":[{"path":"/*","indexes":[{"kind":"range","dataType":"number","precision":-1},{"kind":"HASH","dataType":"STRING"},{"kind":"spatial","dataType":"point"}]}]}`,
		`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*","indexes":[{"kind":"range","dataType":"number","precision":-1},{"kind":"HASH","dataType":"STRING"},{"kind":"spatial","dataType":"point"}]}],"excludedPaths":[` + etagPath + `]}`},
	{"scalar, array and quoted paths with indexes",
		`"indexingPolicy":{"automatic":true,"includedPaths":[{"path":"/n/?","indexes":[{"kind":"Range","dataType":"Number","precision":-1}]},{"path":"/arr/[]/?"},{"path":"/\"key with space\"/?"},{"path":"/\"a-b\"/*"}],"excludedPaths":[{"path":"/"}]}`,
		`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/n/?","indexes":[{"kind":"Range","dataType":"Number","precision":-1}]},{"path":"/arr/[]/?"},{"path":"/\"key with space\"/?"},{"path":"/\"a-b\"/*"}],"excludedPaths":[{"path":"/"},` + etagPath + `]}`},
	{"only excludedPaths",
		`"indexingPolicy":{"excludedPaths":[{"path":"/big/*"},{"path":"/\"_etag\"/?"}]}`,
		`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/big/*"},` + etagPath + `]}`},
	{"Lazy, automatic false",
		`"indexingPolicy":{"indexingMode":"Lazy","automatic":false}`,
		`{"indexingMode":"lazy","automatic":false,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `]}`},
	{"Go SDK example: mode none, automatic false (empty lists omitted)",
		`"indexingPolicy":{"automatic":false,"indexingMode":"none"}`,
		`{"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]}`},
	{"composite orders and spatial types in any case, a bounding box",
		`"indexingPolicy":{"compositeIndexes":[[{"path":"/a","order":"Ascending"},{"path":"/b","order":"DESCENDING"}]],"spatialIndexes":[{"path":"/loc/*","types":["point","POLYGON","LineString","MultiPolygon"],"boundingBox":{"xmin":-10,"ymin":-10,"xmax":10,"ymax":10}}]}`,
		`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `],"compositeIndexes":[[{"path":"/a","order":"Ascending"},{"path":"/b","order":"DESCENDING"}]],"spatialIndexes":[{"path":"/loc/*","types":["point","POLYGON","LineString","MultiPolygon"],"boundingBox":{"xmin":-10,"ymin":-10,"xmax":10,"ymax":10}}]}`},
	{"Go SDK TestContainerVectorSearch, JS vector index options, Cosine",
		`"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/embedding","dataType":"float32","distanceFunction":"Cosine","dimensions":3},{"path":"/textEmbedding","dataType":"float32","distanceFunction":"euclidean","dimensions":3}]},` +
			`"indexingPolicy":{"automatic":true,"indexingMode":"consistent","includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/\"_etag\"/?"},{"path":"/embedding/*"},{"path":"/textEmbedding/*"}],"vectorIndexes":[{"path":"/embedding","type":"flat"},{"path":"/textEmbedding","type":"quantizedFlat","quantizationByteSize":2,"indexingSearchListSize":50,"vectorIndexShardKey":["/pk"]}]}`,
		`{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[` + etagPath + `,{"path":"/embedding/*"},{"path":"/textEmbedding/*"}],"vectorIndexes":[{"path":"/embedding","type":"flat"},{"path":"/textEmbedding","type":"quantizedFlat","quantizationByteSize":2,"indexingSearchListSize":50,"vectorIndexShardKey":["/pk"]}]}`},
}

// TestLegacyIndexingPolicies: every policy of legacyPolicies is accepted
// and stored as the service returns it.
func TestLegacyIndexingPolicies(t *testing.T) {
	t.Parallel()
	for _, tt := range legacyPolicies {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := normalizeBody(t, `{"id":"c","partitionKey":{"paths":["/pk"]},`+tt.rest+`}`)
			if err != nil {
				t.Fatal(err)
			}
			ip, _ := obj.Get("indexingPolicy")
			if got := string(EncodeJSON(ip)); got != tt.want {
				t.Fatalf("indexingPolicy\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestContainerRefusalsCited lists the refusals of container bodies the
// emulator keeps, each with its source; everything else is accepted (the
// tables above).
func TestContainerRefusalsCited(t *testing.T) {
	t.Parallel()
	many := func(n int, item string) string {
		return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
	}
	tests := []struct {
		source, body, msg string
	}{
		{"reference §1.5.3 (recorded): a body without partitionKey is 400",
			`{"id":"c"}`, "partition key definition is missing"},
		{"reference §1.5.3 (recorded): an unknown partition key kind, the service's text",
			`{"id":"c","partitionKey":{"paths":["/a"],"kind":"Range"}}`, "The 'kind' value 'Range' specified in the partition key definition is invalid."},
		{"reference §4: one path for Hash",
			`{"id":"c","partitionKey":{"paths":["/a","/b"],"kind":"Hash"}}`, "exactly one path"},
		{"reference §4: up to 3 paths for MultiHash",
			`{"id":"c","partitionKey":{"paths":["/a","/b","/c","/d"],"kind":"MultiHash"}}`, "at most 3 paths"},
		{"reference §1.5.3 and §0 (index-policy path syntax): an unquoted label with a space",
			`{"id":"c","partitionKey":{"paths":["/id ds"]}}`, "The partition key component definition path '/id ds' could not be accepted, failed near position '3'."},
		{"reference §1.5.3 and §0 (index-policy path syntax): an unquoted ; in an included path",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/a;b/?"}]}}`, "The indexing path '/a;b/?' could not be accepted"},
		{"reference §5.6 (azure-docs#29213): mode none with defaultTtl",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":-1,"indexingPolicy":{"indexingMode":"none","automatic":false}}`, "Indexing mode value cannot be 'none' when 'defaultTtl' is specified in the collection"},
		{"JS SDK container spec (a vector index without its embedding), the service's text with '/' escaped",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"vectorIndexes":[{"path":"/vector1","type":"flat"}]}}`, `The Vector Indexing Policy's path::\/vector1 not matching in Embedding's path.`},
		{"reference search §A1.2 (index-policy page): a full-text index path must be declared in the full-text policy",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"fullTextPolicy":{"defaultLanguage":"en-US","fullTextPaths":[{"path":"/text","language":"en-US"}]},"indexingPolicy":{"fullTextIndexes":[{"path":"/title"}]}}`, `Full Text Indexing Policy's path::\/title not matching`},
		{"reference search §A1.2: a full-text index without any full-text policy",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"fullTextIndexes":[{"path":"/text"}]}}`, `Full Text Indexing Policy's path::\/text not matching`},
		{"reference §4: 1500 included paths",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[` + many(1501, `{"path":"/a/?"}`) + `]}}`, "includedPaths"},
		{"reference §4: 8 properties in a composite index",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"compositeIndexes":[[` + many(9, `{"path":"/a"}`) + `]]}}`, "composite"},
		{"reference §4: 10 unique keys",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"uniqueKeyPolicy":{"uniqueKeys":[` + many(11, `{"paths":["/a"]}`) + `]}}`, "unique"},
		{"reference §4: 16 paths per unique key",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":[` + many(17, `"/a"`) + `]}]}}`, "unique"},
		{"azcosmos indexing_policy.go: includedPaths is a list the SDK reads back",
			`{"id":"c","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":{"path":"/*"}}}`, "includedPaths"},
	}
	for _, tt := range tests {
		t.Run(shortName(tt.source), func(t *testing.T) {
			_, err := normalizeBody(t, tt.body)
			wantBadRequest(t, err, tt.msg)
		})
	}
}
