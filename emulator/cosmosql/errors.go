package cosmosql

import (
	"fmt"
	"unicode/utf8"
)

// Error codes carried by SyntaxError.Code.
//
// SC1001, SC1002, SC1010 and SC2022 are the codes the service was observed to
// return (reference §3.3). SC2001 is the code the service uses for unresolved
// identifiers as far as we know. The other SC2xxx codes are chosen by the
// emulator for static checks whose service code has not been recorded; the
// HTTP status (400) is what clients rely on.
const (
	// CodeSyntax is a syntax error: "Syntax error, incorrect syntax near '<token>'."
	CodeSyntax = "SC1001"
	// CodeEmpty is an empty query (only whitespace and comments).
	CodeEmpty = "SC1002"
	// CodeInvalidToken is a lexical error, such as a ';' or an unterminated
	// string: "Syntax error, invalid token '<text>'."
	CodeInvalidToken = "SC1010"
	// CodeUnresolvedIdentifier is an identifier not bound by any FROM alias in
	// scope: "Identifier 'd' could not be resolved."
	CodeUnresolvedIdentifier = "SC2001"
	// CodeDuplicateAlias is a FROM clause binding the same alias twice
	// (emulator-chosen code).
	CodeDuplicateAlias = "SC2002"
	// CodeDuplicateProperty is a SELECT list or object constructor naming the
	// same property twice: "The object property name '<n>' is specified more
	// than once."
	CodeDuplicateProperty = "SC2022"
	// CodeSelectStar is a 'SELECT *' without exactly one input set, or with
	// GROUP BY (emulator-chosen code).
	CodeSelectStar = "SC2031"
	// CodeAggregatePlacement is an aggregate in WHERE, GROUP BY or ORDER BY
	// (emulator-chosen code).
	CodeAggregatePlacement = "SC2101"
	// CodeNestedAggregate is an aggregate whose argument contains another
	// aggregate (emulator-chosen code).
	CodeNestedAggregate = "SC2102"
	// CodeUngroupedReference is a property reference in the SELECT list of an
	// aggregate or GROUP BY query that is neither a GROUP BY expression nor
	// inside an aggregate (emulator-chosen code).
	CodeUngroupedReference = "SC2103"
	// CodeGroupByOrderBy is ORDER BY combined with GROUP BY, which the service
	// does not support (emulator-chosen code).
	CodeGroupByOrderBy = "SC2104"
	// CodeTooManyJoins is a query with more than MaxJoins JOINs
	// (emulator-chosen code).
	CodeTooManyJoins = "SC2105"
	// CodeInvalidGroupBy is a GROUP BY expression containing a subquery
	// (emulator-chosen code).
	CodeInvalidGroupBy = "SC2106"
	// CodeTooManyUDFs is a query with more than MaxUDFRefs user-defined
	// function references (emulator-chosen code).
	CodeTooManyUDFs = "SC2107"
	// CodeUnknownUDF is a udf.name call naming no user-defined function of
	// the container (emulator-chosen code; the check needs the container,
	// so package emulator raises it, see UnknownUDF).
	CodeUnknownUDF = "SC2005"
	// CodeUnknownFunction is a call of a name that is no built-in function
	// where it stands: "'RRF' is not a recognized built-in function name."
	// (RRF outside ORDER BY RANK, reference search §A2).
	CodeUnknownFunction = "SC2005"
	// CodeRankExpression is an ORDER BY RANK not followed by a scoring
	// function (FullTextScore, VectorDistance, or RRF of two or more of
	// them): "The ORDER BY RANK clause must be followed by a
	// VectorDistance and/or a FullTextScore function call."
	CodeRankExpression = "SC2221"
	// CodeFullTextScorePlacement is FullTextScore outside ORDER BY RANK:
	// "The FullTextScore function is only allowed in the ORDER BY RANK
	// clause."
	CodeFullTextScorePlacement = "SC2240"
)

// MaxUDFRefs is the largest number of user-defined function references
// (udf.name(...) calls, counted over the whole query text including
// subqueries) a query may contain: the service's maxUdfRefPerSqlQuery.
const MaxUDFRefs = 10

// UnknownUDF returns the error of a call naming a user-defined function
// the container does not have, positioned on "udf.<name>".
func UnknownUDF(c *Call) *SyntaxError {
	return errorAt(CodeUnknownUDF, span{c.P, c.P + Pos(len("udf.")+len(c.Name))},
		"'udf.%s' is not a recognized user-defined function name.", c.Name)
}

// UDFCalls returns the user-defined function calls of q (subqueries
// included) in source order, a call before the calls in its arguments.
func UDFCalls(q *Query) []*Call {
	var out []*Call
	WalkQuery(q, func(e Expr) bool {
		if c, ok := e.(*Call); ok && c.UDF {
			out = append(out, c)
		}
		return true
	})
	return out
}

// MaxJoins is the largest number of JOINs a query may contain, counted over
// the whole query text including subqueries (the service's
// maxJoinsPerSqlQuery).
const MaxJoins = 10

// MaxDepth is the deepest nesting of expressions and subqueries Parse
// accepts. Deeper input is rejected with CodeSyntax instead of exhausting the
// stack. Long flat chains such as a OR b OR c ... are not nesting and are not
// limited.
const MaxDepth = 256

// span is a half-open byte range [start, end) of the query text.
type span struct{ start, end Pos }

func errorAt(code string, sp span, format string, args ...any) *SyntaxError {
	return &SyntaxError{Code: code, Message: fmt.Sprintf(format, args...), Start: sp.start, End: sp.end}
}

// maxQuoted is how much of a token an error message quotes.
const maxQuoted = 100

// clip shortens s to at most maxQuoted bytes, cut at a rune boundary and
// marked with "...", so that an unterminated string does not echo the whole
// query back.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
