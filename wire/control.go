package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// The control endpoints let tests move emulator time and drive the TTL
// sweeper. They are authenticated like every Cosmos request (the generic
// resource type/link rule applied to the path: type "_emulator", link
// "_emulator/clock"; type "sweep", link "_emulator/ttl"; type "_emulator",
// link "_emulator/stats").
//
//	GET  /_emulator/clock      -> {"now": <unix s>, "offsetSeconds": n}
//	POST /_emulator/clock      <- {"advanceSeconds": n} | {"offsetSeconds": n[, "reset": true]}
//	POST /_emulator/ttl/sweep  -> {"deleted": n}
//	GET  /_emulator/stats      -> {"containers":[...],"sweeper":{...},"scripts":{"abandoned":n,"abandonedRunning":n},
//	                               "faults":{"injected":{"<rule name>":n}}}
//	POST /_emulator/reset      -> 204
//	POST /_emulator/dbs/{db}/colls/{coll}/pkranges/{id}/split  <- {} | {"epk": "<EPK>"}
//	                           -> {"_rid":..,"PartitionKeyRanges":[<child>,<child>],"_count":2}
//
// The reset endpoint (type "_emulator", link "_emulator/reset") removes
// every database and everything in it (emulator.Service.Reset) and the
// throttling budgets (a re-created container starts with a full one);
// the clock, the fault rules and the settings stay. It is one step for
// concurrent requests: each sees the data before or after it, and one
// that addresses a removed resource fails with a clean 404 (410 for a
// partition key range).
//
// The split endpoint (type: the range id, link: the whole path, by the
// generic rule) splits live partition key range {id} at the middle of its
// hash space, or at "epk" (strictly inside it), into two children with new
// ids, answered in the form GET .../pkranges lists ranges; {id} then
// answers 410/1002.
// "faults" counts the faults each rule injected since start, deleted
// rules included (faults_http.go has the fault endpoints).
// "scripts" counts the script executions abandoned past their time bound
// (answered 408 while their JavaScript had not stopped) and how many of
// them still run.

// ClockResponse is the body of the clock endpoints.
type ClockResponse struct {
	Now           int64 `json:"now"`
	OffsetSeconds int64 `json:"offsetSeconds"`
}

// ClockRequest is the body of POST /_emulator/clock.
type ClockRequest struct {
	AdvanceSeconds *int64 `json:"advanceSeconds"`
	OffsetSeconds  *int64 `json:"offsetSeconds"`
	Reset          bool   `json:"reset"`
}

// registerControl adds the control plane's routes (all under /_emulator/)
// to r: the clock, sweep, stats, reset and split endpoints, the fault rules
// (faults_http.go) and, with reg, the Prometheus metrics at MetricsPath
// (whose request and fault counters it also registers). The health check
// is registered first of all by router, for its cost (the benchmarks'
// floor), and answered by health below.
func (h *handler) registerControl(r *mux.Router, reg *prometheus.Registry) error {
	if reg != nil {
		var err error
		if h.metrics, err = newRequestMetrics(reg); err != nil {
			return fmt.Errorf("wire: metrics: %w", err)
		}
		if err := newFaultMetrics(reg, h.faults); err != nil {
			return fmt.Errorf("wire: metrics: %w", err)
		}
		r.Handle(MetricsPath, metricsHandler(reg)).Methods(http.MethodGet)
	}
	h.registerFaults(r)
	r.HandleFunc("/_emulator/clock", h.getClock).Methods(http.MethodGet)
	r.HandleFunc("/_emulator/clock", h.setClock).Methods(http.MethodPost)
	r.HandleFunc("/_emulator/ttl/sweep", h.sweep).Methods(http.MethodPost)
	r.HandleFunc("/_emulator/stats", h.stats).Methods(http.MethodGet)
	r.HandleFunc("/_emulator/reset", h.reset).Methods(http.MethodPost)
	r.HandleFunc("/_emulator/dbs/{db}/colls/{coll}/pkranges/{id}/split", h.splitRange).Methods(http.MethodPost)
	return nil
}

// health answers GET /_emulator/health (unsigned): 200 {"status":"ok"}
// once the emulator serves and its database answers, else 503.
func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	if !h.ready() {
		h.writeError(w, r, emulator.Errorf(emulator.KindUnavailable, "The emulator is not ready: it is starting or stopping, or its database is unreachable."))
		return
	}
	writeBody(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// SplitRequest is the body of POST
// /_emulator/dbs/{db}/colls/{coll}/pkranges/{id}/split; an empty body or
// EPK splits at the middle of the range.
type SplitRequest struct {
	EPK string `json:"epk,omitempty"`
}

func (h *handler) splitRange(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	var req SplitRequest
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			h.writeError(w, r, &emulator.Error{Kind: emulator.KindBadRequest, Message: "The split request must be {} or {\"epk\": \"<effective partition key>\"}.", Err: err})
			return
		}
	}
	db, coll := pathVar(r, "db"), pathVar(r, "coll")
	kids, err := h.svc.SplitRange(r.Context(), db, coll, pathVar(r, "id"), req.EPK)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	c, err := h.svc.GetContainer(r.Context(), db, coll)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	docs := make([][]byte, len(kids))
	for i, k := range kids {
		docs[i] = c.PartitionKeyRangeJSON(k)
	}
	w.Header().Set("Etag", rangesETag(c))
	writeFeed(w, c.RID, "PartitionKeyRanges", docs, "")
}

func (h *handler) writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	writeBody(w, http.StatusOK, b)
}

func (h *handler) clockResponse() ClockResponse {
	c := h.svc.Clock()
	return ClockResponse{Now: c.Now().Unix(), OffsetSeconds: int64(c.Offset() / time.Second)}
}

func (h *handler) getClock(w http.ResponseWriter, r *http.Request) {
	h.writeJSON(w, r, h.clockResponse())
}

func (h *handler) setClock(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	var req ClockRequest
	if err := json.Unmarshal(body, &req); err != nil {
		h.writeError(w, r, &emulator.Error{Kind: emulator.KindBadRequest, Message: "The clock request must be {\"advanceSeconds\": n} or {\"offsetSeconds\": n}.", Err: err})
		return
	}
	c := h.svc.Clock()
	switch {
	case req.AdvanceSeconds != nil && req.OffsetSeconds == nil:
		err = c.Advance(time.Duration(*req.AdvanceSeconds) * time.Second)
	case req.OffsetSeconds != nil && req.AdvanceSeconds == nil:
		err = c.SetOffset(time.Duration(*req.OffsetSeconds)*time.Second, req.Reset)
	default:
		err = emulator.BadRequest("The clock request must carry exactly one of advanceSeconds and offsetSeconds.")
	}
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeJSON(w, r, h.clockResponse())
}

func (h *handler) sweep(w http.ResponseWriter, r *http.Request) {
	if h.sweepFn == nil {
		h.writeError(w, r, emulator.Errorf(emulator.KindUnavailable, "The TTL sweeper is not running in this emulator."))
		return
	}
	n, err := h.sweepFn(r.Context())
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeJSON(w, r, map[string]int{"deleted": n})
}

func (h *handler) reset(w http.ResponseWriter, r *http.Request) {
	n, err := h.svc.Reset(r.Context())
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if h.limiter != nil {
		h.limiter.reset()
	}
	h.log.Debug("reset: every database removed", "databases", n)
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) stats(w http.ResponseWriter, r *http.Request) {
	cs, err := h.svc.ContainerStats(r.Context())
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if cs == nil {
		cs = []emulator.ContainerStats{}
	}
	out := map[string]any{"containers": cs, "clock": h.clockResponse(), "scripts": h.svc.ScriptStats(),
		"faults": map[string]any{"injected": h.faults.Injected()}}
	if h.sweeperStats != nil {
		out["sweeper"] = h.sweeperStats()
	}
	h.writeJSON(w, r, out)
}
