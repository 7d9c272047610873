package emulator

import (
	"context"
	"encoding/binary"
	"strconv"
	"strings"
)

// Users and permissions (users-permissions.md §1, §2). A user lives in a
// database; a permission lives in a user and grants Read or All on one
// resource (a database, a container, or a container's child such as an
// item), optionally restricted to one logical partition. The resource token
// a permission answers with is minted by package wire, which holds the
// master key; this package stores and validates.

// User is a stored user.
type User struct {
	Num         int64
	DatabaseRID string
	ID          string
	RID         string
	TS          int64
	ETag        string
}

// Self returns the user's _self link: dbs/{dbRid}/users/{userRid}/.
func (u User) Self() string { return "dbs/" + u.DatabaseRID + "/users/" + u.RID + "/" }

// JSON renders the user as the service does.
func (u User) JSON() []byte {
	buf := make([]byte, 0, 192)
	buf = append(buf, `{"id":`...)
	buf = AppendJSONString(buf, u.ID)
	buf = append(buf, `,"_rid":`...)
	buf = AppendJSONString(buf, u.RID)
	buf = append(buf, `,"_ts":`...)
	buf = strconv.AppendInt(buf, u.TS, 10)
	buf = append(buf, `,"_self":`...)
	buf = AppendJSONString(buf, u.Self())
	buf = append(buf, `,"_etag":`...)
	buf = AppendJSONString(buf, u.ETag)
	return append(buf, `,"_permissions":"permissions/"}`...)
}

// Permission is a stored permission.
type Permission struct {
	Num         int64
	DatabaseRID string
	UserRID     string
	ID          string
	RID         string
	// Mode is permissionMode as the client sent it ("All", "read", ...);
	// it equals "all" or "read" case-insensitively.
	Mode string
	// Resource is the resource link as the client sent it.
	Resource string
	// Scope is Resource without outer slashes, its database and container
	// segments turned into ids when they were RIDs of existing resources
	// at write time: what requests are matched against.
	Scope string
	// PartitionKey is resourcePartitionKey as sent (a compact JSON array),
	// nil when absent.
	PartitionKey []byte
	TS           int64
	ETag         string
}

// Self returns the permission's _self link.
func (p Permission) Self() string {
	return "dbs/" + p.DatabaseRID + "/users/" + p.UserRID + "/permissions/" + p.RID + "/"
}

// AllowsWrites reports whether the permission's mode is All (case-insensitive).
func (p Permission) AllowsWrites() bool { return strings.EqualFold(p.Mode, "all") }

// PartitionKeyCanonical returns the canonical form (PartitionKey.Canonical)
// of the permission's resourcePartitionKey, "" when it has none.
func (p Permission) PartitionKeyCanonical() string {
	if p.PartitionKey == nil {
		return ""
	}
	v, err := DecodeJSON(p.PartitionKey)
	if err != nil {
		return ""
	}
	arr, _ := v.([]any)
	pk, ok := PartitionKeyFromJSON(arr)
	if !ok {
		return ""
	}
	return pk.Canonical()
}

// JSON renders the permission with token as its _token ("" leaves _token
// out).
func (p Permission) JSON(token string) []byte {
	buf := make([]byte, 0, 512+len(token))
	buf = append(buf, `{"id":`...)
	buf = AppendJSONString(buf, p.ID)
	buf = append(buf, `,"permissionMode":`...)
	buf = AppendJSONString(buf, p.Mode)
	buf = append(buf, `,"resource":`...)
	buf = AppendJSONString(buf, p.Resource)
	if p.PartitionKey != nil {
		buf = append(buf, `,"resourcePartitionKey":`...)
		buf = append(buf, p.PartitionKey...)
	}
	buf = append(buf, `,"_rid":`...)
	buf = AppendJSONString(buf, p.RID)
	buf = append(buf, `,"_ts":`...)
	buf = strconv.AppendInt(buf, p.TS, 10)
	buf = append(buf, `,"_self":`...)
	buf = AppendJSONString(buf, p.Self())
	buf = append(buf, `,"_etag":`...)
	buf = AppendJSONString(buf, p.ETag)
	if token != "" {
		buf = append(buf, `,"_token":`...)
		buf = AppendJSONString(buf, token)
	}
	return append(buf, '}')
}

