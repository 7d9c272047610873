// Package sqlgen translates a parsed Cosmos SQL query (emulator/cosmosql)
// into one PostgreSQL statement over an items table (see pgstore), with
// Cosmos DB semantics:
//
//   - A Cosmos value is a jsonb; SQL NULL stands for undefined. Member
//     access on a non-object, an out-of-range index and arithmetic on
//     non-numbers yield NULL, so such rows fail WHERE (which keeps a row
//     only when the filter is exactly true). Range comparisons (<, <=, >,
//     >=, BETWEEN) across types are undefined; equality between two defined
//     values of different types is false (and != true), as the service
//     evaluates it.
//   - Comparisons, equality, three-valued logic and the type order of ORDER
//     BY use helper functions of the migrations (0002: cosmos.eq,
//     cosmos.cmp, cosmos.l_and, cosmos.type_rank, ...; 0008: the helpers
//     that take each operand once), small IMMUTABLE SQL functions the
//     planner inlines where the arguments are cheap. Arithmetic runs in
//     double precision (IEEE results, never an error: migration 0022).
//   - NaN and the infinities (the identifiers NaN and Infinity, -Infinity,
//     and computed ones: 1/0, SQRT(-1), Infinity - 1) are numbers inside an
//     expression. A number computed in doubles keeps its double form
//     beside its jsonb value (translator.f8, rawDouble): whatever takes
//     numbers uses the double form, so arithmetic, the Math functions and
//     the bitwise operators behave as JavaScript's do (Infinity - 1 is
//     Infinity, SIN(Infinity) NaN, NaN | 0 is 0), IS_NUMBER and IS_DEFINED
//     hold, IS_FINITE_NUMBER does not, and TOSTRING prints "NaN",
//     "Infinity", "-Infinity". Comparisons with such an operand compare
//     doubles as JavaScript does (migration 0024): Infinity > 5 and
//     Infinity = Infinity are true; NaN = NaN, NaN < 1 and NaN >= 1 are
//     false (false, not undefined: both operands are numbers), NaN != NaN
//     true; against another type or undefined the usual rules hold
//     (undefined for <, false for =). BETWEEN with such an operand
//     compares numbers only (any other type makes it undefined). IN, ?:,
//     ?? and IIF take values (jsonb), where a non-finite number is
//     undefined: NaN IN (1) is undefined, not false, and NaN ?? 1 is 1.
//   - Serialisation: the jsonb value of a non-finite number is NULL
//     (undefined), because JSON has no NaN nor Infinity. So wherever a
//     value leaves an expression (a projection, SELECT VALUE, an object
//     member, an array element, an ORDER BY or GROUP BY key, an
//     aggregate's argument, an argument of a string or array function) a
//     non-finite number is undefined: left out of projections and objects,
//     null in an array constructor (as any undefined element), an item
//     with such a sort key is left out, aggregates skip it. Results stay
//     valid JSON. Parameters and stored items never hold one.
//
// What reaches the SQL text:
//
//   - Every value from the query, literals and parameters, travels as a
//     bind argument ($n), never as SQL text; a long IN list of constants is
//     one text[] argument. FuzzTranslate checks that no string value of a
//     query appears in its statement as a literal.
//   - Property names (c.name, c["name"]) are written into the text, quoted
//     by QuoteLiteral (single quotes doubled, NUL replaced), because an
//     index expression only matches an expression with the same constants.
//     This quoting is sound only with standard_conforming_strings on
//     (PostgreSQL's default since 9.1): pgstore forces it on every
//     connection, whatever the database's or role's defaults, and refuses
//     a connection that does not report it (see pgstore/doc.go).
//     Object-constructor keys and output names
//     are bind arguments.
//   - Table names, aliases and keywords are the translator's own.
//
// Size and depth: the statement grows linearly with the query text for
// every construct (TestSQLGrowsLinearly bounds len(SQL)/len(query));
// expressions nest at most MaxExprDepth deep (chains of binary operators
// included), a chain of AND or of OR has at most MaxLogicalTerms operands
// (translated as one call over an array), subqueries nest as deep as
// cosmosql.MaxDepth lets the text nest them, and a WHERE clause adds at most 16 index conjuncts. The query text
// itself is bounded by the caller (emulator.MaxQueryTextLength, 512 KB)
// and its syntax nesting by cosmosql.MaxDepth. Input.Ctx stops the
// translation of long lists when the request is cancelled.
//
// Queries calling user-defined functions (udf.name(...)), which run in
// JavaScript outside PostgreSQL, translate (with Input.UDF) into a scan
// statement and an evaluation statement that the caller runs batch after
// batch (see udf.go); without Input.UDF such calls are refused.
//
// ORDER BY RANK (full-text and hybrid search) translates into one
// statement that reads the container's statistics and ranks the rows in
// PostgreSQL (see rank.go and functions_fulltext.go).
//
// What cannot be translated yet is an error that says so (a 400), never a
// silent fallback; what the service refuses is a QueryError with its
// message.
package sqlgen
