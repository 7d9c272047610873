package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// writeTTLReport writes the ttl scenario's tables.
func writeTTLReport(w io.Writer, c runConfig, t *ttlResult) {
	where := "the live ones are the newest (created last)"
	if t.Layout == "interleaved" {
		where = "the live ones spread evenly over the creation order"
	}
	fmt.Fprintf(w, "\nTTL scenario: %s items in container %q, %s of them expired but not yet swept (defaultTtl %d s);\n",
		thousands(t.Items), ttlBigID, thousands(t.Expired), t.DefaultTTL)
	fmt.Fprintf(w, "%d partitions, %d-byte items, %s. Container %q holds only the %s live items (the same documents).\n",
		t.Partitions, t.ItemSize, where, ttlLiveID, thousands(t.Live))
	fmt.Fprintf(w, "The emulator runs with --ttl-sweep-interval -1s: sweeps happen only through POST /_emulator/ttl/sweep.\n")
	if t.Endpoint != "" {
		fmt.Fprintf(w, "endpoint  %s (last emulator process)\n", t.Endpoint)
	}
	if t.PGVersion != "" {
		kind := "managed by the emulator"
		if c.ExternalPG {
			kind = "external, -pg"
		}
		fmt.Fprintf(w, "postgres  %s (%s)\n", t.PGVersion, kind)
	}

	if len(t.Seeding) > 0 {
		fmt.Fprintln(w, "\nSeeding (one INSERT ... SELECT FROM generate_series through pgx, then VACUUM (ANALYZE) and CHECKPOINT)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "container\t     rows\tinsert\tsettle\t")
		for _, s := range t.Seeding {
			label := s.Container
			if s.What != "all" {
				label += " (" + s.What + " rows)"
			}
			fmt.Fprintf(tw, "%s\t%9s\t%4.1f s\t%4.1f s\t\n", label, thousands(int(s.Rows)), s.Insert, s.Settle)
		}
		tw.Flush()
	}

	if len(t.Sweeps) > 0 {
		fmt.Fprintf(w, "\nSweeper: POST /_emulator/ttl/sweep until all %s expired rows are deleted, nothing else running\n", thousands(t.Expired))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "--ttl-sweep-batch\tcalls\t seconds\t    rows/s\t WAL MB\tother CPU\ttarget\t")
		for i, s := range t.Sweeps {
			a := s.Alone
			check := "(not checked)\t"
			if i == 0 {
				check = fmt.Sprintf(">= %s rows/s\t%s", thousands(int(targetSweepRowsPerSec)), verdict(a.RowsPerSec >= targetSweepRowsPerSec))
			}
			fmt.Fprintf(tw, "%17d\t%5d\t%8.2f\t%10s\t%7.0f\t%9s\t%s\n", s.Batch, a.Calls, a.Seconds, thousands(int(a.RowsPerSec+0.5)), a.WALMB, cores(a.OtherCPU), check)
		}
		tw.Flush()
		fmt.Fprintf(w, "(rows/s: rows deleted / time from the first sweep call until the last expired row was deleted;\n"+
			" WAL MB: all WAL PostgreSQL wrote meanwhile; other CPU: average CPU use of processes outside this run\n"+
			" (other jobs on the machine), in cores of the %d: well above 0 means noisy numbers.)\n", c.CPUs)

		if l := t.LongTx; l != nil {
			fmt.Fprintf(w, "(-ttl-long-tx: with another connection holding a REPEATABLE READ snapshot open, batch %d took %.2f s: %s rows/s)\n",
				l.Batch, l.Sweep.Seconds, thousands(int(l.Sweep.RowsPerSec+0.5)))
		}
		fmt.Fprintf(w, "\nPoint reads through the SDK: random live items of %q, concurrency %d; latencies in ms\n", ttlBigID, t.Concurrency)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\t\t reads\t    p50\t    p90\t    p99\t     max\tother CPU\tp99 ratio\ttarget\t")
		row := func(batch, label string, s latencyStats, other float64, tail string) {
			fmt.Fprintf(tw, "%s\t%s\t%6d\t%7.3f\t%7.3f\t%7.3f\t%8.3f\t%9s\t%s\n", batch, label, s.Ops, s.P50, s.P90, s.P99, s.Max, cores(other), tail)
		}
		for i, s := range t.Sweeps {
			row(fmt.Sprintf("batch %d", s.Batch), "no sweep running", s.ReadsIdle, s.ReadsIdleOtherCPU, "\t\t")
			check := "(not checked)\t"
			if i == 0 {
				check = fmt.Sprintf("<= %.0fx\t%s", targetReadP99Ratio, verdict(s.P99Ratio <= targetReadP99Ratio))
			}
			row("", "during the sweep", s.ReadsDuring, s.WithReads.OtherCPU, fmt.Sprintf("%8.2fx\t%s", s.P99Ratio, check))
		}
		tw.Flush()
		for _, s := range t.Sweeps {
			fmt.Fprintf(w, "(batch %d: the sweep under reads took %.2f s, %s rows/s, %.0f MB of WAL%s)\n", s.Batch,
				s.WithReads.Seconds, thousands(int(s.WithReads.RowsPerSec+0.5)), s.WithReads.WALMB, autovacuumNote(s.WithReads.Autovacuums))
		}
		fmt.Fprintf(w, "(\"during the sweep\": every read that started and ended while the sweep ran, after %s;\n"+
			" \"no sweep running\": the same number of warm-up and measured reads right before, on the same freshly seeded table.)\n",
			"the same warm-up")
		for _, s := range t.Sweeps {
			rw := s.Windows
			if rw == nil {
				continue
			}
			fmt.Fprintf(w, "Batch %d, in alternating windows of %.1f s without and with sweep calls, half a window after each window with them not\n"+
				" counted (-ttl-window; the sweep's seconds above are those of the windows with it): %d pairs; p99 %.3f ms with, %.3f ms without (pooled ratio %.2fx); median of the pairs' p99 ratios %.2fx  target <= %.0fx  %s\n",
				s.Batch, rw.Window, len(rw.Ratios), rw.With.P99, rw.Without.P99, rw.PooledP99Ratio, rw.MedianP99Ratio, targetReadP99Ratio, verdict(rw.MedianP99Ratio <= targetReadP99Ratio))
			fmt.Fprintf(w, " pairs' ratios:")
			for _, r := range rw.Ratios {
				fmt.Fprintf(w, " %.2f", r)
			}
			fmt.Fprintln(w)
		}
	}

	if len(t.Feeds) > 0 {
		fmt.Fprintf(w, "\nReads of many items: the read feed (GET /dbs/{db}/colls/{c}/docs, %d items a page, following x-ms-continuation,\n", ttlFeedPage)
		fmt.Fprintf(w, "raw HTTP) and queries through the SDK (NewQueryItemsPager). %q still stores its %s expired rows (before any sweep);\n", ttlBigID, thousands(t.Expired))
		fmt.Fprintf(w, "%q holds only the live items. Each run reads every page; median of the runs, the containers alternating, after\n", ttlLiveID)
		fmt.Fprintln(w, "one unmeasured run of each (\"first\": with expired / live-only; a query's creates the path index it filters on); ms")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\t  items\tpages\truns\t          first\twith expired\tlive-only\tother CPU\t  ratio\ttarget\t")
		for _, f := range t.Feeds {
			first := fmt.Sprintf("%.1f / %.1f", f.FirstWithExpired, f.FirstLiveOnly)
			fmt.Fprintf(tw, "%s\t%7s\t%5d\t%4d\t%15s\t%12.2f\t%9.2f\t%9s\t%6.2fx\t<= %.1fx\t%s\n", f.Name, thousands(f.Items), f.Pages, f.Runs,
				first, f.WithExpired, f.LiveOnly, cores(f.OtherCPU), f.Ratio, targetFeedRatio, verdict(f.Ratio <= targetFeedRatio))
		}
		tw.Flush()
		fmt.Fprintln(w, "(\"one partition\", the queries: each run reads a different partition p<i>, the same sequence on both containers;\n"+
			" \"items\" of the COUNT is the count it returns.)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range t.Feeds {
			fmt.Fprintf(tw, "  %s\t%s\n", f.Name, f.Via)
		}
		tw.Flush()
	}

	if len(t.After) > 0 {
		fmt.Fprintf(w, "\nReads of %q after its last sweep (informational; median ms)\n", ttlBigID)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\tafter the sweep\tdead rows then\tafter VACUUM\tlive-only\t")
		for _, a := range t.After {
			fmt.Fprintf(tw, "%s\t%15.2f\t%14s\t%12.2f\t%9.2f\t\n", a.Name, a.BeforeVacuum, thousands(int(a.DeadRows)), a.AfterVacuum, a.LiveOnly)
		}
		tw.Flush()
		fmt.Fprintln(w, "(the sweep leaves the deleted rows as dead tuples until autovacuum or VACUUM removes them;\n"+
			" \"dead rows then\" is PostgreSQL's n_dead_tup statistic when the runs started.)")
	}
	if len(t.Checks) > 0 {
		fmt.Fprintln(w, "\nTTL targets (measured and reported, not asserted)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range t.Checks {
			v := fmt.Sprintf("%.2fx", c.Value)
			if strings.HasPrefix(c.Name, "sweeper") {
				v = thousands(int(c.Value + 0.5))
			}
			fmt.Fprintf(tw, "%s\t%10s\t%s\t%s\n", c.Name, v, c.Target, verdict(c.Met))
		}
		tw.Flush()
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// cores renders a CPU use in cores ("?" if unknown).
func cores(c float64) string {
	if c < 0 {
		return "?"
	}
	return fmt.Sprintf("%.2f", c)
}

// autovacuumNote mentions autovacuums that ran during a sweep.
func autovacuumNote(n int64) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("; %d autovacuum(s) of the table finished meanwhile", n)
}

// thousands formats n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
