package pgtest

import (
	"context"
	"fmt"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// startDocker runs PostgreSQL 15 in a container through testcontainers, for
// machines that have a Docker engine but no local PostgreSQL binaries. It
// returns an admin connection string and a function that removes the
// container. Without a reachable Docker engine it fails fast.
func startDocker(ctx context.Context) (string, func() error, error) {
	c, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:        "postgres:15",
			Env:          map[string]string{"POSTGRES_PASSWORD": "postgres"},
			ExposedPorts: []string{"5432/tcp"},
			WaitingFor:   wait.ForLog("database system is ready to accept connections").WithOccurrence(2).WithStartupTimeout(2 * time.Minute),
		},
		Started: true,
	})
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: PostgreSQL in Docker (testcontainers): %w", err)
	}
	host, err := c.Host(ctx)
	if err == nil {
		var port string
		if p, perr := c.MappedPort(ctx, "5432/tcp"); perr == nil {
			port = p.Port()
		} else {
			err = perr
		}
		if err == nil {
			return fmt.Sprintf("postgres://postgres:postgres@%s:%s/postgres?sslmode=disable", host, port),
				func() error { return c.Terminate(context.Background()) }, nil
		}
	}
	_ = c.Terminate(context.Background())
	return "", nil, fmt.Errorf("pgtest: PostgreSQL in Docker (testcontainers): %w", err)
}
