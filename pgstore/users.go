package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Users and permissions (migration 0014): cosmos.users rows belong to a
// database, cosmos.permissions rows to a user; both go with their owner
// (ON DELETE CASCADE), so DeleteDatabase needs no change.

// ---- users

const userCols = `u.num, d.rid, u.id, u.rid, u.ts, u.etag`

func scanUser(row pgx.Row) (emulator.User, error) {
	var u emulator.User
	err := row.Scan(&u.Num, &u.DatabaseRID, &u.ID, &u.RID, &u.TS, &u.ETag)
	return u, err
}

// lookupUser resolves a database reference ($1) and a user reference ($2),
// ids winning over RIDs.
const lookupUser = `SELECT ` + userCols + `
FROM cosmos.users u JOIN cosmos.databases d ON d.num = u.db_num
WHERE (d.id = $1 OR d.rid = $1) AND (u.id = $2 OR u.rid = $2)
ORDER BY (d.id = $1) DESC, (u.id = $2) DESC LIMIT 1`

// insertUser inserts a user of database d; on an existing id it updates
// ts and etag when upsert is set and does nothing otherwise. inserted is
// false when the id existed (upsert: the row was stamped; else: conflict).
func insertUser(ctx context.Context, tx pgx.Tx, d emulator.Database, p emulator.UserParams, upsert bool) (u emulator.User, inserted bool, err error) {
	var num int64
	if err := tx.QueryRow(ctx, `SELECT nextval('cosmos.resource_num_seq')`).Scan(&num); err != nil {
		return u, false, err
	}
	onConflict := `DO NOTHING`
	if upsert {
		onConflict = `DO UPDATE SET ts = EXCLUDED.ts, etag = EXCLUDED.etag`
	}
	u = emulator.User{DatabaseRID: d.RID, ID: p.ID, TS: p.TS, ETag: p.ETag}
	err = tx.QueryRow(ctx, `INSERT INTO cosmos.users (num, db_num, id, rid, ts, etag) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (db_num, id) `+onConflict+` RETURNING num, rid, xmax = 0`,
		num, d.Num, p.ID, emulator.UserRID(d.RID, num), p.TS, p.ETag).Scan(&u.Num, &u.RID, &inserted)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, false, emulator.ErrConflict
	}
	return u, inserted, err
}

// CreateUser implements emulator.UserStore.
func (s *Store) CreateUser(ctx context.Context, p emulator.UserParams) (emulator.User, error) {
	var u emulator.User
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		d, err := scanDatabase(tx.QueryRow(ctx, lookupDatabase+` FOR SHARE`, p.DatabaseRef))
		if err != nil {
			return err
		}
		u, _, err = insertUser(ctx, tx, d, p, false)
		return err
	})
	return u, classify("create user", err)
}

// UpsertUser implements emulator.UserStore.
func (s *Store) UpsertUser(ctx context.Context, p emulator.UserParams) (emulator.User, bool, error) {
	var u emulator.User
	var created bool
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		d, err := scanDatabase(tx.QueryRow(ctx, lookupDatabase+` FOR SHARE`, p.DatabaseRef))
		if err != nil {
			return err
		}
		u, created, err = insertUser(ctx, tx, d, p, true)
		return err
	})
	return u, created, classify("upsert user", err)
}

// GetUser implements emulator.UserStore.
func (s *Store) GetUser(ctx context.Context, dbRef, userRef string) (emulator.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, lookupUser, dbRef, userRef))
	return u, classify("get user", err)
}

// ListUsers implements emulator.UserStore.
func (s *Store) ListUsers(ctx context.Context, dbRef string) (emulator.Database, []emulator.User, error) {
	d, err := s.GetDatabase(ctx, dbRef)
	if err != nil {
		return d, nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+userCols+` FROM cosmos.users u JOIN cosmos.databases d ON d.num = u.db_num WHERE u.db_num = $1 ORDER BY u.num`, d.Num)
	if err != nil {
		return d, nil, classify("list users", err)
	}
	us, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.User, error) { return scanUser(r) })
	return d, us, classify("list users", err)
}

