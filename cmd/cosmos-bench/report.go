package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Targets the run is checked against.
const (
	targetFreshReady    = 5.0  // seconds, fresh data directory
	targetExistingReady = 1.0  // seconds, existing cluster
	targetIdleRSS       = 40.0 // MB, emulator process only
)

// results is everything a run measured; it is also the -json document.
// Zero values mean "not measured" (the run failed before).
type results struct {
	Config runConfig `json:"config"`
	// Point says whether the point scenario ran; the next four fields are
	// its results.
	Point   bool          `json:"-"`
	Startup startupResult `json:"startup_seconds,omitzero"`
	Memory  memoryResult  `json:"emulator_memory_mb,omitzero"`
	Ops     []opResult    `json:"point_operations,omitempty"`
	// HTTPFloor times GET /_emulator/health over the SDK's connection.
	HTTPFloor latencyStats `json:"http_floor_health,omitzero"`
	// SDKFloorHealth and SDKFloorRead are health requests and point reads
	// through a proxy that answers them from memory, interleaved
	// (replay.go): the SDK's floor, with no server work.
	SDKFloorHealth latencyStats `json:"sdk_floor_health,omitzero"`
	SDKFloorRead   latencyStats `json:"sdk_floor_read,omitzero"`
	// ReadPair is point reads through the emulator and through the
	// replaying proxy, alternately (readVsFloor): the Targets row "Go SDK
	// point read minus the replay floor".
	ReadPair readPair `json:"point_read_vs_replay_floor,omitzero"`
	// HTTPFloorCPU is the CPU per health request (HTTPFloor).
	HTTPFloorCPU perOpCPU `json:"http_floor_cpu_ms_per_op,omitzero"`
	// SDKFloorCPUms is the replaying proxy's CPU time per request over the
	// interleaved reads and health requests of the SDK floor: what a Go
	// net/http server over TLS spends on a request with no work of its own.
	SDKFloorCPUms float64 `json:"sdk_floor_proxy_cpu_ms_per_request,omitempty"`
	// Durability is the durability scenario's results, if it ran.
	Durability *durabilityResult `json:"durability,omitempty"`
	// JS is the js scenario's results, if it ran.
	JS *jsResult `json:"js,omitempty"`
	// Containers is the containers scenario's results, if it ran.
	Containers *containersResult `json:"containers,omitempty"`
	// TTL is the ttl scenario's results, if it ran.
	TTL *ttlResult `json:"ttl,omitempty"`
	// Query is the query scenario's results, if it ran.
	Query *queryResult `json:"query,omitempty"`
	// Scale is the scale scenario's results, if it ran.
	Scale *scaleResult `json:"scale,omitempty"`
	// ChangeFeed is the changefeed scenario's results, if it ran.
	ChangeFeed *cfResult `json:"changefeed,omitempty"`
	// Batch holds the batch scenario's results.
	Batch *batchResult `json:"batch,omitempty"`
	// Sproc holds the sproc scenario's results.
	Sproc *sprocResult `json:"sproc,omitempty"`
	// UDF holds the udf scenario's results.
	UDF *udfResult `json:"udf,omitempty"`
	// Ranges holds the ranges scenario's results.
	Ranges *rangesResult `json:"ranges,omitempty"`
	// Targets is every target of targetChecks against this run's figures
	// (checkTargets), the report's last section.
	Targets []targetRow `json:"targets,omitempty"`
	// Storage holds the storage scenario's results.
	Storage *storageResult `json:"storage,omitempty"`
}

// runConfig describes the run.
type runConfig struct {
	Scenario     string   `json:"scenario"`
	Binary       string   `json:"binary"`
	EmulatorArgs []string `json:"emulator_args,omitempty"`
	Endpoint     string   `json:"endpoint,omitempty"`
	ExternalPG   bool     `json:"external_pg"`
	PGConn       string   `json:"pg_conn,omitempty"`
	PGVersion    string   `json:"pg_version,omitempty"`
	HTTP1        bool     `json:"http1"`
	Protocol     string   `json:"http_protocol,omitempty"`
	N            int      `json:"n"`
	Warmup       int      `json:"warmup"`
	Concurrency  int      `json:"concurrency"`
	ItemSize     int      `json:"item_size_bytes"`
	CPUs         int      `json:"cpus"`
	// LoadAvg is the 1-minute load average before the run (-1 if
	// unknown): other work on the machine skews the results.
	LoadAvg   float64   `json:"loadavg_before"`
	GoVersion string    `json:"go_version"`
	Started   time.Time `json:"started"`
}

// readPair is one client's point reads of the same items through the
// emulator and through the replaying proxy, alternating one for one.
type readPair struct {
	Emulator latencyStats `json:"emulator"`
	Floor    latencyStats `json:"replay_floor"`
}

