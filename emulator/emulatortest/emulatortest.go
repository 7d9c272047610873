// Package emulatortest is the former import path of the in-process test
// emulator, kept for one release so that existing imports still build.
//
// Deprecated: import github.com/cosmos-emulator/cosmos-emulator/emulatortest
// instead; every name here forwards to that package and this path will be
// removed in the next release.
package emulatortest

import (
	"net/http"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// Key is the master key of the test emulators (emulatortest.Key).
//
// Deprecated: use emulatortest.Key.
const Key = emulatortest.Key

// Emulator is a running in-process emulator (emulatortest.Emulator).
//
// Deprecated: use emulatortest.Emulator.
type Emulator = emulatortest.Emulator

// Option adjusts the server configuration (emulatortest.Option).
//
// Deprecated: use emulatortest.Option.
type Option = emulatortest.Option

// Durability is what an acknowledged write survives (emulatortest.Durability).
//
// Deprecated: use emulatortest.Durability.
type Durability = emulatortest.Durability

// The durability levels (emulatortest.DurabilityFull and the others).
//
// Deprecated: use the constants of emulatortest.
const (
	DurabilityFull     = emulatortest.DurabilityFull
	DurabilityProcess  = emulatortest.DurabilityProcess
	DurabilityNone     = emulatortest.DurabilityNone
	DurabilityExternal = emulatortest.DurabilityExternal
)

// FaultRule is a fault rule (emulatortest.FaultRule).
//
// Deprecated: use emulatortest.FaultRule.
type FaultRule = emulatortest.FaultRule

// FaultMatch selects the requests of a FaultRule (emulatortest.FaultMatch).
//
// Deprecated: use emulatortest.FaultMatch.
type FaultMatch = emulatortest.FaultMatch

// FaultResponse is what a FaultRule does (emulatortest.FaultResponse).
//
// Deprecated: use emulatortest.FaultResponse.
type FaultResponse = emulatortest.FaultResponse

// Main runs a test package that uses the emulator (emulatortest.Main).
//
// Deprecated: use emulatortest.Main.
func Main(m *testing.M) int { return emulatortest.Main(m) }

// Start starts an emulator over a fresh database (emulatortest.Start).
//
// Deprecated: use emulatortest.Start.
func Start(t testing.TB, opts ...Option) *Emulator { return emulatortest.Start(t, opts...) }

// StartManaged starts an emulator on a managed PostgreSQL cluster of its
// own (emulatortest.StartManaged).
//
// Deprecated: use emulatortest.StartManaged.
func StartManaged(t testing.TB, opts ...Option) *Emulator {
	return emulatortest.StartManaged(t, opts...)
}

// StartOn starts an emulator over the database pg (emulatortest.StartOn).
//
// Deprecated: use emulatortest.StartOn.
func StartOn(t testing.TB, pg string, opts ...Option) *Emulator {
	return emulatortest.StartOn(t, pg, opts...)
}

// HTTPClient returns an http.Client that trusts the emulator's self-signed
// certificate (emulatortest.HTTPClient).
//
// Deprecated: use emulatortest.HTTPClient.
func HTTPClient() *http.Client { return emulatortest.HTTPClient() }

// ScrapeMetrics reads a Prometheus text exposition (emulatortest.ScrapeMetrics).
//
// Deprecated: use emulatortest.ScrapeMetrics.
func ScrapeMetrics(t testing.TB, hc *http.Client, url string) map[string]float64 {
	return emulatortest.ScrapeMetrics(t, hc, url)
}

// WithClock makes the emulator read time from clock (emulatortest.WithClock).
//
// Deprecated: use emulatortest.WithClock.
func WithClock(c *emulator.Clock) Option { return emulatortest.WithClock(c) }

// WithDirectMode starts the direct-mode listener (emulatortest.WithDirectMode).
//
// Deprecated: use emulatortest.WithDirectMode.
func WithDirectMode() Option { return emulatortest.WithDirectMode() }

// WithDurability sets the durability level of a managed cluster
// (emulatortest.WithDurability).
//
// Deprecated: use emulatortest.WithDurability.
func WithDurability(level Durability) Option { return emulatortest.WithDurability(level) }

// WithFrozenClock makes emulator time stand still at t0
// (emulatortest.WithFrozenClock).
//
// Deprecated: use emulatortest.WithFrozenClock.
func WithFrozenClock(t0 time.Time) Option { return emulatortest.WithFrozenClock(t0) }

// WithInitData loads init data files (emulatortest.WithInitData).
//
// Deprecated: use emulatortest.WithInitData.
func WithInitData(paths ...string) Option { return emulatortest.WithInitData(paths...) }

// WithKey sets the master key the emulator accepts (emulatortest.WithKey).
//
// Deprecated: use emulatortest.WithKey.
func WithKey(key string) Option { return emulatortest.WithKey(key) }

// WithMinPartitionRanges gives every container at least n partition key
// ranges (emulatortest.WithMinPartitionRanges).
//
// Deprecated: use emulatortest.WithMinPartitionRanges.
func WithMinPartitionRanges(n int) Option { return emulatortest.WithMinPartitionRanges(n) }

// WithPageTimeout sets the time budget of one query or feed page
// (emulatortest.WithPageTimeout).
//
// Deprecated: use emulatortest.WithPageTimeout.
func WithPageTimeout(d time.Duration) Option { return emulatortest.WithPageTimeout(d) }

// WithProtocol selects "http" or "https" (emulatortest.WithProtocol).
//
// Deprecated: use emulatortest.WithProtocol.
func WithProtocol(p string) Option { return emulatortest.WithProtocol(p) }

// WithRateLimit turns throttling on (emulatortest.WithRateLimit).
//
// Deprecated: use emulatortest.WithRateLimit.
func WithRateLimit() Option { return emulatortest.WithRateLimit() }

// WithReset removes every database at start (emulatortest.WithReset).
//
// Deprecated: use emulatortest.WithReset.
func WithReset() Option { return emulatortest.WithReset() }

// WithScriptLimits sets the scripts' time bound and memory guard
// (emulatortest.WithScriptLimits).
//
// Deprecated: use emulatortest.WithScriptLimits.
func WithScriptLimits(timeout time.Duration, maxMemory uint64) Option {
	return emulatortest.WithScriptLimits(timeout, maxMemory)
}

// WithSweeper sets the background sweeper's interval and batch size
// (emulatortest.WithSweeper).
//
// Deprecated: use emulatortest.WithSweeper.
func WithSweeper(interval time.Duration, batch int) Option {
	return emulatortest.WithSweeper(interval, batch)
}

// WithoutBackgroundSweeper disables the periodic TTL sweeper
// (emulatortest.WithoutBackgroundSweeper).
//
// Deprecated: use emulatortest.WithoutBackgroundSweeper.
func WithoutBackgroundSweeper() Option { return emulatortest.WithoutBackgroundSweeper() }
