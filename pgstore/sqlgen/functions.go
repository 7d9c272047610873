package sqlgen

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// fn translates a built-in function from its translated arguments.
type fn struct {
	min, max int // arity bounds (max -1: variadic)
	gen      func(t *translator, a []string) string
}

// astFn translates a built-in function from its arguments' expressions
// (what depends on their form, e.g. a path into the stored document); it
// translates the arguments it uses itself (t.vals), since every bind
// argument must appear in the statement.
type astFn struct {
	min, max int
	gen      func(t *translator, x []cosmosql.Expr) (string, error)
}

// vals translates expressions.
func (t *translator) vals(x []cosmosql.Expr) ([]string, error) {
	a := make([]string, len(x))
	for i, e := range x {
		v, err := t.val(e)
		if err != nil {
			return nil, err
		}
		a[i] = v
	}
	return a, nil
}

// typeIs translates the type-checking functions: whether the argument's
// type is one of types. A value with a double form (see f8) is a number
// when defined, NaN and the infinities included.
func typeIs(types ...string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		if d, ok := t.rawDouble(a[0]); ok {
			return "to_jsonb(" + strconv.FormatBool(slices.Contains(types, "number")) + " AND (" + d + ") IS NOT NULL)"
		}
		return "to_jsonb(coalesce(jsonb_typeof(" + a[0] + ") IN ('" + strings.Join(types, "','") + "'), false))"
	}
}

// math1 translates a function of one number by the SQL function sqlFn of
// a double.
func math1(sqlFn string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string { return t.f8(sqlFn + "(" + t.num(a[0]) + ")") }
}

// trig translates a trigonometric function by the SQL function sqlFn, with
// an infinite argument replaced by NaN: JavaScript's (and IEEE's) result,
// where PostgreSQL refuses it.
func trig(sqlFn string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		return t.f8(sqlFn + "(cosmos.nan_inf(" + t.num(a[0]) + "))")
	}
}

func str1(sqlFn string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string { return "to_jsonb(" + sqlFn + "(cosmos.str(" + a[0] + ")))" }
}

// clampInt is a Cosmos number as a non-negative integer for string
// positions and lengths: clamped before the cast, which would otherwise
// raise for a huge constant even where it is not evaluated.
func clampInt(v string) string {
	return "least(greatest(cosmos.num(" + v + "), 0), 1073741824)::integer"
}

// trim translates LTRIM/RTRIM/TRIM: whitespace by default, else any of the
// characters of the second argument.
func trim(sqlFn, whitespace string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		if len(a) == 2 {
			return "to_jsonb(" + sqlFn + "(cosmos.str(" + a[0] + "), cosmos.str(" + a[1] + ")))"
		}
		return "to_jsonb(regexp_replace(cosmos.str(" + a[0] + "), " + t.bind(whitespace) + "::text, '', 'g'))"
	}
}

// strTest translates CONTAINS, STARTSWITH, ENDSWITH and STRINGEQUALS:
// with the optional third argument true, both strings are case-folded
// (cosmos.fold: lower case, non-ASCII letters included) first, by
// cosmos.str_test, which takes each operand once.
func strTest(kind string, plain func(x, y string) string) func(t *translator, a []string) string {
	return func(t *translator, a []string) string {
		x, y := "cosmos.str("+a[0]+")", "cosmos.str("+a[1]+")"
		if len(a) > 2 {
			return "cosmos.str_test('" + kind + "', " + x + ", " + y + ", " + a[2] + ")"
		}
		return "to_jsonb(" + plain(x, y) + ")"
	}
}

