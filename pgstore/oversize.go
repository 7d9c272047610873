package pgstore

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// Long values on indexed paths. A btree entry must fit in a third of a
// page (2,704 bytes), so a path index (a query-made one, autoindex.go, or
// one of a composite index of the policy) refuses a document whose value
// at its path is longer than that (PostgreSQL error 54000). Cosmos has no
// such limit, and these indexes only make queries faster (the query
// results and the composite-index checks of ORDER BY come from the
// documents and the policy, never from the PostgreSQL index): a write
// they refuse drops them (DROP INDEX IF EXISTS, so concurrent writers
// that hit the same index all succeed), a query-made one is remembered as
// not to be made again for the container (autoIndexes.blocked:
// ensureIndexes does not make it again, and treats its own CREATE INDEX
// refused for the same reason alike), and the write runs again: a single
// operation its statement, a transaction (InItemTx, InScriptTx) the whole
// of it, rolled back first. Queries on that path then scan (or sort);
// their results never depended on the index.

// pathIndexName matches the names of the query-made path indexes (global
// "_p_" and partition-first "_k_"), of the composite indexes ("_c_") and
// of the full-text indexes ("_f_", fulltextindex.go), and only them: the
// characters are safe in SQL text.
var pathIndexName = regexp.MustCompile(`^items_([0-9]+)_[pkcf]_[0-9a-f]{16}$`)

// maxOversizeRetries bounds how many times one write runs again after
// dropping indexes: each retry drops at least one of the container's at
// most maxAutoIndexes query-made path indexes (one recreated meanwhile by
// a concurrent query that had already reserved it can cost one more) or
// of its composite indexes. A write past the bound fails as before (500),
// which takes a document too long for more indexes than that.
const maxOversizeRetries = 2*maxAutoIndexes + 2

// oversize collects, for one write (a statement or a transaction), the
// path indexes that refused its rows. Its methods are safe on nil (no
// collection).
type oversize struct {
	mu      sync.Mutex
	names   []string // indexes named by the errors
	unnamed []unnamedOversize
	// unique are the writes a unique key index refused only because
	// expired rows held their values (uniquekeys.go): retryOversize
	// removes those rows and runs the write again.
	unique []itemStmt
}

// noteUnique records st, a write that a unique key index refused only
// because of expired rows.
func (o *oversize) noteUnique(st itemStmt) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.unique = append(o.unique, st)
}

// unnamedOversize is a refusal that named no index (an entry over 8,191
// bytes even compressed): the container and the documents written.
type unnamedOversize struct {
	num    int64
	bodies []string
}

// isOversize reports whether err is PostgreSQL refusing an index entry as
// too long, and returns the index it names ("" when none: only the
// builder of over-page entries names none).
func isOversize(err error) (string, bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "54000" {
		return "", false
	}
	if pe.ConstraintName != "" {
		return pe.ConstraintName, true
	}
	return "", pe.TableName == "" && pe.SchemaName == ""
}

// note records err when it is a refused index entry of a write to
// container num of the documents bodies, and returns err.
func (o *oversize) note(err error, num int64, bodies ...[]byte) error {
	if o == nil {
		return err
	}
	name, ok := isOversize(err)
	if !ok {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if name != "" {
		if pathIndexName.MatchString(name) {
			o.names = append(o.names, name)
		}
		return err
	}
	u := unnamedOversize{num: num}
	for _, b := range bodies {
		u.bodies = append(u.bodies, string(b))
	}
	o.unnamed = append(o.unnamed, u)
	return err
}

// hit reports whether a write was refused by an index it might drop.
func (o *oversize) hit() bool {
	if o == nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.names) > 0 || len(o.unnamed) > 0 || len(o.unique) > 0
}

// dropOversized drops, on q, the path indexes that refused the write o
// collected and marks them not to be made again, and reports whether it
// dropped any (when not, running the write again would fail the same
// way). q must not be in a transaction: DROP INDEX takes the table's
// exclusive lock.
func (s *Store) dropOversized(ctx context.Context, q querier, o *oversize) (bool, error) {
	o.mu.Lock()
	names := append([]string(nil), o.names...)
	unnamed := o.unnamed
	o.mu.Unlock()
	for _, u := range unnamed {
		var found []string
		if err := q.QueryRow(ctx, `SELECT cosmos.oversized_path_indexes($1::regclass, $2)`, itemsTable(u.num), u.bodies).Scan(&found); err != nil {
			return false, err
		}
		names = append(names, found...)
	}
	dropped := false
	for _, name := range names {
		m := pathIndexName.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		num, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			continue
		}
		s.blockIndex(num, name)
		if _, err := q.Exec(ctx, `DROP INDEX IF EXISTS cosmos.`+name); err != nil {
			return dropped, err
		}
		dropped = true
	}
	return dropped, nil
}

// blockIndex remembers that container num's path index name is not to be
// made (again).
func (s *Store) blockIndex(num int64, name string) {
	s.autoIdx.mu.Lock()
	defer s.autoIdx.mu.Unlock()
	if s.autoIdx.blocked[num] == nil {
		s.autoIdx.blocked[num] = map[string]bool{}
	}
	s.autoIdx.blocked[num][name] = true
	if known := s.autoIdx.known[num]; known != nil {
		delete(known, name)
	}
}

// retryOversize runs a write (run, given the collector its statements
// report to) and, while a path index refused it, drops that index on q
// and runs it again, at most maxOversizeRetries times. run must start
// afresh each time, and leave q out of any transaction when it returns
// (a transaction rolled back). A transaction passes its own connection as
// q: waiting for a second one from a pool its peers may hold could wait
// forever.
func (s *Store) retryOversize(ctx context.Context, q querier, run func(o *oversize) error) error {
	for attempt := 0; ; attempt++ {
		o := &oversize{}
		err := run(o)
		if !o.hit() || attempt == maxOversizeRetries {
			return err
		}
		dropped, derr := s.dropOversized(ctx, q, o)
		if derr != nil {
			return errors.Join(err, classify("drop index", derr))
		}
		purged, perr := s.purgeNoted(ctx, q, o)
		if perr != nil {
			return errors.Join(err, classify("remove expired items", perr))
		}
		if !dropped && !purged {
			return err
		}
	}
}

// purgeNoted removes the expired rows that held the unique key values of
// the writes o noted, and reports whether the write should run again: it
// should whenever a write was noted, even if a sweep removed the rows
// first. It runs on q when q can begin a transaction (the connection of the
// transaction that was rolled back), else on the pool.
func (s *Store) purgeNoted(ctx context.Context, q querier, o *oversize) (bool, error) {
	o.mu.Lock()
	noted := o.unique
	o.mu.Unlock()
	b, ok := q.(beginner)
	if !ok {
		b = s.pool
	}
	for _, st := range noted {
		if _, err := s.purgeExpiredHolders(ctx, b, st); err != nil {
			return false, err
		}
	}
	return len(noted) > 0, nil
}