// UserRID returns the 8-byte RID of user number n in database dbRID: the
// database part followed by n with the high bit of its first byte clear
// (set, it would mean a container to the SDKs' RID parsers).
func UserRID(dbRID string, n int64) string {
	b := make([]byte, 8)
	if db, ok := DecodeRID(dbRID); ok && len(db) == 4 {
		copy(b, db)
	}
	binary.BigEndian.PutUint32(b[4:], uint32(n)&0x7fffffff)
	return encodeRID(b)
}

// PermissionRID returns the 16-byte RID of permission number n of the user
// userRID: the user part followed by n as a big-endian 64-bit number.
func PermissionRID(userRID string, n int64) string {
	b := make([]byte, 16)
	if u, ok := DecodeRID(userRID); ok && len(u) == 8 {
		copy(b, u)
	}
	binary.BigEndian.PutUint64(b[8:], uint64(n))
	return encodeRID(b)
}

// UserStore persists users and permissions. References are ids or RIDs
// (an id wins). Missing databases, users and permissions are
// ErrResourceNotFound; a duplicate id is ErrConflict; a second permission
// of one user for the same resource text and partition key is
// ErrPermissionResourceConflict. Deleting a user deletes its permissions;
// deleting a database deletes its users.
type UserStore interface {
	CreateUser(ctx context.Context, p UserParams) (User, error)
	// UpsertUser creates the user, or stamps the existing one with p's
	// TS and ETag; created reports which.
	UpsertUser(ctx context.Context, p UserParams) (u User, created bool, err error)
	GetUser(ctx context.Context, dbRef, userRef string) (User, error)
	// ListUsers returns the database and its users in creation order.
	ListUsers(ctx context.Context, dbRef string) (Database, []User, error)
	// ReplaceUser renames the user p.Ref to p.ID, keeping its RID and
	// permissions.
	ReplaceUser(ctx context.Context, p UserParams) (User, error)
	DeleteUser(ctx context.Context, dbRef, userRef string) error

	CreatePermission(ctx context.Context, p PermissionParams) (Permission, error)
	// UpsertPermission creates the permission or replaces the one with
	// the same id; created reports which.
	UpsertPermission(ctx context.Context, p PermissionParams) (pm Permission, created bool, err error)
	GetPermission(ctx context.Context, dbRef, userRef, permRef string) (Permission, error)
	// ListPermissions returns the user and its permissions in creation
	// order.
	ListPermissions(ctx context.Context, dbRef, userRef string) (User, []Permission, error)
	// ReplacePermission replaces the permission p.Ref (renaming it to
	// p.ID), keeping its RID.
	ReplacePermission(ctx context.Context, p PermissionParams) (Permission, error)
	DeletePermission(ctx context.Context, dbRef, userRef, permRef string) error

	// ItemIDBySeq returns the id of the item of container c whose
	// document number (Item.Seq, the _rid's last 8 bytes) is seq, expired
	// or not; ErrItemNotFound when there is none. It resolves the RID link
	// of an item a permission names.
	ItemIDBySeq(ctx context.Context, c Container, seq int64) (string, error)
}

// UserParams are the inputs of the user write methods. Ref names the user
// to replace (ReplaceUser only).
type UserParams struct {
	DatabaseRef string
	Ref         string
	ID          string
	TS          int64
	ETag        string
}

// PermissionParams are the inputs of the permission write methods. Ref
// names the permission to replace (ReplacePermission only).
type PermissionParams struct {
	DatabaseRef, UserRef string
	Ref                  string
	ID                   string
	Mode                 string
	Resource             string
	// ResourceKey is Resource without outer slashes: the duplicate check
	// compares it and PartitionKey.
	ResourceKey  string
	Scope        string
	PartitionKey []byte
	TS           int64
	ETag         string
}

// MsgPermissionResourceConflict is the 409 of a second permission of one
// user on the same resource (users-permissions.md §2.4).
const MsgPermissionResourceConflict = "The resource is already associated with another permission for the user."

