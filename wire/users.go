package wire

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Users, permissions and the conflicts feed (users-permissions.md). Feeds
// and queries run on the metadata query engine, like databases and
// containers; every permission a response carries gets a freshly minted
// resource token (resourcetoken.go) valid for x-ms-documentdb-expiry-seconds.

func (h *handler) registerUsers(r *mux.Router) {
	r.HandleFunc("/dbs/{db}/users", h.queryUsers).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/users", h.postUsers).Methods(http.MethodPost)
	r.HandleFunc("/dbs/{db}/users/{user}", h.getUser).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/users/{user}", h.replaceUser).Methods(http.MethodPut)
	r.HandleFunc("/dbs/{db}/users/{user}", h.deleteUser).Methods(http.MethodDelete)

	r.HandleFunc("/dbs/{db}/users/{user}/permissions", h.queryPermissions).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/users/{user}/permissions", h.postPermissions).Methods(http.MethodPost)
	r.HandleFunc("/dbs/{db}/users/{user}/permissions/{perm}", h.getPermission).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/users/{user}/permissions/{perm}", h.replacePermission).Methods(http.MethodPut)
	r.HandleFunc("/dbs/{db}/users/{user}/permissions/{perm}", h.deletePermission).Methods(http.MethodDelete)

	r.HandleFunc("/dbs/{db}/colls/{coll}/conflicts", h.queryConflicts).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/colls/{coll}/conflicts", h.postConflicts).Methods(http.MethodPost)
	r.HandleFunc("/dbs/{db}/colls/{coll}/conflicts/{id}", h.conflict).Methods(http.MethodGet, http.MethodDelete)
}

// ---- users

