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
//     ttl (the item's ttl property or NULL), etag, lsn. Primary key (pk, id).
//
// Why one table per container rather than one LIST-partitioned table: the
// indexing policy of each container becomes that table's own indexes, and
// deleting a container is a DROP TABLE that locks only that table (dropping
// or creating a partition locks the partitioned parent, which would stall
// every other container's traffic).
//
// Expiry: every item read, write and feed carries the liveness predicate of
// emulator.Expiry in its WHERE clause, computed from the container's current
// defaultTtl and the operation's time; when TTL is off the predicate is
// omitted entirely. Etag checks happen in the same statement as the write.
//
// Client values always travel as bind arguments; the only identifiers
// formatted into SQL are the items table names built from integers.
package pgstore