// ErrPermissionResourceConflict is the 409 of a second permission of one
// user on the same resource and partition key.
var ErrPermissionResourceConflict = &Error{Kind: KindConflict, Message: MsgPermissionResourceConflict}

// MaxPermissionResourceLength bounds a permission's resource link and its
// resourcePartitionKey (in bytes each), so that resource tokens stay well
// under the 8 KiB an Authorization header may hold.
const MaxPermissionResourceLength = 1024

// userSystemProperties are dropped from user and permission bodies: clients
// send read-back bodies on replace and upsert.
var userSystemProperties = []string{"_rid", "_ts", "_self", "_etag", "_permissions", "_token"}

// parseUser validates a user body ({"id": ...}) and returns the id.
func parseUser(ctx context.Context, body []byte) (string, error) {
	obj, err := decodeObject(ctx, body)
	if err != nil {
		return "", err
	}
	idv, _ := obj.Get("id")
	return ValidateResourceName(idv)
}

// CreateUser creates a user in database dbRef (201; 409 when the id is taken).
func (s *Service) CreateUser(ctx context.Context, dbRef string, body []byte) (User, error) {
	id, err := parseUser(ctx, body)
	if err != nil {
		return User{}, err
	}
	ts := s.now()
	return s.store.CreateUser(ctx, UserParams{DatabaseRef: dbRef, ID: id, TS: ts, ETag: NewETag(ts)})
}

// UpsertUser creates a user or stamps the existing one of that id; created
// reports which (201 / 200).
func (s *Service) UpsertUser(ctx context.Context, dbRef string, body []byte) (User, bool, error) {
	id, err := parseUser(ctx, body)
	if err != nil {
		return User{}, false, err
	}
	ts := s.now()
	return s.store.UpsertUser(ctx, UserParams{DatabaseRef: dbRef, ID: id, TS: ts, ETag: NewETag(ts)})
}

// GetUser reads a user.
func (s *Service) GetUser(ctx context.Context, dbRef, userRef string) (User, error) {
	return s.store.GetUser(ctx, dbRef, userRef)
}

// ReplaceUser replaces (renames) a user: its permissions are kept.
func (s *Service) ReplaceUser(ctx context.Context, dbRef, userRef string, body []byte) (User, error) {
	id, err := parseUser(ctx, body)
	if err != nil {
		return User{}, err
	}
	ts := s.now()
	return s.store.ReplaceUser(ctx, UserParams{DatabaseRef: dbRef, Ref: userRef, ID: id, TS: ts, ETag: NewETag(ts)})
}

// DeleteUser deletes a user and its permissions.
func (s *Service) DeleteUser(ctx context.Context, dbRef, userRef string) error {
	return s.store.DeleteUser(ctx, dbRef, userRef)
}

// QueryUsers runs a query (SELECT * FROM root for a read feed) over the
// users of a database.
func (s *Service) QueryUsers(ctx context.Context, dbRef string, q Query, page PageRequest) (Database, QueryPage, error) {
	db, us, err := s.store.ListUsers(ctx, dbRef)
	if err != nil {
		return db, QueryPage{}, err
	}
	docs := make([][]byte, len(us))
	for i, u := range us {
		docs[i] = u.JSON()
	}
	res, err := s.queryResources(ctx, docs, q, page)
	return db, res, err
}