// startupResult holds the ready and stop times, in seconds.
type startupResult struct {
	// Fresh is exec to ready line on a fresh data directory (initdb of the
	// managed cluster, migrations, certificate generation).
	Fresh float64 `json:"ready_fresh"`
	// Existing is exec to ready line on the same data directory again.
	Existing float64 `json:"ready_existing"`
	// FirstStop and Stop are SIGTERM to exit of the first and second process
	// (each stops its PostgreSQL before exiting).
	FirstStop float64 `json:"stop_first"`
	Stop      float64 `json:"stop_second"`
}

// memoryResult holds the emulator process's memory, in MB. PostgreSQL's
// processes are separate and not included; Postgres describes them.
type memoryResult struct {
	IdleFreshMB      float64   `json:"idle_after_fresh_start"`
	IdleMB           float64   `json:"idle_after_existing_start"`
	AfterBenchMB     float64   `json:"after_benchmark"`
	AfterBenchIdleMB float64   `json:"after_benchmark_idle"`
	PeakMB           float64   `json:"peak_vmhwm"`
	Postgres         *pgMemory `json:"postgres_not_counted,omitempty"`
}

// opResult compares one point operation through the emulator and raw.
type opResult struct {
	Op       string       `json:"op"`
	RawSQL   string       `json:"raw_sql"`
	Emulator latencyStats `json:"emulator_sdk"`
	// EmulatorHTTP is the part of Emulator's latencies spent in the HTTP
	// transport (request written to response body read); the rest is the
	// SDK's client-side work.
	EmulatorHTTP latencyStats `json:"emulator_sdk_http"`
	// HandlerMeanMs is the emulator's own mean time in its handler for
	// these requests (warm-up included), from its metrics: the part of
	// the HTTP round trip that is neither TLS, HTTP parsing nor the
	// network.
	HandlerMeanMs float64      `json:"emulator_handler_mean_ms"`
	Raw           latencyStats `json:"raw_pgx"`
	// P50Ratio is Emulator.P50 / Raw.P50.
	P50Ratio float64 `json:"p50_ratio"`
	// CPU is the CPU time of the emulator and of its PostgreSQL during the
	// SDK operations (warm-up included, as the per-op divisor is).
	CPU perOpCPU `json:"cpu_ms_per_op"`
}

// perOpCPU is CPU time per operation in milliseconds, from /proc: the
// emulator process and PostgreSQL (postmaster, children, reaped children;
// -1 when not measured).
type perOpCPU struct {
	Emulator float64 `json:"emulator"`
	Postgres float64 `json:"postgres"`
}

