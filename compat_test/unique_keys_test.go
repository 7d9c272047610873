package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// uniqueContainer creates container id in db, partitioned on /pk, with
// the unique keys /email and the pair /name/first, /name/last, and
// returns its client.
func uniqueContainer(t *testing.T, db *azcosmos.DatabaseClient, id string, ttl *int32) *azcosmos.ContainerClient {
	t.Helper()
	props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		DefaultTimeToLive: ttl,
		UniqueKeyPolicy: &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{
			{Paths: []string{"/email"}}, {Paths: []string{"/name/first", "/name/last"}}}}}
	if _, err := db.CreateContainer(bg, props, nil); err != nil {
		t.Fatalf("create container %s: %v", id, err)
	}
	cc, _ := db.NewContainer(id)
	return cc
}

// ukDoc is an item of a uniqueContainer; fields not given are left out.
func ukDoc(id, pk, email, first, last string) []byte {
	d := map[string]any{"id": id, "pk": pk}
	if email != "" {
		d["email"] = email
	}
	if first != "" || last != "" {
		d["name"] = map[string]any{"first": first, "last": last}
	}
	b, _ := json.Marshal(d)
	return b
}

// TestUniqueKeys checks that a container's unique keys are enforced per
// logical partition on every write path: a write that would give two
// items the same values of a unique key (a missing value counting as
// null) is refused with 409 Conflict and changes nothing.
func TestUniqueKeys(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t, emulatortest.WithFrozenClock(time.Unix(1_800_000_000, 0)), emulatortest.WithoutBackgroundSweeper())
	f := &fixture{e: e, c: e.Client(t), raw: newRaw(t, e)}
	db := mustDB(t, f.c, "ukdb")
	p := azcosmos.NewPartitionKeyString("p")

	t.Run("single operations", func(t *testing.T) {
		t.Parallel()
		cc := uniqueContainer(t, db, "single", nil)
		for _, b := range [][]byte{ukDoc("ann", "p", "ann@x", "Ann", "A"), ukDoc("bob", "p", "bob@x", "Bob", "B")} {
			if _, err := cc.CreateItem(bg, p, b, nil); err != nil {
				t.Fatal(err)
			}
		}
		cases := []struct {
			name   string
			op     func() error
			status int // statusOf: 200 for success
			id     string
		}{
			{"duplicate create", func() error { _, err := cc.CreateItem(bg, p, ukDoc("c1", "p", "ann@x", "C", "1"), nil); return err }, 409, "c1"},
			{"same value, other partition", func() error {
				_, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString("q"), ukDoc("c2", "q", "ann@x", "Ann", "A"), nil)
				return err
			}, 200, ""},
			{"missing value is null", func() error { _, err := cc.CreateItem(bg, p, ukDoc("m1", "p", "", "M", "1"), nil); return err }, 200, ""},
			{"second missing value", func() error { _, err := cc.CreateItem(bg, p, ukDoc("m2", "p", "", "M", "2"), nil); return err }, 409, "m2"},
			{"explicit null equals missing", func() error {
				_, err := cc.CreateItem(bg, p, []byte(`{"id":"m3","pk":"p","email":null,"name":{"first":"M","last":"3"}}`), nil)
				return err
			}, 409, "m3"},
			{"nested pair, one part differs", func() error { _, err := cc.CreateItem(bg, p, ukDoc("n1", "p", "n1@x", "Ann", "Z"), nil); return err }, 200, ""},
			{"nested pair duplicate", func() error { _, err := cc.CreateItem(bg, p, ukDoc("n2", "p", "n2@x", "Ann", "A"), nil); return err }, 409, "n2"},
			{"replace into a duplicate", func() error {
				_, err := cc.ReplaceItem(bg, p, "bob", ukDoc("bob", "p", "ann@x", "Bob", "B"), nil)
				return err
			}, 409, ""},
			{"replace keeping its own value", func() error {
				_, err := cc.ReplaceItem(bg, p, "bob", ukDoc("bob", "p", "bob@x", "Bob", "B"), nil)
				return err
			}, 200, ""},
			{"upsert a new duplicate", func() error { _, err := cc.UpsertItem(bg, p, ukDoc("u1", "p", "bob@x", "U", "1"), nil); return err }, 409, "u1"},
			{"upsert over a duplicate", func() error { _, err := cc.UpsertItem(bg, p, ukDoc("ann", "p", "bob@x", "Ann", "A"), nil); return err }, 409, ""},
			{"patch into a duplicate", func() error {
				var po azcosmos.PatchOperations
				po.AppendSet("/email", "ann@x")
				_, err := cc.PatchItem(bg, p, "bob", po, nil)
				return err
			}, 409, ""},
		}
		for _, tc := range cases {
			if got := statusOf(tc.op()); got != tc.status {
				t.Errorf("%s: status %d, want %d", tc.name, got, tc.status)
			}
			if tc.id != "" {
				if _, err := cc.ReadItem(bg, p, tc.id, nil); statusOf(err) != http.StatusNotFound {
					t.Errorf("%s: refused write stored %s (%v)", tc.name, tc.id, err)
				}
			}
		}
		// refused replaces, upserts and patches changed nothing
		for id, email := range map[string]string{"ann": "ann@x", "bob": "bob@x"} {
			r, err := cc.ReadItem(bg, p, id, nil)
			var d struct{ Email string }
			if err != nil || json.Unmarshal(r.Value, &d) != nil || d.Email != email {
				t.Errorf("%s after refused writes: %v %s", id, err, r.Value)
			}
		}
	})

	t.Run("raw REST answer", func(t *testing.T) {
		t.Parallel()
		uniqueContainer(t, db, "raw", nil)
		raw := f.rawFor(t)
		wantStatus(t, raw.do(http.MethodPost, docsPath("ukdb", "raw"), ukDoc("a", "p", "a@x", "", ""), pkHeader, `["p"]`), http.StatusCreated)
		r := raw.do(http.MethodPost, docsPath("ukdb", "raw"), ukDoc("b", "p", "a@x", "B", ""), pkHeader, `["p"]`)
		if msg := wantError(t, r, http.StatusConflict, "Conflict"); msg != "Entity with the specified id already exists in the system." {
			t.Errorf("message %q", msg)
		}
		wantSubStatus(t, r, 0)
	})

	t.Run("transactional batch fails atomically", func(t *testing.T) {
		t.Parallel()
		cc := uniqueContainer(t, db, "batch", nil)
		if _, err := cc.CreateItem(bg, p, ukDoc("old", "p", "old@x", "", ""), nil); err != nil {
			t.Fatal(err)
		}
		b := cc.NewTransactionalBatch(p)
		b.CreateItem(ukDoc("b1", "p", "b1@x", "B", "1"), nil)
		b.CreateItem(ukDoc("b2", "p", "old@x", "B", "2"), nil)
		b.CreateItem(ukDoc("b3", "p", "b3@x", "B", "3"), nil)
		res, err := cc.ExecuteTransactionalBatch(bg, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		for _, r := range res.OperationResults {
			got = append(got, r.StatusCode)
		}
		if res.Success || fmt.Sprint(got) != "[424 409 424]" {
			t.Errorf("batch: success %v, statuses %v, want [424 409 424]", res.Success, got)
		}
		for _, id := range []string{"b1", "b2", "b3"} {
			if _, err := cc.ReadItem(bg, p, id, nil); statusOf(err) != http.StatusNotFound {
				t.Errorf("%s written by a failed batch (%v)", id, err)
			}
		}
	})

	t.Run("bulk continues after a refused operation", func(t *testing.T) {
		t.Parallel()
		uniqueContainer(t, db, "bulk", nil)
		raw := f.rawFor(t)
		ops := `[{"operationType":"Create","partitionKey":"[\"p\"]","resourceBody":` + string(ukDoc("k1", "p", "k@x", "K", "1")) + `},
{"operationType":"Create","partitionKey":"[\"p\"]","resourceBody":` + string(ukDoc("k2", "p", "k@x", "K", "2")) + `},
{"operationType":"Create","partitionKey":"[\"p\"]","resourceBody":` + string(ukDoc("k3", "p", "k3@x", "K", "3")) + `}]`
		r := raw.do(http.MethodPost, docsPath("ukdb", "bulk"), []byte(ops), bulkHeaders...)
		if got := batchStatuses(t, r.Body); fmt.Sprint(got) != "[201 409 201]" {
			t.Errorf("bulk statuses %v, want [201 409 201] (%d %s)", got, r.Status, r.Body)
		}
	})

	t.Run("stored procedure sees a conflict and goes on", func(t *testing.T) {
		t.Parallel()
		uniqueContainer(t, db, "sproc", nil)
		raw := f.rawFor(t)
		body := `function () {
  var c = getContext().getCollection(), out = [];
  c.createDocument(c.getSelfLink(), {id: "s1", pk: "p", email: "s@x"}, function (err) {
    if (err) throw err;
    c.createDocument(c.getSelfLink(), {id: "s2", pk: "p", email: "s@x"}, function (err) {
      out.push(err ? err.number : 0);
      c.createDocument(c.getSelfLink(), {id: "s3", pk: "p", email: "s3@x", name: {first: "S"}}, function (err) {
        if (err) throw err;
        out.push("s3");
        getContext().getResponse().setBody(out);
      });
    });
  });
}`
		wantStatus(t, raw.do(http.MethodPost, scriptsPath("ukdb", "sproc", "sprocs"), []byte(`{"id":"uk","body":`+string(mustJSON(t, body))+`}`)), http.StatusCreated)
		r := raw.do(http.MethodPost, scriptsPath("ukdb", "sproc", "sprocs")+"/uk", []byte(`[]`), pkHeader, `["p"]`)
		if r.Status != http.StatusOK || string(r.Body) != `[409,"s3"]` {
			t.Fatalf("sproc: %d %s, want 200 [409,\"s3\"]", r.Status, r.Body)
		}
		cc, _ := db.NewContainer("sproc")
		for id, want := range map[string]int{"s1": 200, "s2": http.StatusNotFound, "s3": 200} {
			if _, err := cc.ReadItem(bg, p, id, nil); statusOf(err) != want {
				t.Errorf("%s: %v, want status %d", id, err, want)
			}
		}
	})

	t.Run("value free again after delete and after expiry", func(t *testing.T) {
		t.Parallel()
		ttl := int32(10)
		cc := uniqueContainer(t, db, "reuse", &ttl)
		if _, err := cc.CreateItem(bg, p, ukDoc("d1", "p", "d@x", "D", "1"), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cc.DeleteItem(bg, p, "d1", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cc.CreateItem(bg, p, ukDoc("d2", "p", "d@x", "D", "1"), nil); err != nil {
			t.Errorf("create after delete: %v", err)
		}
		if _, err := cc.CreateItem(bg, p, ukDoc("t1", "p", "t@x", "T", "1"), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cc.CreateItem(bg, p, ukDoc("t2", "p", "t@x", "T", "2"), nil); statusOf(err) != http.StatusConflict {
			t.Errorf("create while the holder lives: %v, want 409", err)
		}
		// the other subtests share the clock: their containers have no TTL
		if err := f.e.Clock().Advance(11 * time.Second); err != nil {
			t.Fatal(err)
		}
		// expired but not swept (no background sweeper): gone all the same
		if _, err := cc.CreateItem(bg, p, ukDoc("t3", "p", "t@x", "T", "3"), nil); err != nil {
			t.Errorf("create after the holder expired: %v", err)
		}
		// in a transactional batch too
		if _, err := cc.CreateItem(bg, p, ukDoc("t4", "p", "t4@x", "T", "4"), nil); err != nil {
			t.Fatal(err)
		}
		if err := f.e.Clock().Advance(11 * time.Second); err != nil {
			t.Fatal(err)
		}
		b := cc.NewTransactionalBatch(p)
		b.CreateItem(ukDoc("t5", "p", "t4@x", "T", "5"), nil)
		if res, err := cc.ExecuteTransactionalBatch(bg, b, nil); err != nil || !res.Success {
			t.Errorf("batch after the holder expired: %v %+v", err, res)
		}
	})

	t.Run("concurrent creates of one value: one wins", func(t *testing.T) {
		t.Parallel()
		cc := uniqueContainer(t, db, "race", nil)
		const n = 8
		statuses := make([]int, n)
		var wg sync.WaitGroup
		start := time.Now()
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := cc.CreateItem(bg, p, ukDoc(fmt.Sprintf("r%d", i), "p", "race@x", "R", fmt.Sprint(i)), nil)
				statuses[i] = statusOf(err)
			}()
		}
		wg.Wait()
		t.Logf("%d concurrent creates in %v: %v", n, time.Since(start), statuses)
		won, lost := 0, 0
		for _, s := range statuses {
			switch s {
			case 200:
				won++
			case http.StatusConflict:
				lost++
			}
		}
		if won != 1 || lost != n-1 {
			t.Errorf("statuses %v: want one success and %d conflicts", statuses, n-1)
		}
		pager := cc.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c WHERE c.email = 'race@x'", p, nil)
		page, err := pager.NextPage(bg)
		if err != nil || len(page.Items) != 1 || string(page.Items[0]) != "1" {
			t.Errorf("items holding the value: %v %q, want 1", err, page.Items)
		}
	})
}