// parsePermission validates a permission body: id, permissionMode (All or
// Read, any case, kept as sent), resource (a link dbs/{db}[/colls/{c}[/
// {docs|sprocs|udfs|triggers}/{id}]], by names or RIDs, kept as sent) and
// the optional resourcePartitionKey, which must be a JSON array of
// partition key components.
func (s *Service) parsePermission(ctx context.Context, dbRef, userRef string, body []byte) (PermissionParams, error) {
	obj, err := decodeObject(ctx, body)
	if err != nil {
		return PermissionParams{}, err
	}
	for _, p := range userSystemProperties {
		obj.Delete(p)
	}
	idv, _ := obj.Get("id")
	id, err := ValidateResourceName(idv)
	if err != nil {
		return PermissionParams{}, err
	}
	p := PermissionParams{DatabaseRef: dbRef, UserRef: userRef, ID: id}
	mv, ok := obj.Get("permissionMode")
	if !ok || mv == nil {
		return p, BadRequest("The input content is invalid because the required properties - 'permissionMode; ' - are missing")
	}
	mode, _ := mv.(string)
	if !strings.EqualFold(mode, "all") && !strings.EqualFold(mode, "read") {
		return p, BadRequest("The permissionMode %s is invalid: it must be \"All\" or \"Read\".", string(EncodeJSON(mv)))
	}
	p.Mode = mode
	rv, ok := obj.Get("resource")
	if !ok || rv == nil {
		return p, BadRequest("The input content is invalid because the required properties - 'resource; ' - are missing")
	}
	res, _ := rv.(string)
	segs, err := parseResourceLink(res)
	if err != nil {
		return p, err
	}
	p.Resource, p.ResourceKey = res, strings.Join(segs, "/")
	if v, ok := obj.Get("resourcePartitionKey"); ok && v != nil {
		arr, isArr := v.([]any)
		if !isArr || len(arr) == 0 {
			return p, BadRequest("Partition key supplied is not valid. The resourcePartitionKey must be a JSON array of partition key values, e.g. [\"a\"].")
		}
		if _, ok := PartitionKeyFromJSON(arr); !ok {
			return p, BadRequest("Partition key supplied is not valid. The resourcePartitionKey must be a JSON array of strings, numbers, booleans, null or {}.")
		}
		p.PartitionKey = EncodeJSON(arr)
		if len(p.PartitionKey) > MaxPermissionResourceLength {
			return p, BadRequest("Partition key supplied is not valid: the resourcePartitionKey is longer than %d bytes.", MaxPermissionResourceLength)
		}
	}
	p.Scope = s.resolveScope(ctx, segs)
	ts := s.now()
	p.TS, p.ETag = ts, NewETag(ts)
	return p, nil
}

// permissionChildKinds are the container children a permission may name.
var permissionChildKinds = map[string]bool{"docs": true, "sprocs": true, "udfs": true, "triggers": true}

// parseResourceLink splits a permission's resource link into its segments
// (outer slashes ignored) and checks its shape: dbs/{db},
// dbs/{db}/colls/{c}, or dbs/{db}/colls/{c}/{docs|sprocs|udfs|triggers}/{id}.
// Whether the resource exists is not checked (the service does not).
func parseResourceLink(res string) ([]string, error) {
	bad := func() error {
		return BadRequest("The permission resource '%s' is invalid. Ensure to provide the link of a database, a container or a container's document, stored procedure, trigger or user-defined function, such as \"dbs/db1/colls/coll1\" or its _self link.", res)
	}
	if len(res) > MaxPermissionResourceLength {
		return nil, BadRequest("The permission resource is longer than %d bytes.", MaxPermissionResourceLength)
	}
	t := strings.Trim(res, "/")
	if t == "" {
		return nil, bad()
	}
	segs := strings.Split(t, "/")
	if len(segs)%2 != 0 || len(segs) > 6 || segs[0] != "dbs" {
		return nil, bad()
	}
	if len(segs) >= 4 && segs[2] != "colls" {
		return nil, bad()
	}
	if len(segs) == 6 && !permissionChildKinds[segs[4]] {
		return nil, bad()
	}
	for i := 1; i < len(segs); i += 2 {
		if segs[i] == "" || strings.IndexByte(segs[i], 0) >= 0 {
			return nil, bad()
		}
	}
	return segs, nil
}

// resolveScope returns the link segments joined with '/', with the
// database, container and document segments replaced by their ids when
// they name existing resources (RID links become name links; name links
// stay). What does not resolve is kept as given.
func (s *Service) resolveScope(ctx context.Context, segs []string) string {
	out := append([]string(nil), segs...)
	if len(segs) >= 4 {
		if c, err := s.store.GetContainer(ctx, segs[1], segs[3]); err == nil {
			out[1], out[3] = c.DatabaseID, c.ID
			if len(segs) == 6 && segs[4] == "docs" {
				if seq, ok := documentSeq(c, segs[5]); ok {
					if id, err := s.store.ItemIDBySeq(ctx, c, seq); err == nil {
						out[5] = id
					}
				}
			}
			return strings.Join(out, "/")
		}
	}
	if d, err := s.store.GetDatabase(ctx, segs[1]); err == nil {
		out[1] = d.ID
	}
	return strings.Join(out, "/")
}

// documentSeq returns the document number of rid when it is a document
// RID of container c (DocumentRID).
func documentSeq(c Container, rid string) (int64, bool) {
	b, ok := DecodeRID(rid)
	cb, ok2 := DecodeRID(c.RID)
	if !ok || !ok2 || len(b) != 16 || string(b[:8]) != string(cb) {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(b[8:])), true
}

// CreatePermission creates a permission of user userRef (201; 409 when the
// id is taken or the user already has a permission for the same resource
// and partition key).
func (s *Service) CreatePermission(ctx context.Context, dbRef, userRef string, body []byte) (Permission, error) {
	p, err := s.parsePermission(ctx, dbRef, userRef, body)
	if err != nil {
		return Permission{}, err
	}
	return s.store.CreatePermission(ctx, p)
}

// UpsertPermission creates a permission or replaces the one with the same
// id; created reports which (201 / 200).
func (s *Service) UpsertPermission(ctx context.Context, dbRef, userRef string, body []byte) (Permission, bool, error) {
	p, err := s.parsePermission(ctx, dbRef, userRef, body)
	if err != nil {
		return Permission{}, false, err
	}
	return s.store.UpsertPermission(ctx, p)
}

// GetPermission reads a permission.
func (s *Service) GetPermission(ctx context.Context, dbRef, userRef, permRef string) (Permission, error) {
	return s.store.GetPermission(ctx, dbRef, userRef, permRef)
}

// ReplacePermission replaces a permission from a full body (id,
// permissionMode and resource required); a new id renames it.
func (s *Service) ReplacePermission(ctx context.Context, dbRef, userRef, permRef string, body []byte) (Permission, error) {
	p, err := s.parsePermission(ctx, dbRef, userRef, body)
	if err != nil {
		return Permission{}, err
	}
	p.Ref = permRef
	return s.store.ReplacePermission(ctx, p)
}

// DeletePermission deletes a permission. Tokens minted for it stay valid
// until they expire (they are self-contained).
func (s *Service) DeletePermission(ctx context.Context, dbRef, userRef, permRef string) error {
	return s.store.DeletePermission(ctx, dbRef, userRef, permRef)
}

// QueryPermissions runs a query over the permissions of a user, each
// rendered by render (which mints its token).
func (s *Service) QueryPermissions(ctx context.Context, dbRef, userRef string, q Query, page PageRequest, render func(Permission) []byte) (User, QueryPage, error) {
	u, ps, err := s.store.ListPermissions(ctx, dbRef, userRef)
	if err != nil {
		return u, QueryPage{}, err
	}
	docs := make([][]byte, len(ps))
	for i, p := range ps {
		docs[i] = render(p)
	}
	res, err := s.queryResources(ctx, docs, q, page)
	return u, res, err
}

// QueryConflicts runs a query (SELECT * FROM root for a read feed) over a
// container's conflicts, which are always none: an account with one write
// region has no write conflicts (users-permissions.md §5.3). The query is
// still parsed, so a malformed one is a 400.
//
// A query with unscoped set (no partition key, no partition key range id,
// cross-partition queries not enabled) on a partitioned container is
// refused as the service refuses it (400, MsgCrossPartitionDisabled): the
// Python SDK's test_partition_key.py test_with_null_pk expects that of
// query_conflicts without a partition key.
func (s *Service) QueryConflicts(ctx context.Context, dbRef, collRef string, q Query, page PageRequest, unscoped bool) (Container, QueryPage, error) {
	c, err := s.store.GetContainer(ctx, dbRef, collRef)
	if err != nil {
		return c, QueryPage{}, err
	}
	if unscoped && !c.PartitionKey.SystemKey {
		return c, QueryPage{}, BadRequest("%s", MsgCrossPartitionDisabled)
	}
	res, err := s.queryResources(ctx, nil, q, page)
	return c, res, err
}
