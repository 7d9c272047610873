package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// handlerTotals are the emulator's own request-duration totals for one
// operation on items (cosmos_emulator_request_duration_seconds, which the
// emulator measures from the request's arrival at its handler to the
// handler's return: routing, signature check, SQL and writing the
// response into the HTTP server's buffer).
type handlerTotals struct {
	Seconds float64
	Count   float64
}

// meanMs is the mean handler time in ms of the requests between two
// readings, or 0 without any.
func (t handlerTotals) meanMs(before handlerTotals) float64 {
	n := t.Count - before.Count
	if n <= 0 {
		return 0
	}
	return (t.Seconds - before.Seconds) / n * 1000
}

// docsHandlerTotals reads the emulator's metrics (GET /_emulator/metrics)
// and returns the totals of operation op (Create, Read, Replace, ...) on
// resource type docs.
func docsHandlerTotals(ctx context.Context, c *http.Client, endpoint, op string) (handlerTotals, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(endpoint, "/")+"/_emulator/metrics", nil)
	if err != nil {
		return handlerTotals{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return handlerTotals{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return handlerTotals{}, fmt.Errorf("GET /_emulator/metrics: %s", resp.Status)
	}
	labels := `{operation="` + op + `",resource_type="docs"} `
	var t handlerTotals
	series := []struct {
		prefix string
		dst    *float64
	}{
		{"cosmos_emulator_request_duration_seconds_sum" + labels, &t.Seconds},
		{"cosmos_emulator_request_duration_seconds_count" + labels, &t.Count},
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		for _, m := range series {
			if v, ok := strings.CutPrefix(line, m.prefix); ok {
				if *m.dst, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
					return t, fmt.Errorf("metrics line %q: %w", line, err)
				}
			}
		}
	}
	return t, sc.Err()
}