// queryUsers serves GET /dbs/{db}/users and user queries.
func (h *handler) queryUsers(w http.ResponseWriter, r *http.Request) {
	q, p, err := resourceQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	d, res, err := h.svc.QueryUsers(r.Context(), pathVar(r, "db"), q, p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeFeed(w, d.RID, "Users", res.Docs, res.Continuation)
}

// postUsers serves user create, upsert (x-ms-documentdb-is-upsert) and
// queries.
func (h *handler) postUsers(w http.ResponseWriter, r *http.Request) {
	if isQuery(r) {
		h.queryUsers(w, r)
		return
	}
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	var u emulator.User
	created := true
	if isTrue(r.Header.Get("X-Ms-Documentdb-Is-Upsert")) {
		u, created, err = h.svc.UpsertUser(r.Context(), pathVar(r, "db"), body)
	} else {
		u, err = h.svc.CreateUser(r.Context(), pathVar(r, "db"), body)
	}
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeUser(w, createdStatus(created), u)
}

// createdStatus is 201 for a created resource, 200 for an upsert that
// replaced one.
func createdStatus(created bool) int {
	if created {
		return http.StatusCreated
	}
	return http.StatusOK
}

func writeUser(w http.ResponseWriter, status int, u emulator.User) {
	w.Header().Set("X-Ms-Content-Path", u.DatabaseRID)
	writeResource(w, status, u.JSON(), u.ETag)
}

func (h *handler) getUser(w http.ResponseWriter, r *http.Request) {
	u, err := h.svc.GetUser(r.Context(), pathVar(r, "db"), pathVar(r, "user"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeUser(w, http.StatusOK, u)
}

func (h *handler) replaceUser(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	u, err := h.svc.ReplaceUser(r.Context(), pathVar(r, "db"), pathVar(r, "user"), body)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeUser(w, http.StatusOK, u)
}

func (h *handler) deleteUser(w http.ResponseWriter, r *http.Request) {
	if err := h.svc.DeleteUser(r.Context(), pathVar(r, "db"), pathVar(r, "user")); err != nil {
		h.writeError(w, r, err)
		return
	}
	writeBody(w, http.StatusNoContent, nil)
}

// ---- permissions

// queryPermissions serves GET .../permissions and permission queries; each
// permission gets a new token before the query sees it.
func (h *handler) queryPermissions(w http.ResponseWriter, r *http.Request) {
	life, err := tokenLifetime(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	q, p, err := resourceQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	render := func(pm emulator.Permission) []byte { return pm.JSON(h.mintToken(pm, life)) }
	u, res, err := h.svc.QueryPermissions(r.Context(), pathVar(r, "db"), pathVar(r, "user"), q, p, render)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeFeed(w, u.RID, "Permissions", res.Docs, res.Continuation)
}

// postPermissions serves permission create, upsert and queries.
func (h *handler) postPermissions(w http.ResponseWriter, r *http.Request) {
	if isQuery(r) {
		h.queryPermissions(w, r)
		return
	}
	h.writePermissionOp(w, r, func(body []byte) (emulator.Permission, bool, error) {
		db, user := pathVar(r, "db"), pathVar(r, "user")
		if isTrue(r.Header.Get("X-Ms-Documentdb-Is-Upsert")) {
			return h.svc.UpsertPermission(r.Context(), db, user, body)
		}
		p, err := h.svc.CreatePermission(r.Context(), db, user, body)
		return p, true, err
	})
}

func (h *handler) replacePermission(w http.ResponseWriter, r *http.Request) {
	h.writePermissionOp(w, r, func(body []byte) (emulator.Permission, bool, error) {
		p, err := h.svc.ReplacePermission(r.Context(), pathVar(r, "db"), pathVar(r, "user"), pathVar(r, "perm"), body)
		return p, false, err
	})
}

// writePermissionOp runs a permission write on the request body (the
// expiry header is checked first, so a bad one writes nothing) and sends
// the permission with a new token: 201 when created, else 200.
func (h *handler) writePermissionOp(w http.ResponseWriter, r *http.Request, op func(body []byte) (emulator.Permission, bool, error)) {
	life, err := tokenLifetime(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	p, created, err := op(body)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writePermission(w, createdStatus(created), p, life)
}

func (h *handler) writePermission(w http.ResponseWriter, status int, p emulator.Permission, life int64) {
	w.Header().Set("X-Ms-Content-Path", p.UserRID)
	writeResource(w, status, p.JSON(h.mintToken(p, life)), p.ETag)
}

func (h *handler) getPermission(w http.ResponseWriter, r *http.Request) {
	life, err := tokenLifetime(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	p, err := h.svc.GetPermission(r.Context(), pathVar(r, "db"), pathVar(r, "user"), pathVar(r, "perm"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writePermission(w, http.StatusOK, p, life)
}

func (h *handler) deletePermission(w http.ResponseWriter, r *http.Request) {
	if err := h.svc.DeletePermission(r.Context(), pathVar(r, "db"), pathVar(r, "user"), pathVar(r, "perm")); err != nil {
		h.writeError(w, r, err)
		return
	}
	writeBody(w, http.StatusNoContent, nil)
}

// ---- conflicts

// queryConflicts serves GET .../conflicts and conflict queries: always
// empty (one write region), 404 for a missing container; a query that
// names no partition key or range and does not enable cross-partition
// queries is 400 on a partitioned container, as the service answers it.
func (h *handler) queryConflicts(w http.ResponseWriter, r *http.Request) {
	q, p, err := resourceQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	unscoped := r.Method == http.MethodPost && r.Header.Get("X-Ms-Documentdb-Partitionkey") == "" &&
		r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid") == "" && !enablesCrossPartition(r)
	c, res, err := h.svc.QueryConflicts(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), q, p, unscoped)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeFeed(w, c.RID, "Conflicts", res.Docs, res.Continuation)
}

func (h *handler) postConflicts(w http.ResponseWriter, r *http.Request) {
	if !isQuery(r) {
		h.writeError(w, r, emulator.Errorf(emulator.KindMethodNotAllowed, "Conflicts cannot be created; only the service records them (and an account with one write region has none)."))
		return
	}
	h.queryConflicts(w, r)
}

// conflict serves the read and delete of one conflict: there are none.
func (h *handler) conflict(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, emulator.ErrResourceNotFound)
}
