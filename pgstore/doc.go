// Package pgstore implements emulator.Store over PostgreSQL with pgx/v5.
//
// Schema (schema "cosmos", created by the embedded, versioned migrations in
// migrations/, applied at Open in one transaction under an advisory lock so
// several emulator processes can start on one database):
//
//   - cosmos.databases, cosmos.containers, cosmos.offers: metadata. A
//     container keeps its JSON properties verbatim (props) next to typed
//     columns (pk_def, default_ttl).
//   - cosmos.items_<n>: one items table per container (n is the container's
//     internal number, never client input). Columns: pk (canonical partition
//     key), id, seq (document number: creation order and _rid), body (the
//     document text as written, so property order and number spelling
//     round-trip), doc (jsonb generated from body, for queries), ts (_ts),
//     ttl (the item's ttl property or NULL), etag, lsn, epk (the effective
//     partition key, computed in Go at every write and indexed: a
//     partition key range is an interval of it; epk.go, migration 0025).
//     Primary key (pk, id).
//   - cosmos.changes: the change log behind the all-versions-and-deletes
//     change feed (changelog.go, migration 0010). A deferred row trigger
//     on every items table logs each create, replace and delete when its
//     transaction commits, in commit order per container (a short
//     per-container lock at commit), so rolled-back writes never appear
//     and every write path is logged alike. The TTL sweeper logs its
//     purges itself, as expiries at its time, in one INSERT ... SELECT per
//     batch under the same lock, and the trigger skips them
//     (cosmos.sweep_logged, migration 0018: a third of a sweep's cost);
//     it also trims entries past each container's
//     retention in bounded batches. A point delete hands the LSN it
//     reports to the trigger (cosmos.delete_lsn, migration 0011) so the
//     logged delete carries it; other deletes draw theirs at commit.
//     A batch whose only write is one multi-row INSERT of creates logs
//     those rows itself, in one INSERT ... SELECT just before COMMIT and
//     under the same lock, and the trigger skips them (cosmos.logged_seqs,
//     migration 0015): a row-by-row insert from the trigger costs about
//     10 µs a row, most of such a batch's commit. Each entry carries
//     its item's epk, so an EPK-range read filters in SQL.
//   - cosmos.epk_backfill (epk.go, migration 0025): the containers made
//     before the epk column whose rows and entries the store still fills.
//   - cosmos.spare_tables, cosmos.dropped_tables (tablepool.go, migration
//     0016): items tables made in advance, which container creates claim,
//     and the tables of deleted containers, renamed at once and dropped
//     by a background worker, which also vacuums the catalogs.
//   - cosmos.users, cosmos.permissions (users.go, migration 0014): a
//     database's users and a user's permissions, deleted with their
//     owner (ON DELETE CASCADE). A permission keeps its resource link as
//     sent and the scope resource tokens are matched against; one user
//     holds at most one permission per resource text and partition key.
//
// Why one table per container rather than one LIST-partitioned table: the
// indexing policy of each container becomes that table's own indexes, and
// deleting a container is a rename (then a background DROP TABLE) that locks only that table (dropping
// or creating a partition locks the partitioned parent, which would stall
// every other container's traffic).
//
// Expiry: every item read, write and feed carries the liveness predicate of
// emulator.Expiry in its WHERE clause, computed from the container's current
// defaultTtl and the operation's time; when TTL is off the predicate is
// omitted entirely. Etag checks happen in the same statement as the write.
//
// Item point operations. Each is one statement that decides its own
// outcome, run on a querier: the pool for a single operation, one
// transaction for a batch (InItemTx). A batch sends runs of them in one
// pgx.Batch, one round trip (RunItemOps), and a run of creates as one
// multi-row INSERT; its BEGIN travels with its first statement and its
// COMMIT with its last, so the transaction adds no round trip.
//
// Races. Under READ COMMITTED a write that meets a row another
// transaction holds waits, then judges the row's latest committed version,
// so the statements take what decides their outcome from that version,
// never from the statement's snapshot alone: without If-Match a replace or
// delete that wrote nothing met no live item (404); with one, the
// statement looks again at the item through a row lock, and only when it
// wrote nothing, to tell 412 (live, another etag) from 404 (guarded); an
// upsert reads the seq and liveness of the row it conflicts with from that
// row (upsertStmt), so one that loses the insert race replaces the
// winner.
//
// Deleting a logical partition (DeletePartitionItems) removes at most a
// bounded number of rows per statement. A write that a path or composite
// index refuses because a value is too long for a btree entry drops that
// index and runs again, a transaction from its start (oversize.go): Cosmos
// has no such limit.
//
// What reaches SQL text. Values from clients (ids, partition keys,
// bodies, query literals and parameters, continuation positions) travel
// as bind arguments. Table and index names are built from integers and
// hashes, never from client text. Document property names are the one
// kind of client text written into statements, as single-quoted literals
// (sqlgen.QuoteLiteral: quotes doubled, NUL replaced): in query
// expressions and in the DDL of path and composite indexes, because
// PostgreSQL matches an index to a query only when both hold the same
// constant, and CREATE INDEX takes no bind arguments. That quoting is
// exact only with standard_conforming_strings on and a UTF-8 client
// encoding, so every connection forces both in its startup packet, which
// outranks the server's, the database's and the role's defaults (ALTER
// DATABASE/ROLE ... SET), together with the settings the text form of
// results depends on (see sessionSettings), and a connection that reports
// otherwise is refused. Paths with invalid UTF-8 or NUL get no automatic
// index, and a composite index holding one (or more paths than a
// PostgreSQL index can hold) is refused with a 400. The one other name
// in statement text, the index a long value was refused by (DROP INDEX),
// comes from PostgreSQL and must match the pattern of the emulator's own
// path and composite index names (pathIndexName).
//
// Paging. A query page runs one statement that fetches at most one row
// beyond the page (so a last page carries no continuation, except where
// the gateway fans out: emulator.QueryItemsParams.GatewayFanOut) and reads its
// rows one at a time: the page ends at its item count or before the next
// result would pass emulator.MaxResponseBytes, and a statement stopped by
// that budget is cancelled rather than drained, so a page costs about its
// own size in memory and in rows read, whatever the container holds and
// whatever x-ms-max-item-count asks. The next page resumes from the
// cursor in its continuation (keyset, or a position for GROUP BY).
//
// Change feed (changefeed.go). Every write stamps lsn from one database-
// wide sequence, one per write, except that the writes of a transactional
// batch share one, drawn at its first write (cosmos.txn_lsn, migration
// 0012). The latest-version feed reads live rows with lsn above the
// continuation in lsn order through the (lsn) index (migration 0009 adds
// it to older containers), ends its pages only between two LSNs, and stops before the first row written by a
// transaction that may have overlapped one still in progress, so its
// continuation never passes a change that can still commit below it.
//
// Background work (the metadata listener, vacuums after large sweeps,
// the spare and dropped tables' workers)
// runs under a context that Close cancels; its failures go to
// Options.Logger.
package pgstore