// ReplaceUser implements emulator.UserStore: a rename (409 when the new id
// is taken).
func (s *Store) ReplaceUser(ctx context.Context, p emulator.UserParams) (emulator.User, error) {
	var u emulator.User
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanUser(tx.QueryRow(ctx, lookupUser+` FOR UPDATE OF u`, p.DatabaseRef, p.Ref))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE cosmos.users SET id = $2, ts = $3, etag = $4 WHERE num = $1`, cur.Num, p.ID, p.TS, p.ETag); err != nil {
			return err
		}
		u = cur
		u.ID, u.TS, u.ETag = p.ID, p.TS, p.ETag
		return nil
	})
	return u, classify("replace user", err)
}

// DeleteUser implements emulator.UserStore (its permissions cascade).
func (s *Store) DeleteUser(ctx context.Context, dbRef, userRef string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM cosmos.users WHERE num = (SELECT num FROM (`+lookupUser+`) l)`, dbRef, userRef)
	if err == nil && tag.RowsAffected() == 0 {
		err = emulator.ErrResourceNotFound
	}
	return classify("delete user", err)
}

// ---- permissions

const permissionCols = `p.num, d.rid, u.rid, p.id, p.rid, p.mode, p.resource, p.scope, p.pk, p.ts, p.etag`

func scanPermission(row pgx.Row) (emulator.Permission, error) {
	var p emulator.Permission
	var pk *string
	err := row.Scan(&p.Num, &p.DatabaseRID, &p.UserRID, &p.ID, &p.RID, &p.Mode, &p.Resource, &p.Scope, &pk, &p.TS, &p.ETag)
	if pk != nil {
		p.PartitionKey = []byte(*pk)
	}
	return p, err
}

// permissionFrom joins a permission with its user and database.
const permissionFrom = ` FROM cosmos.permissions p JOIN cosmos.users u ON u.num = p.user_num JOIN cosmos.databases d ON d.num = u.db_num`

// lookupPermission resolves database ($1), user ($2) and permission ($3)
// references, ids winning over RIDs.
const lookupPermission = `SELECT ` + permissionCols + permissionFrom + `
WHERE (d.id = $1 OR d.rid = $1) AND (u.id = $2 OR u.rid = $2) AND (p.id = $3 OR p.rid = $3)
ORDER BY (d.id = $1) DESC, (u.id = $2) DESC, (p.id = $3) DESC LIMIT 1`

// permissionError tells the two unique constraints of permissions apart:
// a taken id (409 as everywhere) and a second permission on the same
// resource and partition key.
func permissionError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "permissions_user_resource_key" {
		return &emulator.Error{Kind: emulator.KindConflict, Message: emulator.MsgPermissionResourceConflict, Err: err}
	}
	return err
}

// pkText is the nullable text of a permission's partition key.
func pkText(pk []byte) *string {
	if pk == nil {
		return nil
	}
	s := string(pk)
	return &s
}

