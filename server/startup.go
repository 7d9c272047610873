package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
)

// StartError is the error Start returns: why the emulator could not start
// and what to do about it, each one line, so that the command can print a
// single line. Err is the underlying error, when there is one.
type StartError struct {
	Cause string
	Fix   string
	Err   error
}

// Error returns "<cause>; <fix>" on one line.
func (e *StartError) Error() string {
	if e.Fix == "" {
		return oneLine(e.Cause)
	}
	return oneLine(e.Cause + "; " + e.Fix)
}

// Unwrap returns the underlying error.
func (e *StartError) Unwrap() error { return e.Err }

// explain turns a start-up failure into a *StartError.
func explain(cfg Config, err error) error {
	var se *StartError
	if errors.As(err, &se) {
		return se
	}
	e := &StartError{Err: err}
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		e.Cause = "start-up was interrupted: " + innermost(err).Error()
	case errors.Is(err, pgserver.ErrNoBinaries) && cfg.PGBin != "":
		e.Cause = fmt.Sprintf("%s does not hold the PostgreSQL programs initdb, pg_ctl and postgres", cfg.PGBin)
		e.Fix = "point --pg-bin at the bin directory of a PostgreSQL installation, or leave it out to search PATH and /usr/lib/postgresql/*/bin"
	case errors.Is(err, pgserver.ErrNoBinaries):
		e.Cause = "PostgreSQL is not installed: initdb, pg_ctl and postgres are neither on PATH nor under /usr/lib/postgresql/*/bin"
		e.Fix = "install PostgreSQL (for example `apt-get install postgresql`), name its bin directory with --pg-bin, or use a running server with --pg"
	case errors.Is(err, pgserver.ErrDataDirInUse):
		e.Cause = fmt.Sprintf("the data directory %s is in use by another running emulator", cfg.DataDir)
		e.Fix = "stop that emulator, choose another --data-dir, or use --ephemeral"
	case cfg.PG != "":
		if _, perr := pgconn.ParseConfig(cfg.PG); perr != nil {
			e.Cause = "the PostgreSQL connection string (--pg) is not valid: " + innermost(perr).Error()
			e.Fix = "give a URL (postgres://user:password@host:5432/db) or key=value pairs (host=... dbname=...)"
		} else if pgstore.IsUnavailable(err) {
			e.Cause = fmt.Sprintf("cannot connect to PostgreSQL at %s (--pg): %s", pgTarget(cfg.PG), connectCause(err))
			e.Fix = "start that server or correct --pg (leave --pg empty to run a managed PostgreSQL)"
		} else {
			e.Cause = "PostgreSQL (--pg) refused to set up the emulator's schema: " + firstLine(err.Error())
			e.Fix = "check that the user of --pg may create schemas and tables in its database"
		}
	default:
		e.Cause = "the managed PostgreSQL failed: " + firstLine(err.Error())
		e.Fix = "run with --log-level debug for its log, choose another --data-dir, or use a running server with --pg"
	}
	return e
}

// pgTarget names the server a connection string points at (host:port, or
// the socket directory), without user or password.
func pgTarget(connString string) string {
	c, err := pgconn.ParseConfig(connString)
	if err != nil {
		return "?"
	}
	if strings.HasPrefix(c.Host, "/") {
		return fmt.Sprintf("%s (port %d)", c.Host, c.Port)
	}
	return net.JoinHostPort(c.Host, fmt.Sprint(c.Port))
}

// connectCause names why a connection failed in a few words: the server's
// refusal ("password authentication failed for user ..."), a DNS failure,
// or the system error ("connection refused").
func connectCause(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	var de *net.DNSError
	if errors.As(err, &de) {
		return de.Error()
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return firstLine(innermost(err).Error())
}

// innermost returns the deepest error of err's chain (for example
// "connection refused"), which names the cause without the wrapping.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

func firstLine(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	return first
}

// oneLine joins the lines of msg with spaces.
func oneLine(msg string) string {
	return strings.Join(strings.Fields(msg), " ")
}
