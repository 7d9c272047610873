package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// writeScaleReport writes the scale scenario's tables.
func writeScaleReport(w io.Writer, c runConfig, s *scaleResult) {
	if len(s.Containers) < 2 {
		return
	}
	small, large := thousands(s.Containers[0]), thousands(s.Containers[1])
	fmt.Fprintf(w, "\nScale scenario: containers of %s and %s items, %d items per logical partition (%s and %s partitions), %d-byte items.\n",
		small, large, s.PerPartition, thousands(s.Containers[0]/s.PerPartition), thousands(s.Containers[1]/s.PerPartition), s.ItemSize)
	if s.Endpoint != "" {
		fmt.Fprintf(w, "endpoint  %s\n", s.Endpoint)
	}
	if s.PGVersion != "" {
		kind := "managed by the emulator"
		if c.ExternalPG {
			kind = "external, -pg"
		}
		fmt.Fprintf(w, "postgres  %s (%s)", s.PGVersion, kind)
		keys := make([]string, 0, len(s.Settings))
		for k := range s.Settings {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(w, ", %s %s", k, s.Settings[k])
		}
		fmt.Fprintln(w)
	}
	if len(s.Seeding) > 0 {
		fmt.Fprintln(w, "\nSeeding (one INSERT ... SELECT FROM generate_series through pgx, then VACUUM (ANALYZE) and CHECKPOINT) and the tables")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "container\t     rows\tinsert\tsettle\theap MB\tTOAST MB\tindexes MB\tprimary key MB\tpk levels\t")
		for i, r := range s.Seeding {
			var t scaleTable
			if i < len(s.Tables) {
				t = s.Tables[i]
			}
			levels := "?"
			if t.PKeyLevels > 0 {
				levels = fmt.Sprint(t.PKeyLevels + 1)
			}
			fmt.Fprintf(tw, "%s\t%9s\t%4.1f s\t%4.1f s\t%7.1f\t%8.1f\t%10.1f\t%14.1f\t%9s\t\n", r.Container, thousands(int(r.Rows)), r.Insert, r.Settle,
				t.HeapMB, t.ToastMB, t.IndexesMB, t.PKeyMB, levels)
		}
		tw.Flush()
	}
	if len(s.Ops) > 0 {
		fmt.Fprintf(w, "\nOperations through azcosmos, one client: %d warm-up and %d measured runs on each container, the containers alternating.\n", s.Warmup, s.Runs)
		fmt.Fprintf(w, "Latencies in ms; ratios: %s-item container / %s-item container; \"blocks read\" / \"hit\": the items table's\n", large, small)
		fmt.Fprintln(w, "shared-buffer misses and hits per operation (heap, indexes, TOAST)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "operation\t    items\t    p50\t    p90\t    p99\t     max\tblocks read\tblocks hit\tother CPU\tp50 ratio\tp99 ratio\ttarget\t")
		for _, o := range s.Ops {
			for i, z := range o.Sizes {
				name, tail := o.Name, "\t\t\t\t"
				if i > 0 {
					name = ""
				}
				if i == len(o.Sizes)-1 {
					check := "(reported)"
					if o.Checked {
						check = fmt.Sprintf("<= %.1fx %s", targetScaleRatio, verdict(o.P50Ratio <= targetScaleRatio))
					}
					tail = fmt.Sprintf("%9s\t%8.2fx\t%8.2fx\t%s\t", cores(o.OtherCPU), o.P50Ratio, o.P99Ratio, check)
				}
				l := z.Latency
				fmt.Fprintf(tw, "%s\t%9s\t%7.3f\t%7.3f\t%7.3f\t%8.3f\t%11s\t%10s\t%s\n", name, thousands(z.Items), l.P50, l.P90, l.P99, l.Max,
					perOp(z.BlocksRead), perOp(z.BlocksHit), tail)
			}
		}
		tw.Flush()
		fmt.Fprintln(w, "(query by id: SELECT * FROM c WHERE c.id = @id; filter query: SELECT * FROM c WHERE c.pk = @pk AND c.n >= 90,\n"+
			" both with the partition key. \"other CPU\": average CPU use of processes outside this run, in cores.)")
	}
	if len(s.Checks) > 0 {
		fmt.Fprintln(w, "\nScale targets (measured and reported, not asserted): reads and queries at most 1.2x slower on the large container (p50)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, ch := range s.Checks {
			fmt.Fprintf(tw, "%s\t%6.2fx\t%s\t%s\n", ch.Name, ch.Value, ch.Target, verdict(ch.Met))
		}
		tw.Flush()
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", strings.TrimSpace(n))
	}
}

// perOp formats a per-operation block count (negative: unknown).
func perOp(v float64) string {
	if v < 0 {
		return "?"
	}
	return fmt.Sprintf("%.2f", v)
}
