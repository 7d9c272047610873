package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// dockerImage is the PostgreSQL image the Docker fallback runs.
const dockerImage = "postgres:15"

// startDocker runs PostgreSQL 15 in a throwaway container, for machines that
// have a Docker engine but no local PostgreSQL binaries. It returns an admin
// connection string and a function that removes the container. Without the
// docker command or a reachable engine it fails fast.
//
// It drives the docker command-line client rather than linking a Docker
// client library (testcontainers and the Docker SDK are some 250 packages):
// pgtest is compiled into every test binary that uses emulatortest,
// including those of the emulator's users, and a fallback that almost no
// run takes must not cost each of them that much compiling.
func startDocker(ctx context.Context) (string, func() error, error) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: PostgreSQL in Docker: %w", err)
	}
	// With a local engine the port is published on loopback only: the
	// server's password is no secret. A remote engine (DOCKER_HOST=tcp://)
	// publishes it on its own interfaces, and the tests connect there.
	host, publish := "127.0.0.1", "127.0.0.1::5432"
	if u, err := url.Parse(os.Getenv("DOCKER_HOST")); err == nil && (u.Scheme == "tcp" || u.Scheme == "ssh") && u.Hostname() != "" {
		host, publish = u.Hostname(), "5432"
	}
	id, err := runDocker(ctx, docker, "run", "--detach", "--rm",
		"--env", "POSTGRES_PASSWORD=postgres", "--publish", publish, dockerImage)
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: PostgreSQL in Docker: %w", err)
	}
	stop := func() error {
		if _, err := runDocker(context.Background(), docker, "rm", "--force", "--volumes", id); err != nil {
			return fmt.Errorf("pgtest: removing the PostgreSQL container: %w", err)
		}
		return nil
	}
	connString, err := dockerConnString(ctx, docker, id, host)
	if err == nil {
		err = waitReady(ctx, connString)
	}
	if err != nil {
		_ = stop()
		return "", nil, fmt.Errorf("pgtest: PostgreSQL in Docker: %w", err)
	}
	return connString, stop, nil
}

// runDocker runs one docker command and returns its trimmed standard output;
// a failure carries the command's standard error, which says why (no engine,
// no image, ...).
func runDocker(ctx context.Context, docker string, args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, docker, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("docker %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// dockerConnString asks the engine which host port it published the
// container's 5432 on ("docker port" prints one "address:port" line per
// binding) and returns the admin URL on host.
func dockerConnString(ctx context.Context, docker, id, host string) (string, error) {
	out, err := runDocker(ctx, docker, "port", id, "5432/tcp")
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(out, "\n")
	_, port, err := net.SplitHostPort(strings.TrimSpace(line))
	if err != nil || port == "" {
		return "", fmt.Errorf("docker port printed %q: %v", out, err)
	}
	return "postgres://postgres:postgres@" + net.JoinHostPort(host, port) + "/postgres?sslmode=disable", nil
}

// waitReady connects until the server answers a query or ctx ends. The
// image's entry point first runs a temporary server that listens on no TCP
// port, so the first successful TCP connection is to the real server.
func waitReady(ctx context.Context, connString string) error {
	for {
		err := ping(ctx, connString)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// ping opens one connection and runs SELECT 1.
func ping(ctx context.Context, connString string) error {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var one int
	return conn.QueryRow(cctx, "SELECT 1").Scan(&one)
}
