package wire

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Script resources (stored procedures, triggers, user-defined functions)
// under a container: /dbs/{db}/colls/{coll}/{sprocs|triggers|udfs}[/{id}].
// They are signed like every other resource (ResourceTypeAndLink: type
// sprocs/triggers/udfs, link the container's for the feed and the
// script's for one script); {db}, {coll} and {id} may be ids or RIDs.

// scriptKindPattern matches the path segment of a script kind.
const scriptKindPattern = "{kind:sprocs|triggers|udfs}"

// registerScripts adds the script routes to r.
func (h *handler) registerScripts(r *mux.Router) {
	feed := "/dbs/{db}/colls/{coll}/" + scriptKindPattern
	r.HandleFunc(feed, h.queryScripts).Methods(http.MethodGet)
	r.HandleFunc(feed, h.postScripts).Methods(http.MethodPost)
	one := feed + "/{id}"
	r.HandleFunc(one, h.getScript).Methods(http.MethodGet)
	r.HandleFunc(one, h.replaceScript).Methods(http.MethodPut)
	r.HandleFunc(one, h.deleteScript).Methods(http.MethodDelete)
	r.HandleFunc(one, h.postScript).Methods(http.MethodPost)
}

// scriptKind returns the kind of the routed request.
func scriptKind(r *http.Request) emulator.ScriptKind {
	k, _ := emulator.ParseScriptKind(mux.Vars(r)["kind"])
	return k
}

// queryScripts serves the read feed (GET) and queries of a kind's scripts.
func (h *handler) queryScripts(w http.ResponseWriter, r *http.Request) {
	q, p, err := resourceQuery(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	k := scriptKind(r)
	c, res, err := h.svc.QueryScripts(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), k, q, p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeFeed(w, c.RID, k.FeedName(), res.Docs, res.Continuation)
}

// postScripts creates a script, or runs a query of them.
func (h *handler) postScripts(w http.ResponseWriter, r *http.Request) {
	if isQuery(r) {
		h.queryScripts(w, r)
		return
	}
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	c, sc, err := h.svc.CreateScript(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), scriptKind(r), body)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeScript(w, http.StatusCreated, c, sc)
}

// writeScript sends one script resource.
func (h *handler) writeScript(w http.ResponseWriter, status int, c emulator.Container, sc emulator.Script) {
	body := sc.JSON(c)
	hd := w.Header()
	hd.Set("X-Ms-Request-Charge", charge(status != http.StatusOK, len(body)))
	hd.Set("X-Ms-Alt-Content-Path", "dbs/"+c.DatabaseID+"/colls/"+c.ID)
	hd.Set("X-Ms-Content-Path", c.RID)
	writeResource(w, status, body, sc.ETag)
}

func (h *handler) getScript(w http.ResponseWriter, r *http.Request) {
	c, sc, err := h.svc.GetScript(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), scriptKind(r), pathVar(r, "id"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && (inm == sc.ETag || inm == "*") {
		w.Header().Set("Etag", sc.ETag)
		writeBody(w, http.StatusNotModified, nil)
		return
	}
	h.writeScript(w, http.StatusOK, c, sc)
}

func (h *handler) replaceScript(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	c, sc, err := h.svc.ReplaceScript(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), scriptKind(r), pathVar(r, "id"), body, r.Header.Get("If-Match"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeScript(w, http.StatusOK, c, sc)
}

func (h *handler) deleteScript(w http.ResponseWriter, r *http.Request) {
	if err := h.svc.DeleteScript(r.Context(), pathVar(r, "db"), pathVar(r, "coll"), scriptKind(r), pathVar(r, "id"), r.Header.Get("If-Match")); err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("X-Ms-Request-Charge", charge(true, 0))
	writeBody(w, http.StatusNoContent, nil)
}

// postScript executes a stored procedure; triggers and UDFs cannot be
// executed directly.
func (h *handler) postScript(w http.ResponseWriter, r *http.Request) {
	if scriptKind(r) != emulator.ScriptSproc {
		h.writeError(w, r, emulator.Errorf(emulator.KindMethodNotAllowed, "The requested verb POST is not supported on %s: only stored procedures are executed.", r.URL.Path))
		return
	}
	h.executeSproc(w, r)
}

// executeSproc serves POST .../sprocs/{id}: the parameters are the body
// (absent, null, or a JSON array or array-like object), the partition key
// header names the logical partition the procedure runs in, and the
// response is 200 with the JSON of the script's response body.
func (h *handler) executeSproc(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Ms-Documentdb-Pre-Trigger-Include") != "" || r.Header.Get("X-Ms-Documentdb-Post-Trigger-Include") != "" {
		h.writeError(w, r, emulator.BadRequest("One of the specified inputs is invalid: triggers cannot be included in a stored procedure execution."))
		return
	}
	pk, err := ParsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if len(body) == 0 {
		body = nil
	}
	logging := isTrue(r.Header.Get("X-Ms-Documentdb-Script-Enable-Logging"))
	res, err := h.svc.ExecuteSproc(r.Context(), emulator.SprocRequest{
		Database: pathVar(r, "db"), Container: pathVar(r, "coll"), ID: pathVar(r, "id"),
		PartitionKey: pk, Body: body, Logging: logging,
	})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	hd := w.Header()
	if logging {
		hd.Set("X-Ms-Documentdb-Script-Log-Results", encodeURIComponent(res.Log))
	}
	hd.Set("X-Ms-Request-Charge", charge(res.LSN != 0, len(res.Body)))
	hd.Set("X-Ms-Alt-Content-Path", "dbs/"+res.Container.DatabaseID+"/colls/"+res.Container.ID)
	hd.Set("X-Ms-Content-Path", res.Container.RID)
	setRangeSession(w, res.Container, servedRange(res.Container, emulator.PartitionKeyRange{}, pk), res.LSN)
	writeBody(w, http.StatusOK, res.Body)
}

// encodeURIComponent escapes s as JavaScript's encodeURIComponent does
// (the encoding of x-ms-documentdb-script-log-results).
func encodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
