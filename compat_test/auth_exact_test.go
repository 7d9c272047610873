package compat_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestSignatureServesOnlyItsResource: a signature made for one document
// does not read another whose id or database differs only in case, nor
// any document when it covers the bare id; the SDK's own requests
// (including the lower-cased offer RID) keep working.
func TestSignatureServesOnlyItsResource(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "authdb")
	cc := mustContainer(t, db, "c")
	pk := azcosmos.NewPartitionKeyString("a")
	for _, id := range []string{"secret", "Secret"} {
		if _, err := cc.CreateItem(bg, pk, mustJSON(t, map[string]any{"id": id, "pk": "a"}), nil); err != nil {
			t.Fatal(err)
		}
	}
	raw := f.rawFor(t)
	key := masterKey(t)
	tests := []struct {
		name, path, signedLink string
		want                   int
	}{
		{"own link", "/dbs/authdb/colls/c/docs/secret", "dbs/authdb/colls/c/docs/secret", http.StatusOK},
		{"own link, other case", "/dbs/authdb/colls/c/docs/Secret", "dbs/authdb/colls/c/docs/Secret", http.StatusOK},
		{"lower-case id's signature on Secret", "/dbs/authdb/colls/c/docs/Secret", "dbs/authdb/colls/c/docs/secret", http.StatusUnauthorized},
		{"bare id", "/dbs/authdb/colls/c/docs/Secret", "secret", http.StatusUnauthorized},
		{"database case", "/dbs/AuthDB/colls/c/docs/secret", "dbs/authdb/colls/c/docs/secret", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := raw.req(http.MethodGet, tt.path, nil)
			r.Header.Set(pkHeader, `["a"]`)
			r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+signature(key, "GET", "docs", tt.signedLink, r.Header.Get("x-ms-date"))))
			resp := raw.send(r)
			if tt.want == http.StatusOK {
				wantStatus(t, resp, http.StatusOK)
				return
			}
			wantError(t, resp, tt.want, "Unauthorized")
		})
	}
	// the Go SDK signs offer reads and replaces by the lower-cased RID
	tp := azcosmos.NewManualThroughputProperties(400)
	if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "tp", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	tc, err := db.NewContainer("tp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.ReadThroughput(bg, nil); err != nil {
		t.Fatalf("read throughput: %v", err)
	}
	if _, err := tc.ReplaceThroughput(bg, azcosmos.NewManualThroughputProperties(500), nil); err != nil {
		t.Fatalf("replace throughput: %v", err)
	}
}
