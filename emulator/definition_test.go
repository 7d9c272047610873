package emulator

import (
	"encoding/json"
	"testing"
)

// definitionBody is a container body with every policy the definition
// holds: the query path consults each of them.
const definitionBody = `{"id":"defs","partitionKey":{"paths":["/pk"],"kind":"Hash"},
"indexingPolicy":{"indexingMode":"consistent","includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/skip/*"}],
 "compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]],
 "fullTextIndexes":[{"path":"/text"}],"vectorIndexes":[{"path":"/v","type":"flat"}]},
"computedProperties":[{"name":"cp","query":"SELECT VALUE LOWER(c.name) FROM c"}],
"fullTextPolicy":{"defaultLanguage":"en-US","fullTextPaths":[{"path":"/text","language":"en-US"}]},
"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"euclidean","dimensions":2}]},
"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/u"]}]},
"changeFeedPolicy":{"retentionDuration":30},
"conflictResolutionPolicy":{"mode":"LastWriterWins","conflictResolutionPath":"/_ts","conflictResolutionProcedure":""}}`

// TestParseContainerDefinition: each member of a container body becomes
// its typed policy; an absent or null member leaves it empty.
func TestParseContainerDefinition(t *testing.T) {
	d, err := ParseContainerDefinition([]byte(definitionBody))
	if err != nil {
		t.Fatal(err)
	}
	want := &ContainerDefinition{
		Indexing: IndexingPolicy{Mode: "consistent", IncludedPaths: []string{"/*"}, ExcludedPaths: []string{"/skip/*"},
			CompositeIndexes: [][]CompositeIndexPath{{{Path: "/a"}, {Path: "/b", Descending: true}}},
			FullTextIndexes:  []string{"/text"}},
		ComputedProperties:         map[string]ComputedProperty{"cp": {Name: "cp", Query: "SELECT VALUE LOWER(c.name) FROM c"}},
		FullText:                   FullTextPolicy{DefaultLanguage: "en-US", Paths: []FullTextPath{{Path: "/text", Language: "en-US"}}},
		VectorDistanceFunctions:    map[string]string{"/v": "euclidean"},
		UniqueKeys:                 [][][]string{{{"u"}}},
		ChangeFeedRetentionMinutes: 30,
		ConflictResolution:         ConflictResolutionPolicy{Mode: "LastWriterWins", Path: "/_ts"},
	}
	gotJSON, _ := json.Marshal(d)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("definition:\n got %s\nwant %s", gotJSON, wantJSON)
	}
	for _, body := range []string{`{}`, `{"indexingPolicy":null,"computedProperties":null,"uniqueKeyPolicy":null}`} {
		d, err := ParseContainerDefinition([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(d)
		empty, _ := json.Marshal(&ContainerDefinition{})
		if string(got) != string(empty) {
			t.Errorf("%s: %s, want an empty definition", body, got)
		}
	}
}
