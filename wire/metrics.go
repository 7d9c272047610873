package wire

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cosmos-emulator/cosmos-emulator/internal/reqphase"
)

// MetricsPath is where the handler serves Prometheus metrics, unsigned
// (scrapers do not sign Cosmos requests; the metrics hold counts, never
// names or data).
const MetricsPath = "/_emulator/metrics"

// metricsGatherTimeout bounds one scrape: collectors that query
// PostgreSQL (server's TTL backlog) have their own shorter bound.
const metricsGatherTimeout = 10 * time.Second

// requestMetrics are the wire layer's Prometheus collectors.
type requestMetrics struct {
	requests *prometheus.CounterVec   // operation, resource_type, status
	duration *prometheus.HistogramVec // operation, resource_type
	charge   *prometheus.CounterVec   // operation, resource_type
	cfReads  *prometheus.CounterVec   // mode, result
	cfItems  *prometheus.CounterVec   // mode
	scripts  *prometheus.CounterVec   // kind, result
	phases   *prometheus.CounterVec   // operation, resource_type, phase
}

// newRequestMetrics registers the request collectors in reg.
func newRequestMetrics(reg prometheus.Registerer) (*requestMetrics, error) {
	m := &requestMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosmos_emulator_requests_total",
			Help: "Requests answered, by operation, resource type and HTTP status.",
		}, []string{"operation", "resource_type", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cosmos_emulator_request_duration_seconds",
			Help:    "Time from the request's headers to the end of its response, by operation and resource type.",
			Buckets: prometheus.ExponentialBuckets(0.00025, 2, 16), // 0.25 ms .. 8.2 s
		}, []string{"operation", "resource_type"}),
		charge: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosmos_emulator_request_charge_total",
			Help: "Request units charged (x-ms-request-charge) by Cosmos operations (not /_emulator or /_explorer), by operation and resource type.",
		}, []string{"operation", "resource_type"}),
		cfReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosmos_emulator_changefeed_reads_total",
			Help: "Change feed reads, by mode (latest_version, all_versions_and_deletes) and result (changes, not_modified, error).",
		}, []string{"mode", "result"}),
		cfItems: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosmos_emulator_changefeed_items_total",
			Help: "Changes returned by change feed reads, by mode.",
		}, []string{"mode"}),
		scripts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosmos_emulator_script_requests_total",
			Help: "Requests that ran server-side JavaScript, by kind (stored_procedure; pre_trigger and post_trigger for writes naming them) and result (ok, script_error for a 4xx other than 408, timeout for 408, error for 5xx).",
		}, []string{"kind", "result"}),
		phases: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosmos_emulator_request_phase_seconds_total",
			Help: "Time requests spent in each phase of their work, summed, by operation, resource type and phase: auth (the signature check), translate (parsing a query and translating it or planning it), postgres (statements on PostgreSQL, send to last row; parallel statements add up), encode (building the body and writing the response into the server's buffer). Divide by cosmos_emulator_request_duration_seconds_count for a mean per request; the rest of the handler time is routing, headers and the operation's own code.",
		}, []string{"operation", "resource_type", "phase"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.charge, m.cfReads, m.cfItems, m.scripts, m.phases} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// statusRecorder remembers the status a handler wrote and, with phases,