// insertPermission inserts a permission of user u.
func insertPermission(ctx context.Context, tx pgx.Tx, u emulator.User, p emulator.PermissionParams) (emulator.Permission, error) {
	var num int64
	if err := tx.QueryRow(ctx, `SELECT nextval('cosmos.resource_num_seq')`).Scan(&num); err != nil {
		return emulator.Permission{}, err
	}
	rid := emulator.PermissionRID(u.RID, num)
	_, err := tx.Exec(ctx, `INSERT INTO cosmos.permissions (num, user_num, id, rid, mode, resource, res_key, scope, pk, ts, etag)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		num, u.Num, p.ID, rid, p.Mode, p.Resource, p.ResourceKey, p.Scope, pkText(p.PartitionKey), p.TS, p.ETag)
	if err != nil {
		return emulator.Permission{}, permissionError(err)
	}
	return permissionOf(u, num, rid, p), nil
}

// updatePermission overwrites permission num with p (a rename when p.ID
// differs).
func updatePermission(ctx context.Context, tx pgx.Tx, num int64, p emulator.PermissionParams) error {
	_, err := tx.Exec(ctx, `UPDATE cosmos.permissions SET id = $2, mode = $3, resource = $4, res_key = $5, scope = $6, pk = $7, ts = $8, etag = $9 WHERE num = $1`,
		num, p.ID, p.Mode, p.Resource, p.ResourceKey, p.Scope, pkText(p.PartitionKey), p.TS, p.ETag)
	return permissionError(err)
}

func permissionOf(u emulator.User, num int64, rid string, p emulator.PermissionParams) emulator.Permission {
	return emulator.Permission{Num: num, DatabaseRID: u.DatabaseRID, UserRID: u.RID, ID: p.ID, RID: rid, Mode: p.Mode,
		Resource: p.Resource, Scope: p.Scope, PartitionKey: p.PartitionKey, TS: p.TS, ETag: p.ETag}
}

// CreatePermission implements emulator.UserStore.
func (s *Store) CreatePermission(ctx context.Context, p emulator.PermissionParams) (emulator.Permission, error) {
	var pm emulator.Permission
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		u, err := scanUser(tx.QueryRow(ctx, lookupUser+` FOR SHARE OF u`, p.DatabaseRef, p.UserRef))
		if err != nil {
			return err
		}
		pm, err = insertPermission(ctx, tx, u, p)
		return err
	})
	return pm, classify("create permission", err)
}

// UpsertPermission implements emulator.UserStore. The user row is locked
// so that concurrent upserts of one user's permissions serialise.
func (s *Store) UpsertPermission(ctx context.Context, p emulator.PermissionParams) (emulator.Permission, bool, error) {
	var pm emulator.Permission
	var created bool
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		u, err := scanUser(tx.QueryRow(ctx, lookupUser+` FOR UPDATE OF u`, p.DatabaseRef, p.UserRef))
		if err != nil {
			return err
		}
		var num int64
		var rid string
		err = tx.QueryRow(ctx, `SELECT num, rid FROM cosmos.permissions WHERE user_num = $1 AND id = $2`, u.Num, p.ID).Scan(&num, &rid)
		if errors.Is(err, pgx.ErrNoRows) {
			created = true
			pm, err = insertPermission(ctx, tx, u, p)
			return err
		}
		if err != nil {
			return err
		}
		if err := updatePermission(ctx, tx, num, p); err != nil {
			return err
		}
		pm = permissionOf(u, num, rid, p)
		return nil
	})
	return pm, created, classify("upsert permission", err)
}

// GetPermission implements emulator.UserStore.
func (s *Store) GetPermission(ctx context.Context, dbRef, userRef, permRef string) (emulator.Permission, error) {
	p, err := scanPermission(s.pool.QueryRow(ctx, lookupPermission, dbRef, userRef, permRef))
	return p, classify("get permission", err)
}

// ListPermissions implements emulator.UserStore.
func (s *Store) ListPermissions(ctx context.Context, dbRef, userRef string) (emulator.User, []emulator.Permission, error) {
	u, err := s.GetUser(ctx, dbRef, userRef)
	if err != nil {
		return u, nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+permissionCols+permissionFrom+` WHERE p.user_num = $1 ORDER BY p.num`, u.Num)
	if err != nil {
		return u, nil, classify("list permissions", err)
	}
	ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.Permission, error) { return scanPermission(r) })
	return u, ps, classify("list permissions", err)
}

// ReplacePermission implements emulator.UserStore.
func (s *Store) ReplacePermission(ctx context.Context, p emulator.PermissionParams) (emulator.Permission, error) {
	var pm emulator.Permission
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanPermission(tx.QueryRow(ctx, lookupPermission+` FOR UPDATE OF p`, p.DatabaseRef, p.UserRef, p.Ref))
		if err != nil {
			return err
		}
		if err := updatePermission(ctx, tx, cur.Num, p); err != nil {
			return err
		}
		pm = permissionOf(emulator.User{DatabaseRID: cur.DatabaseRID, RID: cur.UserRID}, cur.Num, cur.RID, p)
		return nil
	})
	return pm, classify("replace permission", err)
}

// DeletePermission implements emulator.UserStore.
func (s *Store) DeletePermission(ctx context.Context, dbRef, userRef, permRef string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM cosmos.permissions WHERE num = (SELECT num FROM (`+lookupPermission+`) l)`, dbRef, userRef, permRef)
	if err == nil && tag.RowsAffected() == 0 {
		err = emulator.ErrResourceNotFound
	}
	return classify("delete permission", err)
}

// ItemIDBySeq implements emulator.UserStore.
func (s *Store) ItemIDBySeq(ctx context.Context, c emulator.Container, seq int64) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT id FROM `+itemsTable(c.Num)+` WHERE seq = $1`, seq).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", emulator.ErrItemNotFound
	}
	return id, classify("resolve document rid", err)
}