var functions = map[string]fn{
	"IS_DEFINED": {1, 1, func(t *translator, a []string) string {
		if d, ok := t.rawDouble(a[0]); ok {
			return "to_jsonb((" + d + ") IS NOT NULL)" // NaN and Infinity are defined
		}
		return "to_jsonb((" + a[0] + ") IS NOT NULL)"
	}},
	"IS_NULL": {1, 1, typeIs("null")},
	"IS_BOOL": {1, 1, typeIs("boolean")},
	// IS_BOOLEAN: the service's other name of IS_BOOL; the Java SDK's
	// ORDER BY continuations filter with it (OrderByDocumentQueryExecutionContext).
	"IS_BOOLEAN":   {1, 1, typeIs("boolean")},
	"IS_NUMBER":    {1, 1, typeIs("number")},
	"IS_STRING":    {1, 1, typeIs("string")},
	"IS_ARRAY":     {1, 1, typeIs("array")},
	"IS_OBJECT":    {1, 1, typeIs("object")},
	"IS_PRIMITIVE": {1, 1, typeIs("null", "boolean", "number", "string")},
	"IS_FINITE_NUMBER": {1, 1, func(t *translator, a []string) string {
		if d, ok := t.rawDouble(a[0]); ok {
			return "cosmos.finite8(" + d + ")"
		}
		return "to_jsonb(coalesce(jsonb_typeof(" + a[0] + ") = 'number', false))"
	}},
	// IS_INTEGER: integral and within the signed 64-bit range as doubles
	// see it (the literal 9223372036854775807 is the double 2^63).
	"IS_INTEGER": {1, 1, func(t *translator, a []string) string {
		return "to_jsonb(cosmos.i64(" + a[0] + ") IS NOT NULL)"
	}},
	"ABS":     {1, 1, math1("abs")},
	"CEILING": {1, 1, math1("ceiling")},
	"FLOOR":   {1, 1, math1("floor")},
	"TRUNC":   {1, 1, math1("trunc")},
	"SIGN":    {1, 1, math1("cosmos.sign8")},
	"SQRT": {1, 1, func(t *translator, a []string) string {
		return t.f8("cosmos.sqrt8(" + t.num(a[0]) + ")")
	}},
	"SQUARE": {1, 1, func(t *translator, a []string) string { return t.f8("cosmos.pow8(" + t.num(a[0]) + ", 2)") }},
	// EXP, POWER, ACOS, ASIN, DEGREES and RADIANS give the IEEE result
	// (an infinity, NaN or zero) where PostgreSQL's functions raise (see
	// migration 0022).
	"EXP": {1, 1, math1("cosmos.exp8")},
	"LOG10": {1, 1, func(t *translator, a []string) string {
		return t.f8("cosmos.log10_8(" + t.num(a[0]) + ")")
	}},
	"SIN":  {1, 1, trig("sin")},
	"COS":  {1, 1, trig("cos")},
	"TAN":  {1, 1, trig("tan")},
	"ASIN": {1, 1, math1("cosmos.asin8")},
	"ACOS": {1, 1, math1("cosmos.acos8")},
	"ATAN": {1, 1, math1("atan")},
	"DEGREES": {1, 1, func(t *translator, a []string) string {
		return t.f8("cosmos.div8(" + t.num(a[0]) + ", 0.017453292519943295)")
	}},
	"RADIANS": {1, 1, func(t *translator, a []string) string {
		return t.f8("cosmos.mul8(" + t.num(a[0]) + ", 0.017453292519943295)")
	}},
	"PI": {0, 0, func(t *translator, a []string) string { return t.f8("pi()") }},
	"ROUND": {1, 1, func(t *translator, a []string) string {
		// halves away from zero
		return t.f8("cosmos.round8(" + t.num(a[0]) + ")")
	}},
	"POWER": {2, 2, func(t *translator, a []string) string {
		return t.f8("cosmos.pow8(" + t.num(a[0]) + ", " + t.num(a[1]) + ")")
	}},
	"LENGTH":  {1, 1, str1("char_length")},
	"LOWER":   {1, 1, str1("cosmos.lower_text")},
	"UPPER":   {1, 1, str1("cosmos.upper_text")},
	"LTRIM":   {1, 2, trim("ltrim", "^[[:space:]]+")},
	"RTRIM":   {1, 2, trim("rtrim", "[[:space:]]+$")},
	"TRIM":    {1, 2, trim("btrim", "^[[:space:]]+|[[:space:]]+$")},
	"REVERSE": {1, 1, str1("reverse")},
	"CONCAT": {2, -1, func(t *translator, a []string) string {
		parts := make([]string, len(a))
		for i, x := range a {
			parts[i] = "cosmos.str(" + x + ")"
		}
		// bounded: CONCAT(c.s, c.s, ...) could multiply a stored string
		return "to_jsonb(cosmos.concat_bounded(" + strings.Join(parts, ", ") + "))"
	}},
	"CONTAINS":     {2, 3, strTest("contains", func(x, y string) string { return "strpos(" + x + ", " + y + ") > 0" })},
	"STARTSWITH":   {2, 3, strTest("starts", func(x, y string) string { return "starts_with(" + x + ", " + y + ")" })},
	"ENDSWITH":     {2, 3, strTest("ends", func(x, y string) string { return "cosmos.ends_with(" + x + ", " + y + ")" })},
	"STRINGEQUALS": {2, 3, strTest("equals", func(x, y string) string { return x + " = " + y })},
	"INDEX_OF": {2, 3, func(t *translator, a []string) string {
		if len(a) == 3 {
			return "to_jsonb(cosmos.index_of(cosmos.str(" + a[0] + "), cosmos.str(" + a[1] + "), cosmos.numx(" + a[2] + ")))"
		}
		return "to_jsonb(strpos(cosmos.str(" + a[0] + "), cosmos.str(" + a[1] + ")) - 1)"
	}},
	"LEFT": {2, 2, func(t *translator, a []string) string {
		return "to_jsonb(left(cosmos.str(" + a[0] + "), " + clampInt(a[1]) + "))"
	}},
	"RIGHT": {2, 2, func(t *translator, a []string) string {
		return "to_jsonb(right(cosmos.str(" + a[0] + "), " + clampInt(a[1]) + "))"
	}},
	"SUBSTRING": {3, 3, func(t *translator, a []string) string {
		return "to_jsonb(substr(cosmos.str(" + a[0] + "), " + clampInt(a[1]) + " + 1, " + clampInt(a[2]) + "))"
	}},
	"REPLACE": {3, 3, func(t *translator, a []string) string {
		// bounded: REPLACE multiplies sizes (each occurrence of a[1])
		return "to_jsonb(cosmos.replace_bounded(cosmos.str(" + a[0] + "), NULLIF(cosmos.str(" + a[1] + "), ''), cosmos.str(" + a[2] + ")))"
	}},
	"ARRAY_LENGTH": {1, 1, func(t *translator, a []string) string {
		return "cosmos.array_len(" + a[0] + ")"
	}},
	"ARRAY_CONTAINS": {2, 3, func(t *translator, a []string) string {
		partial := "NULL::jsonb"
		if len(a) == 3 {
			// partial: an object needle matches elements containing its members
			partial = a[2]
		}
		return "cosmos.array_contains(" + a[0] + ", " + a[1] + ", " + partial + ")"
	}},
	"IIF": {3, 3, func(t *translator, a []string) string {
		return "(CASE WHEN (" + a[0] + ") = 'true'::jsonb THEN " + a[1] + " ELSE " + a[2] + " END)"
	}},
}

