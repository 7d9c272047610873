package server

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/ttl"
)

// backlogTimeout bounds the count of expired rows one scrape may run, and
// backlogReuse is how long its result answers later scrapes: the count
// reads every items table, so scrapes in quick succession cost one count.
const (
	backlogTimeout = 2 * time.Second
	backlogReuse   = 10 * time.Second
)

// newRegistry returns the server's metrics registry: the Go runtime and
// process collectors, build information, and the collectors of the store
// (connection pool) and the sweeper (counters, backlog). The wire layer
// adds its request collectors to it. Each Server has its own registry, so
// several servers in one process (tests) do not mix their counts.
func (s *Server) newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	version, revision := BuildVersion()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "cosmos_emulator_build_info",
			Help:        "Always 1; the labels name the emulator's version, VCS revision and Go version.",
			ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": runtime.Version()},
		}, func() float64 { return 1 }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "cosmos_emulator_ready",
			Help: "1 when the emulator serves requests and PostgreSQL answers, else 0 (as GET /ready).",
		}, func() float64 {
			if s.healthy() {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "cosmos_emulator_scripts_abandoned_total",
			Help: "Executions of stored procedures, triggers and UDF calls abandoned past their time bound: their requests were answered (408) and their transactions rolled back while the goroutine running the JavaScript had not yet stopped.",
		}, func() float64 { return float64(s.svc.ScriptStats().Abandoned) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "cosmos_emulator_scripts_abandoned_running",
			Help: "Abandoned script executions whose goroutine still runs (interrupted, inside a native step).",
		}, func() float64 { return float64(s.svc.ScriptStats().AbandonedRunning) }),
		&poolCollector{stats: s.store.PoolStats},
		&sweeperCollector{stats: s.sweeper.Stats, backlog: s.svc.ContainerStats},
	)
	return reg
}

var (
	poolMaxDesc      = prometheus.NewDesc("cosmos_emulator_pg_pool_max_connections", "Size limit of the PostgreSQL connection pool.", nil, nil)
	poolConnsDesc    = prometheus.NewDesc("cosmos_emulator_pg_pool_connections", "PostgreSQL connections of the pool, by state (idle, acquired, constructing).", []string{"state"}, nil)
	poolAcquiresDesc = prometheus.NewDesc("cosmos_emulator_pg_pool_acquires_total", "Connection acquisitions from the pool, by outcome (immediate, waited, canceled).", []string{"outcome"}, nil)
	poolAcquireDesc  = prometheus.NewDesc("cosmos_emulator_pg_pool_acquire_seconds_total", "Total time spent acquiring connections from the pool.", nil, nil)
	poolNewDesc      = prometheus.NewDesc("cosmos_emulator_pg_pool_connections_opened_total", "PostgreSQL connections opened by the pool.", nil, nil)
	poolClosedDesc   = prometheus.NewDesc("cosmos_emulator_pg_pool_connections_closed_total", "PostgreSQL connections the pool closed, by reason (max_lifetime, max_idle).", []string{"reason"}, nil)
)

// poolCollector reports the store's connection pool statistics.
type poolCollector struct{ stats func() pgstore.PoolStats }

// Describe implements prometheus.Collector.
func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolMaxDesc, poolConnsDesc, poolAcquiresDesc, poolAcquireDesc, poolNewDesc, poolClosedDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	gauge, counter := prometheus.GaugeValue, prometheus.CounterValue
	ch <- prometheus.MustNewConstMetric(poolMaxDesc, gauge, float64(st.MaxConns))
	ch <- prometheus.MustNewConstMetric(poolConnsDesc, gauge, float64(st.IdleConns), "idle")
	ch <- prometheus.MustNewConstMetric(poolConnsDesc, gauge, float64(st.AcquiredConns), "acquired")
	ch <- prometheus.MustNewConstMetric(poolConnsDesc, gauge, float64(st.ConstructingConns), "constructing")
	ch <- prometheus.MustNewConstMetric(poolAcquiresDesc, counter, float64(st.AcquireCount-st.EmptyAcquireCount), "immediate")
	ch <- prometheus.MustNewConstMetric(poolAcquiresDesc, counter, float64(st.EmptyAcquireCount), "waited")
	ch <- prometheus.MustNewConstMetric(poolAcquiresDesc, counter, float64(st.CanceledAcquireCount), "canceled")
	ch <- prometheus.MustNewConstMetric(poolAcquireDesc, counter, st.AcquireDuration.Seconds())
	ch <- prometheus.MustNewConstMetric(poolNewDesc, counter, float64(st.NewConnsCount))
	ch <- prometheus.MustNewConstMetric(poolClosedDesc, counter, float64(st.MaxLifetimeDestroyCount), "max_lifetime")
	ch <- prometheus.MustNewConstMetric(poolClosedDesc, counter, float64(st.MaxIdleDestroyCount), "max_idle")
}

var (
	sweepsDesc  = prometheus.NewDesc("cosmos_emulator_ttl_sweeps_total", "TTL sweeps run (background and POST /_emulator/ttl/sweep).", nil, nil)
	deletedDesc = prometheus.NewDesc("cosmos_emulator_ttl_deleted_rows_total", "Expired items the TTL sweeper deleted.", nil, nil)
	errorsDesc  = prometheus.NewDesc("cosmos_emulator_ttl_sweep_errors_total", "TTL sweeps that failed.", nil, nil)
	backlogDesc = prometheus.NewDesc("cosmos_emulator_ttl_backlog_rows",
		"Expired items still stored (not yet swept), over every container; counted at most every 10 s, and left out when the count fails or takes over 2 s.", nil, nil)
)

// sweeperCollector reports the sweeper's counters and the backlog of
// expired rows.
type sweeperCollector struct {
	stats   func() ttl.Stats
	backlog func(context.Context) ([]emulator.ContainerStats, error)

	mu      sync.Mutex
	counted time.Time // when last counted (zero: never)
	rows    int64
}

// Describe implements prometheus.Collector.
func (c *sweeperCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{sweepsDesc, deletedDesc, errorsDesc, backlogDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *sweeperCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	ch <- prometheus.MustNewConstMetric(sweepsDesc, prometheus.CounterValue, float64(st.Sweeps))
	ch <- prometheus.MustNewConstMetric(deletedDesc, prometheus.CounterValue, float64(st.Deleted))
	ch <- prometheus.MustNewConstMetric(errorsDesc, prometheus.CounterValue, float64(st.Errors))
	if rows, ok := c.countBacklog(); ok {
		ch <- prometheus.MustNewConstMetric(backlogDesc, prometheus.GaugeValue, float64(rows))
	}
}

// countBacklog returns the stored rows that are no longer live, reusing a
// count younger than backlogReuse; ok is false when counting failed.
func (c *sweeperCollector) countBacklog() (rows int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.counted.IsZero() && time.Since(c.counted) < backlogReuse {
		return c.rows, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), backlogTimeout)
	defer cancel()
	stats, err := c.backlog(ctx)
	if err != nil {
		return 0, false
	}
	var n int64
	for _, st := range stats {
		n += st.StoredRows - st.LiveItems
	}
	c.rows, c.counted = n, time.Now()
	return n, true
}
