package compat_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// TestDeleteDatabaseWhileCreatingContainer is the shared-emulator race:
// one client deletes a database while another creates a container in it,
// 20 times. The service serialises the two: the delete succeeds, and the
// create either succeeds first (its container then goes with the
// database) or finds the database gone (404); nothing answers 5xx (a 503
// on a write is not retried by @azure/cosmos).
func TestDeleteDatabaseWhileCreatingContainer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	raw := f.raw
	// (with and without an offer of the container's own, and with
	// several ranges)
	throughput := []string{"400", "25100"}
	for i := 0; i < 20; i++ {
		db := fmt.Sprintf("race%d", i)
		wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"`+db+`"}`)), http.StatusCreated)
		var del, create rawResp
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			create = raw.do(http.MethodPost, "/dbs/"+db+"/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`), "x-ms-offer-throughput", throughput[i%len(throughput)])
		}()
		go func() {
			defer wg.Done()
			del = raw.do(http.MethodDelete, "/dbs/"+db, nil)
		}()
		wg.Wait()
		if del.Status != http.StatusNoContent {
			t.Errorf("round %d: delete database answered %d %s", i, del.Status, del.Body)
		}
		if create.Status != http.StatusCreated && create.Status != http.StatusNotFound {
			t.Errorf("round %d: create container answered %d %s, want 201 or 404", i, create.Status, create.Body)
		}
		if r := raw.do(http.MethodGet, "/dbs/"+db+"/colls/c", nil); r.Status != http.StatusNotFound {
			t.Errorf("round %d: the container outlived its database: %d", i, r.Status)
		}
	}
}
