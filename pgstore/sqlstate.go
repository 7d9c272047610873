package pgstore

import "strings"

// The messages of a query's runtime errors. They are chosen by SQLSTATE
// alone: PostgreSQL's own wording (its message, detail and hint) never
// reaches a client, as it names PostgreSQL's types, functions and syntax,
// which are no part of the Cosmos query language. The cause stays in the
// error chain (emulator.Error.Err) for the emulator's log.
const (
	// MsgQueryEvaluation is the message of a runtime error of a query
	// without a more precise one below.
	MsgQueryEvaluation = "The query failed while evaluating an expression."
	// MsgQueryInvalidRegex is the message of RegexMatch given a pattern
	// that does not compile.
	MsgQueryInvalidRegex = "The query failed while evaluating an expression: the pattern given to RegexMatch is not valid."
	// MsgQueryNumberRange is the message of a number beyond what a double
	// holds, where no IEEE result (an infinity, NaN or zero) stands in.
	MsgQueryNumberRange = "The query failed while evaluating an expression: a number exceeds the range of a double."
	// MsgQueryMathDomain is the message of a mathematical function given
	// an argument outside its domain, where no IEEE result stands in.
	MsgQueryMathDomain = "The query failed while evaluating an expression: a mathematical function was given an argument outside its domain."
	// MsgQueryText is the message of a string the evaluation cannot
	// hold or convert (an encoding error, a malformed value).
	MsgQueryText = "The query failed while evaluating an expression: a string value could not be evaluated."
	// MsgQueryTooComplex is the message of a query too large or too deeply
	// nested for the database (statement too complex, program limit,
	// memory).
	MsgQueryTooComplex = "The query is too complex to run; simplify it."
)

// queryErrorMessage returns the message of a runtime error of a query with
// SQLSTATE code, and whether code is one (class 22, data exception, and
// the resource limits 54000, 54001, 53200); ok is false for any other
// code (a failure of the server, not of the query).
func queryErrorMessage(code string) (msg string, ok bool) {
	switch code {
	case "54000", "54001", "53200":
		return MsgQueryTooComplex, true
	case "2201B": // invalid_regular_expression
		return MsgQueryInvalidRegex, true
	case "22003": // numeric_value_out_of_range
		return MsgQueryNumberRange, true
	case "2201E", "2201F", "22012": // logarithm, power, division by zero
		return MsgQueryMathDomain, true
	case "22021", "22P05", "22P02", "22P03", "22P04", "22P06", "22025", "22024", "22019", "22026", "22001":
		// character not in repertoire, untranslatable character,
		// invalid text representation, ... string data right truncation
		return MsgQueryText, true
	}
	if strings.HasPrefix(code, "22") {
		return MsgQueryEvaluation, true
	}
	return "", false
}
