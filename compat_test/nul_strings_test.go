package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestQueryStringsComeBackAsStored: a string holding U+0000 comes back
// from a projection byte-identical to what was stored, as a point read
// gives it, never as U+FFFD (PostgreSQL's jsonb cannot hold U+0000, so the
// queryable copy of a document holds U+FFFD and the projection's output
// is mapped back). On one range and on five (the gateway's fan-out).
// Known limits, pinned by name: a document that holds both U+0000 and a
// U+FFFD of its own keeps U+FFFD in projections (the two can no longer be
// told apart there), as do results computed across documents.
func TestQueryStringsComeBackAsStored(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "nul")
	ctx := context.Background()
	docs := map[string]string{
		"n":    `{"id":"n","pk":"a","s":"a\u0000b","o":{"k\u0000":"\u0000"},"l":["x\u0000",1]}`,
		"both": `{"id":"both","pk":"b","s":"a\u0000b\ufffd"}`,
		"fffd": `{"id":"fffd","pk":"c","s":"r\ufffd"}`,
	}
	type row = any
	str := func(s string) row { return s }
	tests := []struct {
		name  string
		query string
		want  []row
	}{
		{"the issue's example: SELECT VALUE c.s", `SELECT VALUE c.s FROM c WHERE c.id = "n"`, []row{str("a\x00b")}},
		{"object projection", `SELECT c.s, c.o FROM c WHERE c.id = "n"`, []row{map[string]any{"s": "a\x00b", "o": map[string]any{"k\x00": "\x00"}}}},
		{"array element and function over it", `SELECT VALUE [c.l[0], CONCAT(c.s, "!"), LENGTH(c.s)] FROM c WHERE c.id = "n"`, []row{[]any{"x\x00", "a\x00b!", float64(3)}}},
		{"filter on a constant holding U+0000", `SELECT VALUE c.id FROM c WHERE c.s = "a\u0000b"`, []row{str("n")}},
		{"a genuine U+FFFD stays", `SELECT VALUE c.s FROM c WHERE c.id = "fffd"`, []row{str("r\ufffd")}},
		{"limit: a document holding both keeps U+FFFD", `SELECT VALUE c.s FROM c WHERE c.id = "both"`, []row{str("a\ufffdb\ufffd")}},
	}
	for _, layout := range []struct {
		name       string
		throughput int32
	}{{"one range", 400}, {"five ranges", 25100}} {
		t.Run(layout.name, func(t *testing.T) {
			id := fmt.Sprintf("c%d", layout.throughput)
			tp := azcosmos.NewManualThroughputProperties(layout.throughput)
			if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: id,
				PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
				t.Fatal(err)
			}
			cc, _ := db.NewContainer(id)
			for _, body := range docs {
				var d struct{ PK string }
				if err := json.Unmarshal([]byte(body), &d); err != nil {
					t.Fatal(err)
				}
				if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(d.PK), []byte(body), nil); err != nil {
					t.Fatal(err)
				}
			}
			// the point read is the reference: the stored string
			r, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("a"), "n", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := object(t, r.Value)["s"]; got != "a\x00b" {
				t.Fatalf("point read: s = %q", got)
			}
			for _, tc := range tests {
				got := queryAll(t, cc, tc.query, azcosmos.NewPartitionKey(), nil)
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: %s\n got %q\nwant %q", tc.name, tc.query, got, tc.want)
				}
			}
		})
	}
}
