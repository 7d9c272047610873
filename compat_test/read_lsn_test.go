package compat_test

import (
	"net/http"
	"strconv"
	"testing"
)

// TestReadLSNIsCurrent: a point read answers lsn with the latest LSN (the
// service's partition LSN), and x-ms-item-lsn with the item's own, so a
// transactional batch right after answers lsn one higher. The Python SDK's
// test_transactional_batch.py test_batch_lsn reads an item after three
// more writes and expects exactly that of the batch that follows. The read
// also carries Content-Location, the URL it was served at.
func TestReadLSNIsCurrent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "ldb"), "c")
	raw := f.raw
	docs := docsPath("ldb", "c")
	pk := []string{pkHeader, `["a"]`}
	up := append([]string{"x-ms-documentdb-is-upsert", "True"}, pk...)
	first := raw.do(http.MethodPost, docs, []byte(`{"id":"r","pk":"a"}`), up...)
	wantStatus(t, first, http.StatusCreated)
	for _, id := range []string{"x", "y", "z"} {
		wantStatus(t, raw.do(http.MethodPost, docs, []byte(`{"id":"`+id+`","pk":"a"}`), up...), http.StatusCreated)
	}
	read := raw.do(http.MethodGet, docPath("ldb", "c", "r"), nil, pk...)
	wantStatus(t, read, http.StatusOK)
	// a read also names the URL it was served at (test_globaldb.py reads
	// Content-Location from an item read)
	if got, want := read.Header.Get("Content-Location"), raw.endpoint+docPath("ldb", "c", "r"); got != want {
		t.Errorf("Content-Location %q, want %q", got, want)
	}
	lsn, err := strconv.ParseInt(read.Header.Get("lsn"), 10, 64)
	if err != nil {
		t.Fatalf("read lsn %q", read.Header.Get("lsn"))
	}
	if got, want := read.Header.Get("x-ms-item-lsn"), first.Header.Get("lsn"); got != want || got == read.Header.Get("lsn") {
		t.Errorf("read: x-ms-item-lsn %s, lsn %s; want the item's write LSN %s, below lsn", got, read.Header.Get("lsn"), want)
	}
	batch := []string{"x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "True", pkHeader, `["a"]`}
	resp := raw.do(http.MethodPost, docs, []byte(`[{"operationType":"Create","resourceBody":{"id":"b","pk":"a"}},{"operationType":"Replace","id":"x","resourceBody":{"id":"x","pk":"a","v":1}}]`), batch...)
	wantStatus(t, resp, http.StatusOK)
	if got := resp.Header.Get("lsn"); got != strconv.FormatInt(lsn+1, 10) {
		t.Fatalf("batch lsn %s after a read with lsn %d, want %d", got, lsn, lsn+1)
	}
}
