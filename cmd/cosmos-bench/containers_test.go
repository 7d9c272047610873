package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestSuiteCycleRequests: each step of the suite cycle sends one request per
// SDK call (the client's first request adds its read of the account, so
// the second cycle is checked), and the report prints every step.
func TestSuiteCycleRequests(t *testing.T) {
	e := emulatortest.Start(t)
	client, _, err := newSDKClient(e.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, err := suiteCycle(ctx, client, "warm")
	if err != nil {
		t.Fatal(err)
	}
	if first[0].Requests != 2 {
		t.Errorf("first cycle: create database sent %d requests, want 2 (the account read, then the create)", first[0].Requests)
	}
	steps, err := suiteCycle(ctx, client, "test")
	if err != nil {
		t.Fatal(err)
	}
	want := [len(cycleSteps)]int{1, 1, 100, 10, 1}
	res := containersResult{Cycle: newLatencyStats([]time.Duration{time.Millisecond}, time.Millisecond)}
	for i, st := range steps {
		if st.Requests != want[i] {
			t.Errorf("%s: %d requests, want %d", cycleSteps[i], st.Requests, want[i])
		}
		res.CycleSteps = append(res.CycleSteps, cycleStepStats{Step: cycleSteps[i], Stats: newLatencyStats([]time.Duration{st.Time}, st.Time), Requests: float64(st.Requests)})
	}
	var out bytes.Buffer
	writeContainersReport(&out, &res)
	for _, name := range cycleSteps {
		if !strings.Contains(out.String(), name) {
			t.Errorf("report lacks step %q:\n%s", name, out.String())
		}
	}
}
