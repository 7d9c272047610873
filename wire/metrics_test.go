package wire

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestClassify: the operation and resource type a request is counted
// under, from its method, path and headers; unknown path segments are
// "other", so the label values stay a small set.
func TestClassify(t *testing.T) {
	tests := []struct {
		method, path string
		header       [2]string
		op, rt       string
	}{
		{"GET", "/", [2]string{}, "ReadAccount", "account"},
		{"GET", "/_emulator/health", [2]string{}, "Health", "_emulator"},
		{"GET", MetricsPath, [2]string{}, "Metrics", "_emulator"},
		{"POST", "/_emulator/clock", [2]string{}, "Control", "_emulator"},
		{"GET", "/_explorer/index.html", [2]string{}, "Explorer", "_explorer"},
		{"GET", "/_explorer", [2]string{}, "Explorer", "_explorer"},
		{"GET", "/dbs", [2]string{}, "ReadFeed", "dbs"},
		{"POST", "/dbs", [2]string{}, "Create", "dbs"},
		{"POST", "/dbs", [2]string{"Content-Type", "application/query+json"}, "Query", "dbs"},
		{"GET", "/dbs/d", [2]string{}, "Read", "dbs"},
		{"DELETE", "/dbs/d", [2]string{}, "Delete", "dbs"},
		{"PUT", "/dbs/d/colls/c", [2]string{}, "Replace", "colls"},
		{"GET", "/dbs/d/colls/c/pkranges", [2]string{}, "ReadFeed", "pkranges"},
		{"POST", "/dbs/d/colls/c/operations/partitionkeydelete", [2]string{}, "DeleteAllItemsByPartitionKey", "colls"},
		{"POST", "/dbs/d/colls/c/docs", [2]string{}, "Create", "docs"},
		{"POST", "/dbs/d/colls/c/docs", [2]string{"x-ms-documentdb-is-upsert", "True"}, "Upsert", "docs"},
		{"POST", "/dbs/d/colls/c/docs", [2]string{"x-ms-documentdb-isquery", "true"}, "Query", "docs"},
		{"POST", "/dbs/d/colls/c/docs", [2]string{"x-ms-cosmos-is-query-plan-request", "true"}, "QueryPlan", "docs"},
		{"POST", "/dbs/d/colls/c/docs", [2]string{"x-ms-cosmos-is-batch-request", "true"}, "Batch", "docs"},
		{"GET", "/dbs/d/colls/c/docs", [2]string{}, "ReadFeed", "docs"},
		{"GET", "/dbs/d/colls/c/docs", [2]string{"A-IM", "Incremental Feed"}, "ChangeFeed", "docs"},
		{"GET", "/dbs/d/colls/c/docs/i", [2]string{}, "Read", "docs"},
		{"PATCH", "/dbs/d/colls/c/docs/i", [2]string{}, "Patch", "docs"},
		{"HEAD", "/dbs/d/colls/c/docs/i", [2]string{}, "Head", "docs"},
		{"OPTIONS", "/dbs/d/colls/c/docs/i", [2]string{}, "Other", "docs"},
		{"GET", "/dbs/d/users/u/permissions", [2]string{}, "ReadFeed", "permissions"},
		{"PUT", "/offers/abc", [2]string{}, "Replace", "offers"},
		{"POST", "/dbs/d/colls/c/sprocs/s", [2]string{}, "ExecuteStoredProcedure", "sprocs"},
		{"POST", "/dbs/d/colls/c/sprocs", [2]string{}, "Create", "sprocs"},
		{"PUT", "/dbs/d/colls/c/sprocs/s", [2]string{}, "Replace", "sprocs"},
		{"GET", "/wp-admin/setup.php", [2]string{}, "Read", "other"},
		{"GET", "/a/b/c", [2]string{}, "ReadFeed", "other"},
		{"PUT", "/dbs/", [2]string{}, "Other", "dbs"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.path, nil)
		if tt.header[0] != "" {
			r.Header.Set(tt.header[0], tt.header[1])
		}
		if op, rt := classify(r); op != tt.op || rt != tt.rt {
			t.Errorf("%s %s %v: %s %s, want %s %s", tt.method, tt.path, tt.header, op, rt, tt.op, tt.rt)
		}
	}
}