// adds the time of writing the response to reqphase.Encode. Unwrap lets
// http.ResponseController reach the connection's writer.
type statusRecorder struct {
	http.ResponseWriter
	status int
	phases *reqphase.Timings
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.phases != nil {
		defer s.encoded(time.Now())
	}
	if s.status == 0 {
		s.status = code
		lowerCosmosHeaders(s.Header())
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.phases != nil {
		defer s.encoded(time.Now())
	}
	if s.status == 0 {
		s.status = http.StatusOK
		lowerCosmosHeaders(s.Header())
	}
	return s.ResponseWriter.Write(b)
}

// encoded adds the time since start to the Encode phase.
func (s *statusRecorder) encoded(start time.Time) {
	s.phases.Add(reqphase.Encode, time.Since(start))
}

// lowerCosmosHeaders renames the x-ms-* response headers to lower case, the
// names the service sends them under (x-ms-request-charge, not Go's
// canonical X-Ms-Request-Charge). Header names are case-insensitive, but
// clients that copy the headers into a plain map look them up by the
// service's spelling: the Python SDK's own tests do
// dict(headers)["x-ms-request-charge"] in response hooks.
//
// The lower-cased names are kept (lowerNames), so that a response renames
// its headers without allocating a name: the emulator sets a fixed set of
// them.
func lowerCosmosHeaders(hd http.Header) {
	for k, v := range hd {
		if strings.HasPrefix(k, "X-Ms-") {
			lk := lowerName(k)
			delete(hd, k)
			if prev := hd[lk]; len(prev) > 0 {
				hd[lk] = append(prev, v...)
			} else {
				hd[lk] = v // the value slice moves with its name: no copy
			}
		}
	}
}

// lowerNames caches lowerName's results by canonical header name; at most
// maxLowerNames of them (fault rules may name headers of their own).
var (
	lowerNames      sync.Map
	lowerNamesCount atomic.Int32
)

// maxLowerNames bounds lowerNames.
const maxLowerNames = 256

// lowerName is strings.ToLower(name), allocated once per name.
func lowerName(name string) string {
	if v, ok := lowerNames.Load(name); ok {
		return v.(string)
	}
	lk := strings.ToLower(name)
	if lowerNamesCount.Add(1) <= maxLowerNames {
		lowerNames.Store(name, lk)
	}
	return lk
}

// responseHeader reads header name (canonical form) of a response that may
// have been written already, when lowerCosmosHeaders has renamed it.
func responseHeader(hd http.Header, name string) string {
	if v := hd.Get(name); v != "" {
		return v
	}
	if v := hd[strings.ToLower(name)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// observe wraps next: it counts each request in the metrics (when
// configured) and writes the request log line: at info level with
// Config.LogRequests, else at debug level (shown by --log-level debug).
func (h *handler) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		if h.metrics != nil {
			rec.phases = new(reqphase.Timings)
			r = r.WithContext(reqphase.NewContext(r.Context(), rec.phases))
		}
		// What the path and headers say, read before the handler (which
		// may rewrite the URL while normalising it).
		op, rt := classify(r)
		aim := r.Header.Get("A-Im")
		triggers := scriptKinds(op, r.Header.Get("X-Ms-Documentdb-Pre-Trigger-Include"), r.Header.Get("X-Ms-Documentdb-Post-Trigger-Include"))
		path := r.URL.EscapedPath()
		defer func() {
			// A handler that drops the connection (panic with
			// http.ErrAbortHandler, net/http's way) sent no answer: it is
			// recorded as such, then the panic goes on to net/http.
			dropped := recover()
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			if dropped == http.ErrAbortHandler { //nolint:errorlint // the sentinel is panicked as is
				status = StatusConnectionDropped
			} else if dropped != nil {
				status = http.StatusInternalServerError
			}
			if dropped != nil {
				defer panic(dropped)
			}
			elapsed := time.Since(start)
			hd := w.Header()
			charge := responseHeader(hd, "X-Ms-Request-Charge")
			if h.metrics != nil {
				h.metrics.record(op, rt, aim, status, elapsed, charge, responseHeader(hd, "X-Ms-Item-Count"))
				h.metrics.recordPhases(op, rt, rec.phases)
				h.metrics.recordScripts(triggers, status)
			}
			level := slog.LevelDebug
			if h.logRequests {
				level = slog.LevelInfo
			}
			if h.log.Enabled(context.Background(), level) {
				h.log.Log(context.Background(), level, "request", "method", r.Method, "path", path, "status", status,
					"duration", elapsed, "activity_id", responseHeader(hd, "X-Ms-Activity-Id"), "request_charge", charge)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// recordPhases adds one request's phase timings.
func (m *requestMetrics) recordPhases(op, rt string, t *reqphase.Timings) {
	for p, name := range reqphase.Names {
		if d := t.Get(reqphase.Phase(p)); d > 0 {
			m.phases.WithLabelValues(op, rt, name).Add(d.Seconds())
		}
	}
}

// record counts one answered request.
func (m *requestMetrics) record(op, rt, aim string, status int, elapsed time.Duration, charge, itemCount string) {
	m.requests.WithLabelValues(op, rt, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(op, rt).Observe(elapsed.Seconds())
	if ru, err := strconv.ParseFloat(charge, 64); err == nil && ru > 0 && !strings.HasPrefix(rt, "_") {
		m.charge.WithLabelValues(op, rt).Add(ru)
	}
	if op != "ChangeFeed" {
		return
	}
	mode := "latest_version"
	if strings.EqualFold(strings.TrimSpace(aim), allVersionsFeedAIM) {
		mode = "all_versions_and_deletes"
	}
	switch status {
	case http.StatusOK:
		m.cfReads.WithLabelValues(mode, "changes").Inc()
		if n, err := strconv.Atoi(itemCount); err == nil && n > 0 {
			m.cfItems.WithLabelValues(mode).Add(float64(n))
		}
	case http.StatusNotModified:
		m.cfReads.WithLabelValues(mode, "not_modified").Inc()
	default:
		m.cfReads.WithLabelValues(mode, "error").Inc()
	}
}

// scriptKinds lists the kinds of server-side JavaScript a request runs
// (when it succeeds): a stored procedure execution, and the pre- and
// post-triggers an item write names (preTrigger, postTrigger: the
// request's trigger headers or tokens, "" when absent).
func scriptKinds(op, preTrigger, postTrigger string) []string {
	if op == "ExecuteStoredProcedure" {
		return []string{"stored_procedure"}
	}
	var kinds []string
	if preTrigger != "" {
		kinds = append(kinds, "pre_trigger")
	}
	if postTrigger != "" {
		kinds = append(kinds, "post_trigger")
	}
	return kinds
}

// recordScripts counts the scripts of one answered request by result.
func (m *requestMetrics) recordScripts(kinds []string, status int) {
	if len(kinds) == 0 {
		return
	}
	result := "ok"
	switch {
	case status == http.StatusRequestTimeout:
		result = "timeout"
	case status == StatusClientClosedRequest:
		result = "client_closed"
	case status >= 500:
		result = "error"
	case status >= 400:
		result = "script_error"
	}
	for _, k := range kinds {
		m.scripts.WithLabelValues(k, result).Inc()
	}
}

// knownResourceTypes bounds the resource_type label: any other path
// segment (a typo, a scan) is counted as "other".
var knownResourceTypes = map[string]bool{
	"dbs": true, "colls": true, "docs": true, "users": true, "permissions": true, "offers": true,
	"pkranges": true, "conflicts": true, "sprocs": true, "triggers": true, "udfs": true,
	"clientencryptionkeys": true, "attachments": true, "schemas": true,
}

// classify names a request's operation and resource type for the metrics,
// from its method, path and headers only (a bounded set of label values).
func classify(r *http.Request) (operation, resourceType string) {
	p := r.URL.EscapedPath()
	switch {
	case p == "/" || p == "":
		return methodOperation(r.Method, "ReadAccount"), "account"
	case p == "/_emulator/health":
		return "Health", "_emulator"
	case p == MetricsPath:
		return "Metrics", "_emulator"
	case strings.HasPrefix(p, "/_emulator/"):
		return "Control", "_emulator"
	case p == "/_explorer" || strings.HasPrefix(p, "/_explorer/"):
		return "Explorer", "_explorer"
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	if len(segs) == 6 && segs[0] == "dbs" && segs[2] == "colls" && segs[4] == "operations" {
		return "DeleteAllItemsByPartitionKey", "colls"
	}
	feed := len(segs)%2 == 1
	rt := segs[len(segs)-1]
	if !feed {
		rt = segs[len(segs)-2]
	}
	if !knownResourceTypes[rt] {
		rt = "other"
	}
	switch {
	case feed && r.Method == http.MethodGet && r.Header.Get("A-Im") != "":
		return "ChangeFeed", rt
	case feed && r.Method == http.MethodGet:
		return "ReadFeed", rt
	case feed && r.Method == http.MethodPost:
		switch {
		case isTrue(r.Header.Get("X-Ms-Cosmos-Is-Batch-Request")):
			return "Batch", rt
		case isTrue(r.Header.Get("X-Ms-Cosmos-Is-Query-Plan-Request")):
			return "QueryPlan", rt
		case isQuery(r):
			return "Query", rt
		case isTrue(r.Header.Get("X-Ms-Documentdb-Is-Upsert")):
			return "Upsert", rt
		}
		return "Create", rt
	case !feed && r.Method == http.MethodPost && rt == "sprocs":
		return "ExecuteStoredProcedure", rt
	case !feed:
		return methodOperation(r.Method, "Read"), rt
	}
	return "Other", rt
}

// methodOperation names a single-resource operation by its method.
func methodOperation(method, get string) string {
	switch method {
	case http.MethodGet:
		return get
	case http.MethodHead:
		return "Head"
	case http.MethodPut:
		return "Replace"
	case http.MethodPatch:
		return "Patch"
	case http.MethodDelete:
		return "Delete"
	case http.MethodPost:
		return "Create"
	}
	return "Other"
}

// metricsHandler serves the registry in the Prometheus text format.
func metricsHandler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{Timeout: metricsGatherTimeout, ErrorHandling: promhttp.ContinueOnError})
}
