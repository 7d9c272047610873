package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// The fault control endpoints, authenticated with the master key like
// the other control endpoints, by the generic resource type/link rule
// applied to the path: GET/DELETE /_emulator/faults sign type
// "_emulator", link "_emulator/faults"; /_emulator/faults/{name} (an odd
// count of segments, a "feed") signs type {name}, link "_emulator/faults".
//
//	PUT    /_emulator/faults/{name}  <- <rule>  -> 201 (new) or 200 (replaced) {"name":..., <rule>, "hits":0}
//	GET    /_emulator/faults/{name}             -> {"name":..., <rule>, "hits":n}
//	GET    /_emulator/faults                    -> {"rules":[{"name":..., <rule>, "hits":n}, ...]}
//	DELETE /_emulator/faults/{name}             -> 204, 404 when absent
//	DELETE /_emulator/faults                    -> 204
//
// A rule's JSON is FaultRule; unknown members are refused (400) so that a
// misspelt bound does not silently make a rule unbounded.

func (h *handler) registerFaults(r *mux.Router) {
	r.HandleFunc("/_emulator/faults", h.listFaults).Methods(http.MethodGet)
	r.HandleFunc("/_emulator/faults", h.clearFaults).Methods(http.MethodDelete)
	r.HandleFunc("/_emulator/faults/{name}", h.getFault).Methods(http.MethodGet)
	r.HandleFunc("/_emulator/faults/{name}", h.putFault).Methods(http.MethodPut)
	r.HandleFunc("/_emulator/faults/{name}", h.deleteFault).Methods(http.MethodDelete)
}

// newFaultMetrics registers cosmos_emulator_faults_injected_total{rule}
// in reg and makes s count into it.
func newFaultMetrics(reg prometheus.Registerer, s *FaultSet) error {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cosmos_emulator_faults_injected_total",
		Help: "Requests a fault rule injected a fault into (an error answer, a delay or a closed connection), by rule name.",
	}, []string{"rule"})
	if err := reg.Register(c); err != nil {
		return err
	}
	s.onInject = func(name string) { c.WithLabelValues(name).Inc() }
	return nil
}

// faultHook runs the fault rules before next: a request that a rule picks
// is delayed, answered with the rule's error or loses its connection
// before it reaches next, so an injected failure never changes data. With
// no rule it costs one atomic load.
func (h *handler) faultHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := h.faults.pick(r)
		if f == nil {
			next.ServeHTTP(w, r)
			return
		}
		p := f.rule.Response
		if p.DelayMs > 0 {
			// The body is read before the wait: net/http watches the
			// connection for the client leaving (and cancels the
			// request's context) only once the body has been read to its
			// end, so a write whose client gave up during the delay would
			// otherwise still run after it. The body is bounded by the
			// size limit wrapped around it earlier in the chain.
			bufferBody(r)
			t := time.NewTimer(time.Duration(p.DelayMs) * time.Millisecond)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				h.writeError(w, r, r.Context().Err()) // the client left: 499
				return
			}
		}
		switch {
		case p.CloseConnection:
			// The server closes the connection (HTTP/1.1) or resets the
			// stream (HTTP/2) without an answer, as a crashed gateway
			// would; net/http logs nothing for this sentinel.
			panic(http.ErrAbortHandler)
		case p.Status != 0:
			writeInjected(w, p)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// writeInjected answers a rule's error in the service's shape: the code and
// message of the status, x-ms-substatus, no charge (nothing ran), and
// x-ms-retry-after-ms (and Retry-After) on a 429 or when the rule names one.
func writeInjected(w http.ResponseWriter, p FaultResponse) {
	hd := w.Header()
	hd.Set("X-Ms-Substatus", strconv.Itoa(p.SubStatus))
	hd.Set("X-Ms-Request-Charge", "0")
	retry := p.RetryAfterMs
	if retry == 0 && p.Status == http.StatusTooManyRequests {
		retry = DefaultFaultRetryAfterMs
	}
	if retry > 0 {
		hd.Set("X-Ms-Retry-After-Ms", strconv.Itoa(retry))
		hd.Set("Retry-After", strconv.Itoa((retry+999)/1000))
	}
	code, msg := injectedError(p.Status, p.SubStatus)
	msg += "\r\nActivityId: " + hd.Get("X-Ms-Activity-Id")
	writeErrorBody(w, p.Status, code, msg, "")
}

func (h *handler) listFaults(w http.ResponseWriter, r *http.Request) {
	h.writeJSON(w, r, h.faults.List())
}

func (h *handler) clearFaults(w http.ResponseWriter, r *http.Request) {
	h.faults.Clear()
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) getFault(w http.ResponseWriter, r *http.Request) {
	st, ok := h.faults.Get(pathVar(r, "name"))
	if !ok {
		h.writeError(w, r, emulator.Errorf(emulator.KindNotFound, "No fault rule is named %q.", pathVar(r, "name")))
		return
	}
	h.writeJSON(w, r, st)
}

func (h *handler) deleteFault(w http.ResponseWriter, r *http.Request) {
	if !h.faults.Delete(pathVar(r, "name")) {
		h.writeError(w, r, emulator.Errorf(emulator.KindNotFound, "No fault rule is named %q.", pathVar(r, "name")))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) putFault(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	var rule FaultRule
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(&rule); err != nil {
		h.writeError(w, r, &emulator.Error{Kind: emulator.KindBadRequest, Message: "The fault rule is not valid JSON of the rule's form ({\"match\":{...},\"response\":{...},\"count\":n,...}): " + err.Error(), Err: err})
		return
	}
	name := pathVar(r, "name")
	created, err := h.faults.Put(name, rule)
	if err != nil {
		h.writeError(w, r, &emulator.Error{Kind: emulator.KindBadRequest, Message: err.Error(), Err: err})
		return
	}
	st, _ := h.faults.Get(name)
	b, err := json.Marshal(st)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeBody(w, status, b)
}

// bufferBody reads r's body to its end, up to one byte past the largest
// body any request may carry (a larger one is refused later, as without
// a rule), and puts what it read back, so that the handlers read the same
// bytes (followed by the error that ended the read, if any, or by the
// unread rest of a body too large).
func bufferBody(r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, emulator.MaxItemSize+1))
	readers := []io.Reader{bytes.NewReader(b)}
	switch {
	case err != nil:
		readers = append(readers, errorReader{err})
	case len(b) > emulator.MaxItemSize:
		readers = append(readers, r.Body)
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(readers...), r.Body}
}

// errorReader returns err from every Read.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }
