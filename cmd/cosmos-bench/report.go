package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
)

// results is everything a run measured; it is also the -json document.
// A nil scenario part did not run.
type results struct {
	Config     runConfig         `json:"config"`
	Point      *pointResult      `json:"point,omitempty"`
	Durability *durabilityResult `json:"durability,omitempty"`
	JS         *jsResult         `json:"js,omitempty"`
	Containers *containersResult `json:"containers,omitempty"`
	TTL        *ttlResult        `json:"ttl,omitempty"`
	Query      *compareResult    `json:"query,omitempty"`
	Scale      *compareResult    `json:"scale,omitempty"`
	ChangeFeed *cfResult         `json:"changefeed,omitempty"`
	Batch      *batchResult      `json:"batch,omitempty"`
	Sproc      *sprocResult      `json:"sproc,omitempty"`
	UDF        *udfResult        `json:"udf,omitempty"`
	Ranges     *compareResult    `json:"ranges,omitempty"`
	// Targets is every target of targetChecks against this run's figures
	// (checkTargets), the report's last section.
	Targets []targetRow `json:"targets,omitempty"`
}

// runConfig describes the run.
type runConfig struct {
	Scenario     string   `json:"scenario"`
	Binary       string   `json:"binary"`
	EmulatorArgs []string `json:"emulator_args,omitempty"`
	CPUs         int      `json:"cpus"`
	// LoadAvg is the 1-minute load average before the run (-1 if
	// unknown): other work on the machine skews the results.
	LoadAvg   float64   `json:"loadavg_before"`
	GoVersion string    `json:"go_version"`
	Started   time.Time `json:"started"`
}

// printReport writes r as readable tables, without trailing blanks.
func printReport(out io.Writer, r *results) {
	var w bytes.Buffer
	c := r.Config
	fmt.Fprintf(&w, "\ncosmos-bench  %s  (%d CPUs, %s, load %.2f before the run)\n", c.Started.Local().Format("2006-01-02 15:04:05"), c.CPUs, c.GoVersion, c.LoadAvg)
	fmt.Fprintf(&w, "emulator  %s %s\n", c.Binary, strings.Join(c.EmulatorArgs, " "))
	if r.Point != nil {
		writePointReport(&w, r.Point)
	}
	if r.Durability != nil {
		writeDurabilityReport(&w, r.Durability)
	}
	if r.JS != nil {
		writeJSReport(&w, r.JS)
	}
	if r.Containers != nil {
		writeContainersReport(&w, r.Containers)
	}
	if r.TTL != nil {
		writeTTLReport(&w, r.TTL)
	}
	writeCompare(&w, "Queries, small vs large container", r.Query)
	writeCompare(&w, "Scale, small vs large container", r.Scale)
	if r.ChangeFeed != nil {
		writeCFReport(&w, r.ChangeFeed)
	}
	if r.Batch != nil {
		writeBatchReport(&w, r.Batch)
	}
	if r.Sproc != nil {
		writeSprocReport(&w, r.Sproc)
	}
	if r.UDF != nil {
		writeUDFReport(&w, r.UDF)
	}
	writeCompare(&w, "Partition key ranges", r.Ranges)
	writeTargets(&w, r.Targets)
	lines := strings.Split(w.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, _ = io.WriteString(out, strings.Join(lines, "\n"))
}
