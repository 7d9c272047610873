// Package sqlgen translates a parsed Cosmos SQL query (emulator/cosmosql)
// into one PostgreSQL statement over an items table (see pgstore), with
// Cosmos DB semantics:
//
//   - A Cosmos value is a jsonb; SQL NULL stands for undefined. Member
//     access on a non-object, an out-of-range index, arithmetic on
//     non-numbers and comparisons across types all yield NULL, so such rows
//     fail WHERE (which keeps a row only when the filter is exactly true).
//   - Comparisons, equality, three-valued logic and the type order of ORDER
//     BY use the helper functions of migration 0002 (cosmos.eq, cosmos.cmp,
//     cosmos.l_and, cosmos.type_rank, ...), small IMMUTABLE SQL functions the
//     planner can inline. Arithmetic runs in double precision.
//   - Every value from the query (literals and parameters) travels as a bind
//     argument; identifiers from the query never reach SQL text (property
//     names become bound text arguments of -> operators).
//
// What cannot be translated yet is an error that says so (a 400), never a
// silent fallback.
package sqlgen