// BenchmarkObserve measures what the metrics and the request log (at a
// level that drops it) add to one request, against the same handler
// without them.
func BenchmarkObserve(b *testing.B) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-ms-request-charge", "5.71")
		w.WriteHeader(http.StatusCreated)
	})
	m, err := newRequestMetrics(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	h := &handler{log: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})), metrics: m}
	req := httptest.NewRequest("POST", "/dbs/d/colls/c/docs", nil)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare", inner}, {"observed", h.observe(inner)}} {
		b.Run(c.name, func(b *testing.B) {
			w := httptest.NewRecorder()
			for b.Loop() {
				c.h.ServeHTTP(w, req)
			}
		})
	}
}

// TestRequestLog: the request line is logged at info level with
// LogRequests, at debug level without it (so --log-level debug shows it),
// and not at all at info level without LogRequests.
func TestRequestLog(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-ms-activity-id", "0f8fad5b-d9cb-469f-a165-70867728950e")
		w.Header().Set("x-ms-request-charge", "5.71")
		w.WriteHeader(http.StatusCreated)
	})
	for _, c := range []struct {
		level       slog.Level
		logRequests bool
		want        string
	}{
		{slog.LevelInfo, true, "level=INFO msg=request method=POST path=/dbs/d/colls/c/docs status=201 duration="},
		{slog.LevelDebug, false, "level=DEBUG msg=request method=POST path=/dbs/d/colls/c/docs status=201 duration="},
		{slog.LevelInfo, false, ""},
	} {
		var buf strings.Builder
		h := &handler{log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: c.level})), logRequests: c.logRequests}
		h.observe(inner).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/dbs/d/colls/c/docs", nil))
		got := buf.String()
		if c.want == "" && got != "" || c.want != "" && (!strings.Contains(got, c.want) ||
			!strings.Contains(got, " activity_id=0f8fad5b-d9cb-469f-a165-70867728950e request_charge=5.71\n")) {
			t.Errorf("level %v, LogRequests %v: logged %q", c.level, c.logRequests, got)
		}
	}
}

// TestCosmosHeadersLowerCase: the x-ms-* response headers go out under the
// service's lower-case names whether the handler writes the status first
// or only a body, and the metrics still read the charge the handler set.
// The Python SDK's own tests (test_query_response_headers.py,
// test_response_hook_parity_point_ops and the concurrent header tests)
// copy the headers into a plain dict and read dict["x-ms-request-charge"]
// and dict["x-ms-activity-id"]; they pass against the service.
func TestCosmosHeadersLowerCase(t *testing.T) {
	tests := []struct {
		name  string
		inner http.HandlerFunc
	}{
		{"WriteHeader then Write", func(w http.ResponseWriter, r *http.Request) {
			setDefaultHeaders(w.Header(), "act-1")
			w.Header().Set("X-Ms-Request-Charge", "5.71")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{}`))
		}},
		{"Write only", func(w http.ResponseWriter, r *http.Request) {
			setDefaultHeaders(w.Header(), "act-1")
			w.Header().Set("X-Ms-Request-Charge", "5.71")
			_, _ = w.Write([]byte(`{}`))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := newRequestMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			h := &handler{log: slog.New(slog.NewTextHandler(io.Discard, nil)), metrics: m}
			srv := httptest.NewServer(h.observe(tt.inner))
			defer srv.Close()
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, "POST /dbs/d/colls/c/docs HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			raw, err := io.ReadAll(conn)
			if err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
			for _, want := range []string{"\r\nx-ms-request-charge: 5.71\r\n", "\r\nx-ms-activity-id: act-1\r\n", "\r\nx-ms-session-token: ", "\r\nContent-Type: application/json\r\n"} {
				if !strings.Contains(head, want) {
					t.Errorf("response head lacks %q:\n%s", want, head)
				}
			}
			if strings.Contains(head, "X-Ms-") {
				t.Errorf("response head has a canonical X-Ms- name:\n%s", head)
			}
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			charged := false
			for _, mf := range mfs {
				if mf.GetName() == "cosmos_emulator_request_charge_total" {
					for _, mt := range mf.GetMetric() {
						charged = charged || mt.GetCounter().GetValue() == 5.71
					}
				}
			}
			if !charged {
				t.Errorf("the charge metric did not count the 5.71 RU the handler set")
			}
		})
	}
}