// astFunctions are the built-in functions translated by an astFn (filled
// by the init functions of the functions_*.go files). call prefers them to
// a plain form of the same name in functions, which is what translations
// that see only translated arguments (over groups) use.
var astFunctions = map[string]astFn{}

// register adds built-in functions (from the init functions of the
// functions_*.go files).
func register(m map[string]fn) {
	for name, f := range m {
		if _, dup := functions[name]; dup {
			panic("sqlgen: function " + name + " registered twice")
		}
		functions[name] = f
	}
}

func (t *translator) call(c *cosmosql.Call) (string, error) {
	if c.UDF {
		if t.udfIndex != nil {
			return t.udfCall(c)
		}
		return "", unsupported("user-defined functions (udf.%s)", c.Name)
	}
	name := strings.ToUpper(c.Name)
	if cosmosql.IsAggregate(name) {
		return "", unsupported("the aggregate %s in this position", name)
	}
	f, ok := functions[name]
	af, isAST := astFunctions[name]
	if isAST {
		f.min, f.max = af.min, af.max
	} else if !ok {
		return "", unsupported("the function %s", name)
	}
	if len(c.Args) < f.min || (f.max >= 0 && len(c.Args) > f.max) {
		return "", &UnsupportedError{What: "calling " + name + " with this number of arguments"}
	}
	if isAST {
		return af.gen(t, c.Args)
	}
	args, err := t.vals(c.Args)
	if err != nil {
		return "", err
	}
	return f.gen(t, args), nil
}
