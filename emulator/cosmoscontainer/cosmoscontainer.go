// Package cosmoscontainer is the former import path of the emulator's
// testcontainers-go module, kept for one release so that existing imports
// still build.
//
// Deprecated: import github.com/cosmos-emulator/cosmos-emulator/cosmoscontainer
// instead; every name here forwards to that package and this path will be
// removed in the next release.
package cosmoscontainer

import (
	"context"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/cosmos-emulator/cosmos-emulator/cosmoscontainer"
)

// Port is the container port the emulator listens on (cosmoscontainer.Port).
//
// Deprecated: use cosmoscontainer.Port.
const Port = cosmoscontainer.Port

// Key is the emulator's well-known master key (cosmoscontainer.Key).
//
// Deprecated: use cosmoscontainer.Key.
const Key = cosmoscontainer.Key

// HealthPath is the health endpoint Run waits on (cosmoscontainer.HealthPath).
//
// Deprecated: use cosmoscontainer.HealthPath.
const HealthPath = cosmoscontainer.HealthPath

// DefaultStartupTimeout bounds the wait for the emulator to become healthy
// (cosmoscontainer.DefaultStartupTimeout).
//
// Deprecated: use cosmoscontainer.DefaultStartupTimeout.
const DefaultStartupTimeout = cosmoscontainer.DefaultStartupTimeout

// Durability levels of WithDurability (cosmoscontainer.DurabilityFull and
// the others).
//
// Deprecated: use the constants of cosmoscontainer.
const (
	DurabilityFull    = cosmoscontainer.DurabilityFull
	DurabilityProcess = cosmoscontainer.DurabilityProcess
	DurabilityNone    = cosmoscontainer.DurabilityNone
)

// Container is a running emulator container (cosmoscontainer.Container).
//
// Deprecated: use cosmoscontainer.Container.
type Container = cosmoscontainer.Container

// Option configures Run (cosmoscontainer.Option).
//
// Deprecated: use cosmoscontainer.Option.
type Option = cosmoscontainer.Option

// Clock is the emulator's clock (cosmoscontainer.Clock).
//
// Deprecated: use cosmoscontainer.Clock.
type Clock = cosmoscontainer.Clock

// Stats are the emulator's storage and sweeper counters
// (cosmoscontainer.Stats).
//
// Deprecated: use cosmoscontainer.Stats.
type Stats = cosmoscontainer.Stats

// ControlError is a control call the emulator refused
// (cosmoscontainer.ControlError).
//
// Deprecated: use cosmoscontainer.ControlError.
type ControlError = cosmoscontainer.ControlError

// Run starts the emulator image img (cosmoscontainer.Run).
//
// Deprecated: use cosmoscontainer.Run.
func Run(ctx context.Context, img string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	return cosmoscontainer.Run(ctx, img, opts...)
}

// WithDockerfile builds the image from a Dockerfile
// (cosmoscontainer.WithDockerfile).
//
// Deprecated: use cosmoscontainer.WithDockerfile.
func WithDockerfile(contextDir string, buildArgs map[string]string) Option {
	return cosmoscontainer.WithDockerfile(contextDir, buildArgs)
}

// WithDurability sets the emulator's durability level
// (cosmoscontainer.WithDurability).
//
// Deprecated: use cosmoscontainer.WithDurability.
func WithDurability(level string) Option { return cosmoscontainer.WithDurability(level) }

// WithKey makes the emulator accept key (cosmoscontainer.WithKey).
//
// Deprecated: use cosmoscontainer.WithKey.
func WithKey(key string) Option { return cosmoscontainer.WithKey(key) }

// WithMinPartitionRanges gives every container at least n partition key
// ranges (cosmoscontainer.WithMinPartitionRanges).
//
// Deprecated: use cosmoscontainer.WithMinPartitionRanges.
func WithMinPartitionRanges(n int) Option { return cosmoscontainer.WithMinPartitionRanges(n) }

// WithProtocol makes the emulator serve "http" or "https"
// (cosmoscontainer.WithProtocol).
//
// Deprecated: use cosmoscontainer.WithProtocol.
func WithProtocol(protocol string) Option { return cosmoscontainer.WithProtocol(protocol) }

// WithStartupTimeout sets how long Run waits for the emulator to become
// healthy (cosmoscontainer.WithStartupTimeout).
//
// Deprecated: use cosmoscontainer.WithStartupTimeout.
func WithStartupTimeout(d time.Duration) Option { return cosmoscontainer.WithStartupTimeout(d) }
