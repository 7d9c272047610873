package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// writeQueryReport writes the query scenario's tables.
func writeQueryReport(w io.Writer, c runConfig, q *queryResult) {
	if len(q.Containers) < 2 {
		return
	}
	small, large := thousands(q.Containers[0]), thousands(q.Containers[len(q.Containers)-1])
	fmt.Fprintf(w, "\nQuery scenario: containers %q and %q, %d partitions (p0..p%d), %d-byte items, default indexing policy.\n",
		"items-"+fmt.Sprint(q.Containers[0]), "items-"+fmt.Sprint(q.Containers[len(q.Containers)-1]), q.Partitions, q.Partitions-1, q.ItemSize)
	fmt.Fprintf(w, "Item g has pk p<g mod %d>, k \"k<g div 10>\" (10 items each, in 10 partitions), n = g, cat one of 10 values:\n", q.Partitions)
	fmt.Fprintf(w, "each query returns as many results on both containers.\n")
	if q.Endpoint != "" {
		fmt.Fprintf(w, "endpoint  %s\n", q.Endpoint)
	}
	if q.PGVersion != "" {
		kind := "managed by the emulator"
		if c.ExternalPG {
			kind = "external, -pg"
		}
		fmt.Fprintf(w, "postgres  %s (%s)\n", q.PGVersion, kind)
	}

	if len(q.Seeding) > 0 {
		fmt.Fprintln(w, "\nSeeding (one INSERT ... SELECT FROM generate_series through pgx, then VACUUM (ANALYZE) and CHECKPOINT)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "container\t     rows\tinsert\tsettle\t")
		for _, s := range q.Seeding {
			fmt.Fprintf(tw, "%s\t%9s\t%4.1f s\t%4.1f s\t\n", s.Container, thousands(int(s.Rows)), s.Insert, s.Settle)
		}
		tw.Flush()
	}

	if len(q.Queries) > 0 {
		fmt.Fprintf(w, "\nQueries: the first run on each container alone (\"first\"; it creates the path index the query filters or sorts on,\n"+
			"if missing: \"new idx\"), then %d warm-up and %d measured runs on each, the containers alternating, one client.\n", q.Warmup, q.Runs)
		fmt.Fprintf(w, "Latencies in ms, from the call to the last page's documents; ratios: %s-item container / %s-item container\n", large, small)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "query\tvia\t  items\tresults\t   first\tnew idx\t    p50\t    p90\t    p99\t     max\tother CPU\tp50 ratio\tp99 ratio\ttarget\t")
		for _, s := range q.Queries {
			for i, z := range s.Sizes {
				name, via, tail := s.Name, s.Via, "\t\t\t\t"
				if i > 0 {
					name, via = "", ""
				}
				if i == len(s.Sizes)-1 {
					check := "(not checked)"
					if s.Selective {
						check = fmt.Sprintf("< %.0fx %s", targetQueryGrowth, verdict(s.P50Ratio < targetQueryGrowth))
					}
					tail = fmt.Sprintf("%9s\t%8.2fx\t%8.2fx\t%s\t", cores(s.OtherCPU), s.P50Ratio, s.P99Ratio, check)
				}
				l := z.Latency
				fmt.Fprintf(tw, "%s\t%s\t%7s\t%7d\t%8.2f\t%7d\t%7.3f\t%7.3f\t%7.3f\t%8.3f\t%s\n",
					name, via, thousands(z.Items), z.Results, z.First, z.IndexesBuilt, l.P50, l.P90, l.P99, l.Max, tail)
			}
		}
		tw.Flush()
		fmt.Fprintln(w, "\nThe queries (parameters and partition key change from run to run; \"SDK\" is azcosmos NewQueryItemsPager;\n"+
			"\"raw HTTP, range 0\" is a signed POST with x-ms-documentdb-partitionkeyrangeid: 0 of the query plan's rewritten query,\n"+
			"as the JS/.NET/Java SDKs send it after reading the plan; the plan request and their client-side merge are not timed)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, s := range q.Queries {
			fmt.Fprintf(tw, "  %s\t%s\t\n", s.Name, s.SQL)
			if s.Sent != "" && s.Sent != s.SQL {
				fmt.Fprintf(tw, "  \t  sent to range 0 as the plan's rewrite: %s\t\n", s.Sent)
			}
		}
		tw.Flush()
		fmt.Fprintln(w, "(@k: a k of 10 items; @hi = @lo + 100. \"other CPU\": average CPU use of processes outside this run during\n"+
			" the measured runs, in cores: well above 0 means noisy numbers.)")
	}
	if len(q.Checks) > 0 {
		fmt.Fprintln(w, "\nQuery targets (measured and reported, not asserted): the selective queries grow less than 2x")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range q.Checks {
			fmt.Fprintf(tw, "%s\t%6.2fx\t%s\t%s\n", c.Name, c.Value, c.Target, verdict(c.Met))
		}
		tw.Flush()
	}
	for _, n := range q.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
