package pgstore

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestConcurrentUserAndPermissionWrites: racing creates of one user id
// give exactly one user and 409s, never a 500; racing upserts of one
// permission id all succeed and leave one permission; a second
// permission on the same resource and key is the resource 409, told apart
// from the id 409.
func TestConcurrentUserAndPermissionWrites(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.CreateUser(ctx, emulator.UserParams{DatabaseRef: "db", ID: "u", TS: 1, ETag: `"e"`})
		}()
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case !emulator.IsKind(err, emulator.KindConflict):
			t.Errorf("racing create: %v", err)
		}
	}
	if created != 1 {
		t.Fatalf("%d creates of one user id succeeded, want 1", created)
	}

	perm := emulator.PermissionParams{DatabaseRef: "db", UserRef: "u", ID: "p", Mode: "Read", Resource: "dbs/db/colls/c", ResourceKey: "dbs/db/colls/c", Scope: "dbs/db/colls/c", TS: 1, ETag: `"e"`}
	news := make([]bool, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, news[i], errs[i] = s.UpsertPermission(ctx, perm)
		}()
	}
	wg.Wait()
	inserted := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("racing upsert: %v", err)
		}
		if news[i] {
			inserted++
		}
	}
	_, ps, err := s.ListPermissions(ctx, "db", "u")
	if err != nil || len(ps) != 1 || inserted != 1 {
		t.Fatalf("after racing upserts: %d permissions (%v), %d reported created", len(ps), err, inserted)
	}

	dup := perm
	dup.ID = "p2"
	_, err = s.CreatePermission(ctx, dup)
	if !emulator.IsKind(err, emulator.KindConflict) || !containsMsg(err, emulator.MsgPermissionResourceConflict) {
		t.Errorf("same resource and key: %v", err)
	}
	_, err = s.CreatePermission(ctx, perm)
	if !emulator.IsKind(err, emulator.KindConflict) || containsMsg(err, emulator.MsgPermissionResourceConflict) {
		t.Errorf("same id: %v", err)
	}
	dup.PartitionKey = []byte(`["a"]`)
	if _, err := s.CreatePermission(ctx, dup); err != nil {
		t.Errorf("same resource, another key: %v", err)
	}
}

func containsMsg(err error, msg string) bool {
	var e *emulator.Error
	return errors.As(err, &e) && e.Message == msg
}