// printReport writes r as readable tables.
func printReport(out io.Writer, r *results) {
	var buf bytes.Buffer
	writeReport(&buf, r)
	// tabwriter pads the last cells of short rows; drop the trailing blanks.
	lines := strings.Split(buf.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, _ = io.WriteString(out, strings.Join(lines, "\n"))
}

// writeReport writes r as tables, with trailing blanks.
func writeReport(w io.Writer, r *results) {
	c := r.Config
	fmt.Fprintf(w, "\ncosmos-bench  %s  (%d CPUs, %s)\n", c.Started.Local().Format("2006-01-02 15:04:05"), c.CPUs, c.GoVersion)
	if c.LoadAvg >= 0 {
		note := ""
		if c.LoadAvg > 0.5*float64(c.CPUs) {
			note = "  (other work competes for the CPUs: expect noisy numbers)"
		}
		fmt.Fprintf(w, "load      %.2f (1-minute average before the run)%s\n", c.LoadAvg, note)
	}
	fmt.Fprintf(w, "emulator  %s %s\n", c.Binary, strings.Join(c.EmulatorArgs, " "))
	if r.Point {
		writePointReport(w, r)
	}
	if r.Durability != nil {
		writeDurabilityReport(w, r.Durability)
	}
	if r.JS != nil {
		writeJSReport(w, r.JS)
	}
	if r.Containers != nil {
		writeContainersReport(w, r.Containers)
	}
	if r.TTL != nil {
		writeTTLReport(w, c, r.TTL)
	}
	if r.Query != nil {
		writeQueryReport(w, c, r.Query)
	}
	if r.Scale != nil {
		writeScaleReport(w, c, r.Scale)
	}
	if r.ChangeFeed != nil {
		writeCFReport(w, r.ChangeFeed)
	}
	if r.Batch != nil {
		writeBatchReport(w, r.Batch)
	}
	if r.Sproc != nil {
		writeSprocReport(w, r.Sproc)
	}
	if r.UDF != nil {
		writeUDFReport(w, r.UDF)
	}
	if r.Ranges != nil && len(r.Ranges.Ranges) == 2 {
		writeRangesReport(w, r.Ranges)
	}
	if r.Storage != nil {
		writeStorageReport(w, r.Storage)
	}
	writeTargets(w, r.Targets)
}

// writePointReport writes the point scenario's tables.
func writePointReport(w io.Writer, r *results) {
	c := r.Config
	if c.Endpoint != "" {
		proto := c.Protocol
		if c.HTTP1 {
			proto += ", -http1"
		}
		fmt.Fprintf(w, "endpoint  %s (SDK over %s)\n", c.Endpoint, proto)
	}
	if c.PGConn != "" {
		kind := "managed by the emulator"
		if c.ExternalPG {
			kind = "external, -pg"
		}
		fmt.Fprintf(w, "postgres  %s (%s; %s)\n", c.PGVersion, kind, redact(c.PGConn))
	}

	fmt.Fprintln(w, "\nStartup (exec to the \"cosmos-emulator ready:\" line)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\t    time\ttarget\t")
	freshLabel := "ready, fresh data dir (incl. initdb)"
	if c.ExternalPG {
		freshLabel = "ready, fresh data dir (external PG)"
	}
	if r.Startup.Fresh > 0 {
		fmt.Fprintf(tw, "%s\t%6.2f s\t< %.0f s\t%s\n", freshLabel, r.Startup.Fresh, targetFreshReady, verdict(r.Startup.Fresh < targetFreshReady))
	}
	if r.Startup.Existing > 0 {
		label := "ready, existing cluster"
		if c.ExternalPG {
			label = "ready, second start (external PG)"
		}
		fmt.Fprintf(tw, "%s\t%6.2f s\t< %.0f s\t%s\n", label, r.Startup.Existing, targetExistingReady, verdict(r.Startup.Existing < targetExistingReady))
	}
	if r.Startup.FirstStop > 0 {
		fmt.Fprintf(tw, "stop (SIGTERM to exit), 1st process\t%6.2f s\t\t\n", r.Startup.FirstStop)
	}
	if r.Startup.Stop > 0 {
		fmt.Fprintf(tw, "stop (SIGTERM to exit), 2nd process\t%6.2f s\t\t\n", r.Startup.Stop)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nEmulator process memory (VmRSS of cosmos-emulator only; the PostgreSQL server processes are separate and NOT counted)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\t     RSS\ttarget\t")
	m := r.Memory
	if m.IdleFreshMB > 0 {
		fmt.Fprintf(tw, "idle after fresh start\t%5.1f MB\t< %.0f MB\t%s\n", m.IdleFreshMB, targetIdleRSS, verdict(m.IdleFreshMB < targetIdleRSS))
	}
	if m.IdleMB > 0 {
		fmt.Fprintf(tw, "idle after existing-cluster start\t%5.1f MB\t< %.0f MB\t%s\n", m.IdleMB, targetIdleRSS, verdict(m.IdleMB < targetIdleRSS))
	}
	if m.AfterBenchMB > 0 {
		fmt.Fprintf(tw, "right after the SDK benchmark\t%5.1f MB\t\t\n", m.AfterBenchMB)
	}
	if m.AfterBenchIdleMB > 0 {
		fmt.Fprintf(tw, "idle after the SDK benchmark\t%5.1f MB\t\t\n", m.AfterBenchIdleMB)
	}
	if m.PeakMB > 0 {
		fmt.Fprintf(tw, "peak (VmHWM)\t%5.1f MB\t\t\n", m.PeakMB)
	}
	tw.Flush()
	if p := m.Postgres; p != nil {
		fmt.Fprintf(w, "(for reference, not counted above: the managed PostgreSQL runs %d processes, PSS %.1f MB in total, summed RSS %.1f MB)\n",
			p.Processes, p.PSSMB, p.RSSMB)
	}

	if len(r.Ops) > 0 {
		fmt.Fprintf(w, "\nPoint operations (%d ops each after %d warm-up, concurrency %d, %d-byte item; latencies in ms)\n", c.N, c.Warmup, c.Concurrency, c.ItemSize)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\t\t  ops/s\t    p50\t    p90\t    p99\t     max\tp50 emu/raw")
		row := func(op, label string, s latencyStats, ratio string) {
			ops := fmt.Sprintf("%7.0f", s.OpsPerSec)
			if label == httpLabel {
				ops = "" // not a separate run
			}
			fmt.Fprintf(tw, "%s\t%s\t%7s\t%7.3f\t%7.3f\t%7.3f\t%8.3f\t%s\n", op, label, ops, s.P50, s.P90, s.P99, s.Max, ratio)
		}
		for _, o := range r.Ops {
			row(o.Op, "emulator (Go SDK)", o.Emulator, fmt.Sprintf("%10.1fx", o.P50Ratio))
			if o.EmulatorHTTP.Ops > 0 {
				row("", httpLabel, o.EmulatorHTTP, "")
			}
			row("", "raw pgx "+o.RawSQL, o.Raw, "")
		}
		if r.HTTPFloor.Ops > 0 {
			row("health", "GET /_emulator/health", r.HTTPFloor, "")
		}
		tw.Flush()
		fmt.Fprintf(w, "(%q: request written to response body read, i.e. loopback, TLS, HTTP and all the emulator's work;\n"+
			" the rest of the SDK latency is the SDK's client-side work. GET /_emulator/health is the floor of any request:\n"+
			" same connection, no signature check, no SQL (a PostgreSQL ping at most every 0.5 s).)\n", strings.TrimSpace(httpLabel))
		for _, o := range r.Ops {
			if o.HandlerMeanMs > 0 {
				fmt.Fprintf(w, "%-8s means: SDK %.3f ms, HTTP round trip %.3f, in the emulator's handler %.3f (routing, signature, SQL, rendering; from its request-duration metric)\n",
					o.Op, o.Emulator.Mean, o.EmulatorHTTP.Mean, o.HandlerMeanMs)
			}
		}
		var readP50, queryP50 float64
		for _, o := range r.Ops {
			switch o.Op {
			case "read":
				readP50 = o.Emulator.P50
			case "query":
				queryP50 = o.Emulator.P50
			}
		}
		if readP50 > 0 && queryP50 > 0 {
			fmt.Fprintf(w, "single-partition query by id through the Go SDK: p50 %.3f ms = %.2fx the point read of the same items (%.3f ms)\n", queryP50, queryP50/readP50, readP50)
		}
		for _, o := range r.Ops {
			if o.Op == "read" && r.HTTPFloor.P50 > 0 {
				q := ratio(o.Emulator.P50, r.HTTPFloor.P50)
				fmt.Fprintf(w, "point read through the Go SDK: p50 %.3f ms = %.2fx the HTTPS floor (target ≤ 1.6x: %s)\n", o.Emulator.P50, q, verdict(q <= 1.6))
				if f := r.SDKFloorRead; f.Ops > 0 {
					fmt.Fprintf(w, "SDK floor (a proxy answering reads and health from memory, interleaved): read p50 %.3f ms vs health %.3f = %.2fx: the best any server can reach with this SDK here\n",
						f.P50, r.SDKFloorHealth.P50, ratio(f.P50, r.SDKFloorHealth.P50))
				}
			}
		}
		writePointCPU(w, r)
	}
}

// writePointCPU writes the point scenario's CPU per request: each
// operation's and the health request's, the emulator's and PostgreSQL's,
// and the replaying proxy's as the floor of a Go HTTPS server.
func writePointCPU(w io.Writer, r *results) {
	if r.HTTPFloorCPU.Emulator <= 0 {
		return
	}
	fmt.Fprintln(w, "CPU per request (from /proc, warm-up included), ms:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  request	emulator	PostgreSQL	emulator above health	")
	line := func(name string, c perOpCPU) {
		pg := "n/a"
		if c.Postgres >= 0 {
			pg = fmt.Sprintf("%.3f", c.Postgres)
		}
		fmt.Fprintf(tw, "  %s	%.3f	%s	%+.3f	\n", name, c.Emulator, pg, c.Emulator-r.HTTPFloorCPU.Emulator)
	}
	for _, o := range r.Ops {
		line(o.Op, o.CPU)
	}
	line("health", r.HTTPFloorCPU)
	tw.Flush()
	if r.SDKFloorCPUms > 0 {
		fmt.Fprintf(w, "  the replaying proxy (a Go net/http server over TLS answering from memory): %.3f ms per request, reads and health interleaved\n", r.SDKFloorCPUms)
	}
}

// httpLabel labels the HTTP part of the SDK latencies.
const httpLabel = "  of which HTTP round trip"

// verdict renders a target check.
func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// redact hides a password in a keyword/value or URL connection string.
func redact(conn string) string {
	fields := strings.Fields(conn)
	changed := false
	for i, f := range fields {
		if k, _, ok := strings.Cut(f, "="); ok && strings.EqualFold(k, "password") {
			fields[i] = k + "=***"
			changed = true
		}
	}
	if changed {
		return strings.Join(fields, " ")
	}
	if i := strings.Index(conn, "://"); i >= 0 {
		if at := strings.LastIndex(conn, "@"); at > i {
			if colon := strings.Index(conn[i+3:at], ":"); colon >= 0 {
				return conn[:i+3+colon+1] + "***" + conn[at:]
			}
		}
	}
	return conn
}
